import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

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

/// Counts a server's HTTP connections: each new one past the maximum is
/// answered `503 {"code":503,"error":...}` and closed before it is read.
///
/// ```swift
/// let count = ConnectionCount(maximum: 2)
/// count.enter(); count.enter()   // true, true
/// count.enter()                  // false: the third is refused
/// ```
/// One per server; a ``ConnectionLimitHandler`` per connection reports to it.
final class ConnectionCount: Sendable {
    let maximum: Int
    private let open = LockedValue(0)

    init(maximum: Int) { self.maximum = maximum }

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

    /// The handler for one connection's pipeline.
    func handler() -> ConnectionLimitHandler { ConnectionLimitHandler(count: self) }
}

/// One connection's place in a ``ConnectionCount``: taken when the
/// connection's HTTP pipeline is made, given back when it is taken down
/// (closed, or handed to a WebSocket, whose connections LiveQuery limits).
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let count: ConnectionCount
    private var holdsPlace = false, refused = false

    init(count: ConnectionCount) { self.count = count }

    func handlerAdded(context: ChannelHandlerContext) {
        holdsPlace = count.enter()
        if !holdsPlace && context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !holdsPlace && !refused { refuse(context) }
        context.fireChannelActive()
    }

    /// Full: a clear answer, then the connection closes; nothing it sent is read.
    private func refuse(_ context: ChannelHandlerContext) {
        refused = true
        let body = ByteBuffer(string: #"{"code":503,"error":"The server holds as many connections as it may (\#(count.maximum)); try again shortly."}"#)
        let head = HTTPResponse(status: .serviceUnavailable, headerFields: [
            .contentType: "application/json; charset=utf-8", .contentLength: "\(body.readableBytes)", .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if holdsPlace { count.leave() }
        holdsPlace = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's requests go nowhere.
        if holdsPlace { context.fireChannelRead(data) }
    }
}
