import Foundation
import Synchronization

/// Why a file could not be written.
package struct WriteFailure: Error, Sendable {
    package var reason: String
    /// The errno behind it, when there is one.
    package var code: Int32 = 0

    package init(reason: String, code: Int32 = 0) {
        (self.reason, self.code) = (reason, code)
    }

    /// The output's file system (or the file-size limit) is full: every
    /// further write would fail too.
    package var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT || code == EFBIG }
}

/// The temporary files being written right now, so that an immediate exit
/// (a second Ctrl-C) can remove them first and leave no partial file.
public final class TemporaryFiles: Sendable {
    private let paths = Mutex<Set<String>>([])
    private let counter = Atomic<Int>(0)
    private let folder = Mutex<String?>(nil)

    public init() {}

    /// Puts every later temporary file in `folder` (on the output's file
    /// system, so the final rename stays atomic), where the next run can find
    /// and remove what a crash left behind.
    package func use(folder path: String) {
        folder.withLock { $0 = path }
    }

    package func make(for path: String) -> String {
        guard let shared = folder.withLock({ $0 }) else { return make(beside: path) }
        let number = counter.add(1, ordering: .relaxed).newValue
        let temporary = shared + "/\(number)-\(getpid()).tmp"
        paths.withLock { _ = $0.insert(temporary) }
        return temporary
    }

    /// A temporary name in `path`'s own folder (for files that may lie
    /// outside the output folder, on another file system).
    package func make(beside path: String) -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        let name = (path as NSString).lastPathComponent
        let parent = (path as NSString).deletingLastPathComponent
        let temporary = (parent.isEmpty ? "" : parent + "/") + ".\(name).facecrop-\(getpid())-\(number).tmp"
        paths.withLock { _ = $0.insert(temporary) }
        return temporary
    }

    package func forget(_ temporary: String) {
        paths.withLock { _ = $0.remove(temporary) }
    }

    /// Deletes every temporary file still being written.
    public func removeAll() {
        let pending = paths.withLock { set in
            defer { set.removeAll() }
            return set
        }
        for path in pending { unlink(path) }
    }
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
/// Returns 0, or the errno that stopped it.
package func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    var written = 0
    while written < bytes.count {
        let result = write(fd, bytes.baseAddress! + written, bytes.count - written)
        if result < 0 {
            if errno == EINTR { continue }
            return errno
        }
        written += result
    }
    return 0
}

/// Writes a whole file under a temporary name in its folder, then renames it
/// into place: a reader (or a rerun after a crash) sees the old file or the
/// new one, never half of one.
package enum AtomicFile {
    package static func write(_ bytes: [UInt8], to path: String, temporaries: TemporaryFiles) throws(WriteFailure) {
        try commit(bytes, through: temporaries.make(for: path), to: path, temporaries: temporaries)
    }

    /// Like `write(_:to:temporaries:)`, with the temporary name in `path`'s
    /// own folder: for a file that may lie outside the output, on another
    /// file system (a people or rejections file kept with the photos).
    package static func write(_ bytes: [UInt8], beside path: String, temporaries: TemporaryFiles) throws(WriteFailure) {
        try commit(bytes, through: temporaries.make(beside: path), to: path, temporaries: temporaries)
    }

    /// Writes `bytes` to `temporary`, then renames it to `path`; on any
    /// failure the temporary file is removed and `path` is as it was.
    private static func commit(
        _ bytes: [UInt8], through temporary: String, to path: String, temporaries: TemporaryFiles
    ) throws(WriteFailure) {
        defer { temporaries.forget(temporary) }
        do {
            try writeAll(bytes, to: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw WriteFailure(reason: systemError(code), code: code)
        }
    }

    /// Has `fill` write the file at the temporary path it is given (returning
    /// nil, or why it could not), then renames it into place.
    package static func write(to path: String, temporaries: TemporaryFiles, _ fill: (String) -> String?) throws(WriteFailure) {
        let temporary = temporaries.make(for: path)
        defer { temporaries.forget(temporary) }
        if let reason = fill(temporary) {
            unlink(temporary)
            throw WriteFailure(reason: reason)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw WriteFailure(reason: systemError(code), code: code)
        }
    }

    private static func writeAll(_ bytes: [UInt8], to path: String) throws(WriteFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteFailure(reason: systemError(errno), code: errno) }
        let code = bytes.withUnsafeBytes { writeFully(fd, $0) }
        var failure = code == 0 ? nil : WriteFailure(reason: systemError(code), code: code)
        if close(fd) != 0, failure == nil { failure = WriteFailure(reason: systemError(errno), code: errno) }
        if let failure { throw failure }
    }

    /// Creates `folder` and its parents.
    package static func makeFolder(_ folder: String) throws(WriteFailure) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            var info = stat()
            if stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return }
            throw WriteFailure(reason: (error as NSError).localizedDescription)
        }
    }
}
