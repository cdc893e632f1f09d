import Foundation
import FaceCropCore

/// embeddings.npy: one row of `Embedding.size` little-endian float32s per
/// face with a crop, in manifest order (the manifest line's `embedding` is
/// its row), as numpy's `.npy` (format 1.0) so that
/// `numpy.load("embeddings.npy")` reads it in one line. Written under a
/// temporary name as rows arrive; the header, which holds the row count, is
/// filled in by `commit`, which then renames the file into place.
package final class EmbeddingsFile {
    package static let fileName = "embeddings.npy"
    /// Magic, version, header length, then the header padded to this many bytes in all.
    private static let headerBytes = 128

    private let path: String
    private let temporary: String
    private let temporaries: TemporaryFiles
    private let fd: Int32
    private var buffer: [UInt8] = []
    package private(set) var rows = 0
    private var committed = false

    package init(outputRoot: String, temporaries: TemporaryFiles) throws(WriteFailure) {
        path = (outputRoot as NSString).appendingPathComponent(Self.fileName)
        temporary = temporaries.make(for: path)
        self.temporaries = temporaries
        fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            temporaries.forget(temporary)
            throw WriteFailure(reason: "'\(path)': \(systemError(errno))", code: errno)
        }
        buffer = Self.header(rows: 0)
    }

    deinit {
        if fd >= 0 { close(fd) }
        if !committed {
            unlink(temporary)
            temporaries.forget(temporary)
        }
    }

    /// The `.npy` header for `rows` rows, `headerBytes` long.
    package static func header(rows: Int) -> [UInt8] {
        var text = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(rows), \(Embedding.size)), }"
        let room = headerBytes - 10 - 1
        text += String(repeating: " ", count: max(0, room - text.utf8.count)) + "\n"
        let length = UInt16(text.utf8.count)
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xff), UInt8(length >> 8)] + Array(text.utf8)
    }

    package func append(_ values: ArraySlice<Float>) throws(WriteFailure) {
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { buffer.append(contentsOf: $0) } }
        rows += 1
        if buffer.count >= 1 << 16 { try flush() }
    }

    package func commit() throws(WriteFailure) {
        try flush()
        let header = Self.header(rows: rows)
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw WriteFailure(reason: "'\(path)': \(systemError(errno))", code: errno) }
        guard rename(temporary, path) == 0 else { throw WriteFailure(reason: "'\(path)': \(systemError(errno))", code: errno) }
        committed = true
        temporaries.forget(temporary)
    }

    private func flush() throws(WriteFailure) {
        let code = buffer.withUnsafeBytes { writeFully(fd, $0) }
        if code != 0 { throw WriteFailure(reason: "'\(path)': \(systemError(code))", code: code) }
        buffer.removeAll(keepingCapacity: true)
    }
}
