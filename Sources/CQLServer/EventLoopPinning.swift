import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// Runs a task's jobs on one NIO event loop: with it as the task executor
/// preference, a request's handler runs on the thread that reads and writes
/// its connection, and continuations resumed by that loop (a PostgreSQL
/// connection of the same loop, see ``ServerStorage``) run there at once.
///
/// Why: by default a Hummingbird handler runs on Swift's global executor, so
/// every request crosses threads twice (loop → task → loop), and every
/// database answer twice more: those hand-offs cost more than the work.
///
/// Code on this executor must not block: the server's database calls that
/// block run on the storage's thread pool (``ServerStorage/read(_:)``), and
/// password hashing on NIO's (``Passwords``).
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // Always queued, never run inline: the job enqueuing it (on this
        // loop, often) must return first.
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}

/// HTTP/1 connections whose handling task prefers its channel's event loop
/// (``EventLoopTaskExecutor``).
struct EventLoopPinnedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let executors: EventLoopTaskExecutors

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(executors.executor(for: value.channel.eventLoop)) {
            await http1.handle(value: value, logger: logger)
        }
    }
}

/// One ``EventLoopTaskExecutor`` per event loop of a group, made up front.
final class EventLoopTaskExecutors: Sendable {
    private let executors: [EventLoopTaskExecutor]

    /// Those of `MultiThreadedEventLoopGroup.singleton`, which serves HTTP
    /// and reads PostgreSQL (``EventLoopReaders``): one executor per loop.
    static let singleton = EventLoopTaskExecutors(MultiThreadedEventLoopGroup.singleton)

    var all: [EventLoopTaskExecutor] { executors }

    init(_ group: any EventLoopGroup) {
        executors = group.makeIterator().map { EventLoopTaskExecutor($0) }
    }

    func executor(for eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        for e in executors where e.eventLoop === eventLoop { return e }
        return EventLoopTaskExecutor(eventLoop)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 whose handlers run on their connection's event loop.
    static func eventLoopPinnedHTTP1(_ executors: EventLoopTaskExecutors, configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            EventLoopPinnedHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: configuration), executors: executors)
        }
    }
}
