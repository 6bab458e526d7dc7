#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A pthread mutex and its condition variable, for the listener's two queues (the log's group
/// commit, the forwarder's): `lock`, `unlock`, `wait` (with the lock held, it is released while
/// waiting), `wait(seconds:)` and `broadcast`. pthreads rather than `Synchronization.Mutex`, so
/// that ThreadSanitizer sees every hand-over (`make sanitize`), as `Locked` does.
final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` with the lock held.
    func locked<Value>(_ body: () throws -> Value) rethrows -> Value {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits for a `broadcast` (or a spurious wake-up: callers test what they wait for).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a `broadcast`, at most `seconds`.
    func wait(seconds: Double) {
        var wake = timespec()
        clock_gettime(CLOCK_REALTIME, &wake)
        let nanoseconds = Int(max(0, min(seconds, 3600)) * 1e9)
        wake.tv_sec += nanoseconds / 1_000_000_000
        wake.tv_nsec += nanoseconds % 1_000_000_000
        if wake.tv_nsec >= 1_000_000_000 {
            wake.tv_sec += 1
            wake.tv_nsec -= 1_000_000_000
        }
        pthread_cond_timedwait(condition, mutex, &wake)
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}
