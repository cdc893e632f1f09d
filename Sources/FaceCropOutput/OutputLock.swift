import Foundation
import FaceCropCore

/// One writer per dataset folder and shard.
///
/// A run takes an `flock(2)` lock on `<-o>/.facecrop/lock[.shard-K-of-N]`
/// before it reads or writes anything of the dataset: exclusive for a run
/// that writes, shared for `--check` and `--dry-run`, which only read. The
/// kernel drops the lock when the process ends, however it ends, so a
/// `kill -9` leaves nothing stale behind. The file itself stays (removing a
/// lock file while another process waits on it would let two runs in); its
/// only content is the pid of the writer that holds it, for the message the
/// next run prints.
///
/// Runs of different shards take different files, so they still run side by
/// side into one folder.
///
/// Not thread-safe: owned by the run that took it and released in `deinit`.
package final class OutputLock {
    package enum Mode {
        /// A run that writes the dataset.
        case exclusive
        /// `--check`, `--dry-run`, and `merge` reading a shard's records.
        case shared
    }

    /// How often a waiting run (`--wait-lock`) tries again.
    package static let retryInterval: useconds_t = 100_000

    private let descriptor: Int32
    private let mode: Mode
    package let path: String

    private init(descriptor: Int32, mode: Mode, path: String) {
        self.descriptor = descriptor
        self.mode = mode
        self.path = path
    }

    private var released = false
    /// Whether `flock` succeeded: only a holder may clear the pid.
    private var held = false

    /// Lets the lock go now (a run calls this when it ends, so the release
    /// does not wait for ARC): a writer clears its pid, and closing the
    /// descriptor releases the lock.
    package func release() {
        guard !released else { return }
        released = true
        if held, mode == .exclusive { _ = ftruncate(descriptor, 0) }
        close(descriptor)
    }

    deinit { release() }

    package static func path(output: String, suffix: String) -> String {
        output + "/" + StateStore.folderName + "/lock" + suffix
    }

    /// Takes the lock of `output`'s dataset (and shard, by `suffix`).
    ///
    /// A shared lock on a dataset that has no lock file yet returns nil: no
    /// run that writes has started there, and a reader creates nothing.
    /// When another run holds the lock, this throws `.outputLocked` at once,
    /// or with `wait` tries again every 0.1 s (saying so once through
    /// `waiting`) until the lock is free or `stop` is requested.
    package static func take(
        output: String, suffix: String, mode: Mode, wait: Bool, stop: StopRequest, waiting: (String) -> Void
    ) throws(FaceCropError) -> OutputLock? {
        let path = path(output: output, suffix: suffix)
        let descriptor: Int32
        switch mode {
        case .exclusive:
            do {
                try AtomicFile.makeFolder(output + "/" + StateStore.folderName)
            } catch {
                throw .outputUnusable(output, reason: error.reason)
            }
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw .outputUnusable(output, reason: systemError(errno)) }
        case .shared:
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                if errno == ENOENT || errno == ENOTDIR { return nil }
                throw .outputUnusable(output, reason: systemError(errno))
            }
        }
        let lock = OutputLock(descriptor: descriptor, mode: mode, path: path)
        let operation = mode == .exclusive ? LOCK_EX : LOCK_SH
        var announced = false
        while flock(descriptor, operation | LOCK_NB) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            guard failure == EWOULDBLOCK else {
                throw .outputUnusable(output, reason: "cannot lock '\(path)': \(systemError(failure))")
            }
            let holder = lock.holder()
            guard wait else { throw .outputLocked(output, holder: holder) }
            if stop.requested != nil { throw .outputLocked(output, holder: holder) }
            if !announced {
                waiting(FaceCropError.lockHolderText(output, holder: holder) + "; waiting for it (--wait-lock)")
                announced = true
            }
            usleep(retryInterval)
        }
        lock.held = true
        if mode == .exclusive { lock.recordHolder() }
        return lock
    }

    /// The pid the writer holding the lock wrote, if that process is alive
    /// (a reader writes none; a writer killed with -9 leaves a stale one).
    private func holder() -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 else { return nil }
        return kill(pid, 0) == 0 || errno == EPERM ? Int(pid) : nil
    }

    /// Writes this process's pid into the lock file, for the next run's message.
    private func recordHolder() {
        let text = Array("\(getpid())\n".utf8)
        guard ftruncate(descriptor, 0) == 0 else { return }
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }
}
