import Foundation
import FaceCropCore

/// A JSON-lines file (manifest.jsonl, the state file, clips.jsonl) written
/// under a temporary name as its lines arrive, buffered, and renamed into
/// place by `commit`; dropped if never committed.
package final class JSONLinesWriter {
    private let path: String
    private let temporary: String
    private let temporaries: TemporaryFiles
    private let fd: Int32
    private var buffer: [UInt8] = []
    package private(set) var failure: WriteFailure?

    package init(outputRoot: String, name: String, temporaries: TemporaryFiles) throws(WriteFailure) {
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

    /// Appends lines (each without its newline).
    package func append(_ lines: [String]) throws(WriteFailure) {
        for line in lines {
            buffer.append(contentsOf: line.utf8)
            buffer.append(UInt8(ascii: "\n"))
        }
        if buffer.count >= 1 << 16 { try flush() }
    }

    package func append(_ line: String) throws(WriteFailure) {
        try append([line])
    }

    package func commit() throws(WriteFailure) {
        try flush()
        guard rename(temporary, path) == 0 else { throw fail(systemError(errno), code: errno) }
        committed = true
        temporaries.forget(temporary)
    }

    /// Writes out what is buffered; returns the temporary file's path.
    package func flushedPath() throws(WriteFailure) -> String {
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
}
