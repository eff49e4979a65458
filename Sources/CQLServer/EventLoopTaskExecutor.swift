import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
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

/// Connections (HTTP/1, or HTTP/1 with LiveQuery's WebSocket upgrade) whose
/// handling task prefers its channel's event loop (``EventLoopTaskExecutor``).
struct EventLoopPinnedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let executors: EventLoopTaskExecutors

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(executors.executor(for: value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
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
    /// HTTP/1 and the WebSocket upgrade `shouldUpgrade` allows (LiveQuery's),
    /// each connection counted in `count` (``ConnectionLimitedChannel``), every
    /// handler — a request's or a WebSocket's — on its connection's event loop.
    static func eventLoopPinnedHTTP1WebSocket(
        _ executors: EventLoopTaskExecutors, count: ConnectionCount, configuration: HTTP1WebSocketUpgradeChannel.Configuration,
        shouldUpgrade: @escaping @Sendable (HTTPRequest) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            EventLoopPinnedChannel(
                base: ConnectionLimitedChannel(
                    base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration) { head, _, _ in shouldUpgrade(head) },
                    count: count),
                executors: executors)
        }
    }

    /// HTTP/1 and the WebSocket upgrade `shouldUpgrade` allows (LiveQuery's),
    /// each connection counted in `count` (``ConnectionLimitedChannel``).
    static func limitedHTTP1WebSocket(
        count: ConnectionCount, configuration: HTTP1WebSocketUpgradeChannel.Configuration,
        shouldUpgrade: @escaping @Sendable (HTTPRequest) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            ConnectionLimitedChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration) { head, _, _ in shouldUpgrade(head) },
                count: count)
        }
    }
}
