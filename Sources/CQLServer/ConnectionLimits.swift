import Foundation
import HummingbirdCore
import NIOCore
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many HTTP connections the server holds at once, and how long one may
/// sit idle (Server.md, "Connections").
///
/// Why: every connection is a file descriptor, and a process out of them
/// fails wherever it next opens one (a database file, a socket, a pipe of the
/// runtime's): a server must refuse the connection beyond its share, not
/// die of it. A connection that sends nothing — a keep-alive left open, or a
/// request head sent a byte at a time — is closed after ``idleTimeout``.
///
/// ```swift
/// let limits = ConnectionLimits(maximum: ConnectionLimits.defaultMaximum(), idleTimeout: 60)
/// limits.maximum   // 960 under the usual limit of 1,024 descriptors
/// ```
public struct ConnectionLimits: Sendable {
    /// Connections beyond this are answered 503 (code 503) and closed.
    public var maximum: Int
    /// Seconds a connection may stay without a request in progress before
    /// it is closed (a half-sent request head counts as none).
    public var idleTimeout: Double

    public init(maximum: Int, idleTimeout: Double) {
        self.maximum = maximum
        self.idleTimeout = idleTimeout
    }

    /// Descriptors kept for what is not a client's connection: the database,
    /// files being uploaded or served, the runtime's own.
    public static let reservedDescriptors = 64

    /// The descriptors this process may open (its soft limit), raised first
    /// to the hard limit as far as the system allows.
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The default cap: the descriptor limit (raised) less
    /// ``reservedDescriptors``, and at most 16,384; never under 16.
    public static func defaultMaximum() -> Int {
        max(16, min(16_384, raiseDescriptorLimit() - reservedDescriptors))
    }
}

/// Counts a server's connections: each new one past the maximum is
/// answered `503 {"code":503,"error":...}` and closed before it is read.
///
/// ```swift
/// let count = ConnectionCount(maximum: 2, headTimeout: .seconds(60))
/// count.enter(); count.enter()   // true, true
/// count.enter()                  // false: the third is refused
/// ```
final class ConnectionCount: Sendable {
    let maximum: Int
    /// How long a new connection may take to send its first request head.
    let headTimeout: TimeAmount
    private let open = LockedValue(0)

    init(maximum: Int, headTimeout: TimeAmount) {
        self.maximum = maximum
        self.headTimeout = headTimeout
    }

    /// The connections held now.
    var current: Int { open.value }

    /// Takes a place; false when none is left.
    func enter() -> Bool {
        open.update { n in
            guard n < maximum else { return false }
            n += 1
            return true
        }
    }

    func leave() { open.update { $0 -= 1 } }
}

/// A server's connections, each first in its pipeline (before HTTP is
/// decoded, and kept when it turns into LiveQuery's WebSocket) a
/// ``ConnectionLimitHandler`` of one ``ConnectionCount``.
struct ConnectionLimitedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let count: ConnectionCount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionLimitHandler(count: count), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// One connection's place in a ``ConnectionCount``, from the moment it is
/// accepted until it closes; and its first request head's deadline: a
/// connection that has not sent a whole head (up to its blank line) within
/// ``ConnectionCount/headTimeout`` is closed, however slowly its bytes
/// trickle in. Later heads are the HTTP layer's idle timeout's.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let count: ConnectionCount
    private var holdsPlace = false, refused = false
    private var headDeadline: Scheduled<Void>?
    /// Whether the first head's blank line has been read, and the bytes
    /// before the read that may start it.
    private var headDone = false, tail: [UInt8] = []

    init(count: ConnectionCount) { self.count = count }

    func handlerAdded(context: ChannelHandlerContext) {
        holdsPlace = count.enter()
        guard holdsPlace else {
            if context.channel.isActive { refuse(context) }
            return
        }
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: count.headTimeout) { channel.close(promise: nil) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !holdsPlace && !refused { refuse(context) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's bytes go nowhere.
        guard holdsPlace else { return }
        if !headDone {
            let bytes = tail + Array(unwrapInboundIn(data).readableBytesView)
            if bytes.count >= 4, (0...(bytes.count - 4)).contains(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }) {
                headDone = true
                headDeadline?.cancel()
                headDeadline = nil
                tail = []
            } else {
                tail = Array(bytes.suffix(3))
            }
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = nil
        if holdsPlace { count.leave() }
        holdsPlace = false
    }

    /// Full: a clear answer, then the connection closes.
    private func refuse(_ context: ChannelHandlerContext) {
        refused = true
        let body = #"{"code":503,"error":"The server holds as many connections as it may (\#(count.maximum)); try again shortly."}"#
        let text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).whenComplete { _ in channel.close(promise: nil) }
    }
}
