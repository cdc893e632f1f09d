import Foundation
import FaceCropCore

/// A POSIX tar archive (ustar, POSIX.1-1988, with a pax extended header,
/// POSIX.1-2001, for a name longer than ustar's 100 bytes), written member
/// by member under a temporary name and renamed into place by `commit`.
///
/// Every member is a regular file with mode 0644, uid and gid 0, no user or
/// group name and mtime 0, so the same members in the same order always give
/// the same bytes. The archive ends with two zero blocks and is padded to a
/// whole 10,240-byte record, as tar's default blocking factor of 20 expects.
///
/// Not thread-safe: owns an open file; used by one loop.
package final class TarWriter {
    package static let block = 512
    package static let record = 20 * block

    private let path: String
    private let temporary: String
    private let temporaries: TemporaryFiles
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var written = 0
    private var committed = false

    package init(path: String, temporaries: TemporaryFiles) throws(WriteFailure) {
        self.path = path
        self.temporaries = temporaries
        temporary = temporaries.make(beside: path)
        fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            temporaries.forget(temporary)
            throw WriteFailure(reason: "'\(path)': \(systemError(code))", code: code)
        }
    }

    deinit {
        close(fd)
        if !committed { unlink(temporary) }
        temporaries.forget(temporary)
    }

    /// Adds a regular file named `name` (UTF-8) holding `contents`.
    package func add(name: String, contents: some Collection<UInt8>) throws(WriteFailure) {
        let nameBytes = Array(name.utf8)
        if nameBytes.count > 100 {
            // The path record: "<length> path=<name>\n", the length counting itself.
            let body = " path=".utf8.count + nameBytes.count + 1
            var length = body + 1
            while String(length).utf8.count + body != length { length += 1 }
            let record = Array("\(length) path=".utf8) + nameBytes + [0x0A]
            append(Self.header(name: Array("././@PaxHeader".utf8), size: record.count, type: UInt8(ascii: "x")))
            appendPadded(record)
        }
        append(Self.header(name: Array(nameBytes.prefix(100)), size: contents.count, type: UInt8(ascii: "0")))
        appendPadded(contents)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Ends the archive and renames it into place.
    package func commit() throws(WriteFailure) {
        append([UInt8](repeating: 0, count: 2 * Self.block))
        let total = written + buffer.count
        append([UInt8](repeating: 0, count: (Self.record - total % Self.record) % Self.record))
        try flush()
        guard rename(temporary, path) == 0 else { throw failure(errno) }
        committed = true
    }

    /// A ustar header block.
    package static func header(name: [UInt8], size: Int, type: UInt8) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: block)
        func put(_ bytes: [UInt8], at offset: Int) {
            for (index, byte) in bytes.enumerated() { header[offset + index] = byte }
        }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: width - 1 - digits.count) + digits).utf8) + [0]
        }
        put(name, at: 0)
        put(octal(0o644, width: 8), at: 100)  // mode
        put(octal(0, width: 8), at: 108)  // uid
        put(octal(0, width: 8), at: 116)  // gid
        put(octal(size, width: 12), at: 124)
        put(octal(0, width: 12), at: 136)  // mtime
        put(Array(repeating: UInt8(ascii: " "), count: 8), at: 148)  // checksum, counted as spaces
        header[156] = type
        put(Array("ustar".utf8) + [0] + Array("00".utf8), at: 257)
        put(octal(0, width: 8), at: 329)  // devmajor
        put(octal(0, width: 8), at: 337)  // devminor
        let checksum = header.reduce(0) { $0 + Int($1) }
        put(octal(checksum, width: 7) + [UInt8(ascii: " ")], at: 148)
        return header
    }

    private func append(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    private func appendPadded(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: repeatElement(0, count: (Self.block - bytes.count % Self.block) % Self.block))
    }

    private func flush() throws(WriteFailure) {
        let code = buffer.withUnsafeBytes { writeFully(fd, $0) }
        if code != 0 { throw failure(code) }
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    private func failure(_ code: Int32) -> WriteFailure {
        WriteFailure(reason: "'\(path)': \(systemError(code))", code: code)
    }
}
