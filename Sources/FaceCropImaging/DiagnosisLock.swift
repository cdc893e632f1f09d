import CVipsShim
import Glibc

/// libvips keeps one error text for the whole process, so when photos fail at
/// the same time their messages mix. Every photo is processed holding this
/// lock shared; a photo that fails inside libvips is processed once more
/// holding it exclusively, with the error text emptied first, so its message
/// is its own and the same whatever `--jobs` is (the manifest stays
/// reproducible). Failures are rare; the retry costs only them.
///
/// Thread-safe: a writer-preferring pthread read-write lock.
package final class DiagnosisLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    package init() {
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    package func shared<T>(_ body: () -> T) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body()
    }

    package func exclusive<T>(_ body: () -> T) -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        CVipsShim_ClearErrors()
        return body()
    }
}
