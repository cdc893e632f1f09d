import Foundation

/// manifest.jsonl: one JSON object per line, a line per crop and a line per
/// photo without crops, in source order. Written under a temporary name as
/// the outcomes arrive (in order) and renamed into place at the end.
final class ManifestWriter {
    static let fileName = "manifest.jsonl"

    private let path: String
    private let temporary: String
    private let temporaries: TemporaryFiles
    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var failure: WriteFailure?

    init(outputRoot: String, name: String = fileName, temporaries: TemporaryFiles) throws(WriteFailure) {
        path = (outputRoot as NSString).appendingPathComponent(name)
        temporary = temporaries.make(for: path)
        self.temporaries = temporaries
        fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            temporaries.forget(temporary)
            throw WriteFailure(reason: systemError(errno))
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if failure != nil || !committed {
            unlink(temporary)
            temporaries.forget(temporary)
        }
    }

    private var committed = false

    func append(_ record: PhotoRecord) throws(WriteFailure) {
        for line in record.lines {
            buffer.append(contentsOf: line.utf8)
            buffer.append(UInt8(ascii: "\n"))
        }
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Appends one line of another JSON-lines file written the same way
    /// (e.g. clips.jsonl).
    func appendLine(_ line: String) throws(WriteFailure) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { try flush() }
    }

    func commit() throws(WriteFailure) {
        try flush()
        guard rename(temporary, path) == 0 else { throw fail(systemError(errno), code: errno) }
        committed = true
        temporaries.forget(temporary)
    }

    /// Writes out what is buffered; returns the temporary file's path.
    func flushedPath() throws(WriteFailure) -> String {
        try flush()
        return temporary
    }

    private func flush() throws(WriteFailure) {
        if let failure { throw failure }
        let code = buffer.withUnsafeBytes { writeFully(fd, $0) }
        if code != 0 { throw fail(systemError(code), code: code) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func fail(_ reason: String, code: Int32) -> WriteFailure {
        let failure = WriteFailure(reason: "'\(path)': \(reason)", code: code)
        self.failure = failure
        return failure
    }

    /// The manifest lines for one outcome (the contract in README.md).
    static func lines(for outcome: PhotoOutcome, labels: [String]) -> [String] {
        var common: [(String, JSON)] = [("source", .string(FileName.display(outcome.source)))]
        let label = outcome.input < labels.count ? labels[outcome.input] : ""
        var extra: [(String, JSON)] = []
        if FileName.hasEscapes(outcome.source) {
            extra.append(("source_bytes", .string(Data(FileName.bytes(outcome.source)).base64EncodedString())))
        }
        if !label.isEmpty { extra.append(("input", .string(label))) }
        if let width = outcome.width, let height = outcome.height {
            extra.append(("width", .int(width)))
            extra.append(("height", .int(height)))
        }
        if let sha256 = outcome.sha256 { extra.append(("sha256", .string(sha256))) }

        switch outcome.status {
        case .ok:
            return outcome.faces.map { face in
                common.append(("status", .string("ok")))
                defer { common.removeLast() }
                let fields: [(String, JSON)] = [
                    ("face", .int(face.index)),
                    ("bbox", .array([.int(face.bbox.x), .int(face.bbox.y), .int(face.bbox.width), .int(face.bbox.height)])),
                    ("score", .double(face.score)),
                    ("crop", .string(face.crop)),
                    ("padded", .bool(face.padded)),
                    ("target", .string(face.target.rawValue)),
                    ("aligned", .bool(face.aligned)),
                    ("angle", .double(face.angle)),
                    ("sharpness", .double(face.sharpness)),
                ]
                return JSON.object(common + fields + extra).serialized()
            }
        case .noFace, .noPerson:
            common.append(("status", .string(outcome.status.rawValue)))
            return [JSON.object(common + extra).serialized()]
        case .error:
            common.append(("status", .string("error")))
            common.append(("error", .string(outcome.error?.reason ?? "unknown error")))
            return [JSON.object(common + extra).serialized()]
        }
    }
}
