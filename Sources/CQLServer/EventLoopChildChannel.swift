import CQLSQL
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 connection handling, with each connection's tasks
/// run on the event loop of its channel (``CQLSQL/EventLoopTaskExecutor``).
///
/// Hummingbird reads a request, calls the responder and writes the response
/// in one task per connection. On the default executor each `await` on the
/// channel — the request arriving, a body part, the response written — hands
/// that task between the loop's thread and another pool's: measured with
/// `perf` under `wrk`, the scheduler's switches were the largest single cost
/// of a get. Preferring the channel's own loop keeps the task where its bytes
/// are. The responder's database calls still leave the loop (they block, on
/// the storage's threads), and resume on it.
struct EventLoopChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor.for(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 as `.http1()`, each connection's tasks on its event loop
    /// (``EventLoopChildChannel``).
    static func http1OnEventLoops() -> HTTPServerBuilder {
        HTTPServerBuilder { responder in EventLoopChildChannel(inner: HTTP1Channel(responder: responder)) }
    }
}
