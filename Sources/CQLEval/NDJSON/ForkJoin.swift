#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body(0)`, …, `body(count - 1)` at once, one thread each (`body(0)`
/// on the caller's), and returns when all are done.
///
/// Why not `DispatchQueue.concurrentPerform`: on Linux (corelibs libdispatch)
/// it ran every iteration on the calling thread here, one after the other.
package enum ForkJoin {
    private final class Job: @unchecked Sendable {
        let body: (Int) -> Void
        let index: Int
        init(_ body: @escaping (Int) -> Void, _ index: Int) {
            self.body = body
            self.index = index
        }
    }

    package static func run(count: Int, _ body: (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        withoutActuallyEscaping(body) { body in
            #if canImport(Darwin)
            var threads: [pthread_t?] = []
            #else
            var threads: [pthread_t] = []
            #endif
            for i in 1..<count {
                let job = Unmanaged.passRetained(Job(body, i)).toOpaque()
                #if canImport(Darwin)
                var thread: pthread_t?
                #else
                var thread = pthread_t()
                #endif
                let started = pthread_create(&thread, nil, { raw in
                    #if canImport(Darwin)
                    let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
                    #else
                    let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
                    #endif
                    job.body(job.index)
                    return nil
                }, job)
                if started == 0 {
                    threads.append(thread)
                } else {
                    // No thread to be had: the part runs here instead.
                    let job = Unmanaged<Job>.fromOpaque(job).takeRetainedValue()
                    job.body(job.index)
                }
            }
            body(0)
            #if canImport(Darwin)
            for t in threads { if let t { pthread_join(t, nil) } }
            #else
            for t in threads { pthread_join(t, nil) }
            #endif
        }
    }

    /// Runs `body(0)`, …, `body(items - 1)` on `threads` threads (the
    /// caller's among them), each thread taking the next item no thread has
    /// started, and returns when all are done.
    ///
    /// Why items rather than one share per thread: on a shared machine a
    /// thread can be held up (another process, a busy core), and with fixed
    /// shares the others would wait for it at the end; with many small items
    /// they take over its remaining work. Which thread runs an item is
    /// unspecified: `body` must write only to the item's own state.
    package static func forEach(items: Int, threads: Int, _ body: (Int) -> Void) {
        forEach(items: items, threads: threads) { item, _ in body(item) }
    }

    /// ``forEach(items:threads:_:)`` that also tells `body` which thread
    /// (`0..<threads`) runs the item, for state a thread reuses across its
    /// items (a parser, buffers).
    package static func forEach(items: Int, threads: Int, _ body: (_ item: Int, _ thread: Int) -> Void) {
        guard items > 0 else { return }
        let next = NextItem(count: items)
        defer { next.close() }
        run(count: max(1, min(threads, items))) { thread in
            while let item = next.take() { body(item, thread) }
        }
    }

    /// The items' counter ``forEach(items:threads:_:)`` shares among its
    /// threads, under a lock (taken once per item: negligible beside an
    /// item's work).
    private final class NextItem: @unchecked Sendable {
        private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private var next = 0
        private let count: Int

        init(count: Int) {
            self.count = count
            lock.initialize(to: pthread_mutex_t())
            pthread_mutex_init(lock, nil)
        }

        func take() -> Int? {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            guard next < count else { return nil }
            next += 1
            return next - 1
        }

        func close() {
            pthread_mutex_destroy(lock)
            lock.deallocate()
        }
    }
}
