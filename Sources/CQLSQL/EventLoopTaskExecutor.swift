import NIOCore
import Foundation

/// A Swift concurrency task executor that runs a task's jobs on one NIO
/// event loop.
///
/// Why: a task that waits on a channel of that loop (an HTTP connection, a
/// PostgreSQL connection) is resumed by the loop's thread when its I/O
/// completes. On the default executor every such resumption hands the task
/// to another pool of threads — a futex wake-up and a context switch, several
/// times per request; preferring the loop's executor
/// (`withTaskExecutorPreference`, `Task(executorPreference:)`) runs it at
/// once on the thread that already holds the data. Jobs must not block: the
/// loop serves every other channel on it too (the database calls that do
/// block run on thread pools of their own).
///
/// ```swift
/// let executor = EventLoopTaskExecutor.for(channel.eventLoop)
/// await withTaskExecutorPreference(executor) { await handle(channel) }
/// ```
public final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// The loop whose thread runs the jobs.
    public let eventLoop: any EventLoop

    private init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor of `eventLoop` (one per loop, made on first use).
    public static func `for`(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        let key = ObjectIdentifier(eventLoop)
        lock.lock()
        defer { lock.unlock() }
        if let e = executors[key] { return e }
        let e = EventLoopTaskExecutor(eventLoop)
        executors[key] = e
        return e
    }

    // Event loops live as long as their group (NIO's singleton group: the
    // process), so the few executors are kept, never released.
    nonisolated(unsafe) private static var executors: [ObjectIdentifier: EventLoopTaskExecutor] = [:]
    private static let lock = NSLock()
}
