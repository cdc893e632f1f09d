import CVipsShim
import Foundation
import FaceCropCore

/// One photo file, open for as long as the photo is processed.
///
/// The file is hashed as it is read, a chunk at a time, so it is never
/// whole in memory; the decodes read it again through the same open file
/// (`/proc/self/fd/N`: the file hashed, even if it is renamed or replaced
/// meanwhile). Only a photo that can only be decoded whole from memory
/// (HEIC, AVIF, GIF, a PNG or TIFF stored turned: `PhotoHeader.streams`
/// false) has its bytes read into memory, on first use. Not thread-safe:
/// owned by the one task processing the photo.
package final class PhotoBytes {
    /// The file's size in bytes, as hashed.
    package let count: Int
    package let sha256: String
    /// The open file as a path for libvips.
    package let decodePath: String
    private let fd: Int32
    private let source: String
    private var storage: UnsafeMutableRawPointer?

    /// Opens the file at `path` (`rawPath`: its exact bytes, when given) and hashes it.
    package init(path: String, rawPath: [UInt8]? = nil, source: String) throws(FaceCropError) {
        let fd = FileName.withCPath(rawPath ?? Array(path.utf8)) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .unreadable(source, reason: systemError(errno)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = systemError(errno)
            close(fd)
            throw .unreadable(source, reason: reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .unreadable(source, reason: "not a regular file")
        }
        var hex = [CChar](repeating: 0, count: 65)
        var length: Int64 = 0
        var message: UnsafeMutablePointer<CChar>?
        guard CVipsShim_SHA256File(fd, &hex, &length, &message) == 0 else {
            close(fd)
            throw .unreadable(source, reason: takeMessage(message, fallback: "read failed"))
        }
        guard length > 0 else {
            close(fd)
            throw .notAnImage(source, reason: "empty file (0 bytes)")
        }
        self.fd = fd
        self.source = source
        count = Int(length)
        sha256 = String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let procPath = "/proc/self/fd/\(fd)"
        decodePath = access(procPath, R_OK) == 0 ? procPath : path
    }

    deinit {
        storage?.deallocate()
        close(fd)
    }

    /// The open file as a path another process (ffmpeg) can open: the file
    /// hashed, whatever its name's bytes.
    package var processPath: String {
        let path = "/proc/\(getpid())/fd/\(fd)"
        return access(path, R_OK) == 0 ? path : decodePath
    }

    /// The file's first `count` bytes (fewer for a shorter file).
    package func head(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: min(count, self.count))
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return got > 0 ? Array(bytes.prefix(got)) : []
    }

    /// The file's bytes, read into memory on first use (the `count` hashed).
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(FaceCropError) -> R) throws(FaceCropError) -> R {
        if storage == nil {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
            var filled = 0
            while filled < count {
                let got = pread(fd, memory + filled, count - filled, off_t(filled))
                if got < 0 && errno == EINTR { continue }
                if got <= 0 {
                    let reason = got < 0 ? systemError(errno) : "the file shrank while it was read"
                    memory.deallocate()
                    throw .unreadable(source, reason: reason)
                }
                filled += got
            }
            storage = memory
        }
        return try body(UnsafeRawBufferPointer(start: storage, count: count))
    }
}
