import Foundation
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// One LiveQuery WebSocket: the commands it receives (login, echo, ack,
/// logout, C#'s `{}`) and the queue of what it is sent.
///
/// The queue holds at most ``LiveQueryHub/Limits/connectionBuffer``
/// messages: a client that reads slower than its events come is closed
/// with 4408 once it fills (writers never wait for it), and its SDK
/// reconnects and subscribes again.
final class LiveQueryConnection: @unchecked Sendable {
    enum Outbound: Sendable {
        case reply(LQGenericCommand)
        case events(installationId: String, [String])
        case keepAlive
        case close(code: UInt16, reason: String)
    }

    let wire: LiveQueryProtocol
    let stream: AsyncStream<Outbound>
    private let continuation: AsyncStream<Outbound>.Continuation
    private let lock = NSLock()
    private var loggedIn: String?
    private var full = false

    init(wire: LiveQueryProtocol, buffer: Int) {
        self.wire = wire
        (stream, continuation) = AsyncStream.makeStream(of: Outbound.self, bufferingPolicy: .bufferingOldest(buffer))
    }

    /// The installation id it logged in with.
    var installationId: String? {
        get { lock.withLock { loggedIn } }
        set { lock.withLock { loggedIn = newValue } }
    }

    /// Whether a message was dropped for want of room.
    var overflowed: Bool { lock.withLock { full } }

    func send(_ message: Outbound) {
        if case .dropped = continuation.yield(message) { lock.withLock { full = true } }
    }

    func finish() { continuation.finish() }
}

/// The WebSocket side of LiveQuery: the upgrade (path, subprotocol) and the
/// conversation of each connection.
struct LiveQueryEndpoint: Sendable {
    /// The path ``API``'s `/v1/route` hands out.
    static let path = "/livequery"
    static let protocolHeader = HTTPField.Name("Sec-WebSocket-Protocol")!

    let hub: LiveQueryHub
    let appId: String
    let logger: Logger

    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    /// Upgrades `GET /livequery` offering one of the subprotocols served.
    func shouldUpgrade(_ head: HTTPRequest) -> ShouldUpgradeResult<Handler> {
        let path = head.path.map { $0.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "" } ?? ""
        guard path == Self.path || path == Self.path + "/",
              let wire = LiveQueryProtocol.negotiate(head.headerFields[values: Self.protocolHeader])
        else { return .dontUpgrade }
        var headers = HTTPFields()
        headers[Self.protocolHeader] = wire.rawValue
        return .upgrade(headers) { inbound, outbound, _ in
            await serve(wire, inbound: inbound, outbound: outbound)
        }
    }

    func serve(_ wire: LiveQueryProtocol, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let connection = LiveQueryConnection(wire: wire, buffer: hub.limits.connectionBuffer)
        guard hub.open(connection) else {
            try? await write(wire.encode(.error(4429, "too many LiveQuery connections to this server", to: nil)), outbound)
            try? await outbound.close(.init(codeNumber: 4429), reason: "too many connections")
            return
        }
        defer { hub.close(connection) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await writeQueue(connection, outbound) }
            do {
                var messages = inbound.messages(maxSize: hub.limits.messageSize).makeAsyncIterator()
                while let message = try await messages.next() {
                    if handle(message, connection) { break }
                }
            } catch {
                logger.debug("LiveQuery connection ended: \(error)")
            }
            connection.finish()
        }
    }

    /// Sends the queue in order until it ends, it overflows, or a close is queued.
    func writeQueue(_ connection: LiveQueryConnection, _ outbound: WebSocketOutboundWriter) async {
        var serial = 0
        for await message in connection.stream {
            if connection.overflowed {
                try? await outbound.close(.init(codeNumber: 4408), reason: "too slow: events were dropped, subscribe again")
                return
            }
            do {
                switch message {
                case .reply(let c): try await write(connection.wire.encode(c), outbound)
                case .keepAlive: try await write(LiveQueryProtocol.keepAliveAnswer, outbound)
                case .events(let id, let events):
                    let ids = events.map { _ in serial += 1; return String(serial) }
                    try await write(connection.wire.encodeData(installationId: id, events: events, ids: ids), outbound)
                case .close(let code, let reason):
                    try await outbound.close(.init(codeNumber: Int(code)), reason: reason)
                    return
                }
            } catch {
                return
            }
        }
    }

    func write(_ frame: LiveQueryProtocol.Frame, _ outbound: WebSocketOutboundWriter) async throws {
        switch frame {
        case .binary(let b): try await outbound.writeBinaryMessage(ByteBuffer(bytes: b))
        case .text(let t): try await outbound.writeTextMessage(t)
        }
    }

    /// Answers one client message; true when the connection must end.
    func handle(_ message: WebSocketMessage, _ connection: LiveQueryConnection) -> Bool {
        let inbound: LiveQueryProtocol.Inbound
        do {
            switch message {
            case .text(let s): inbound = try connection.wire.decode(Array(s.utf8), text: true)
            case .binary(let b): inbound = try connection.wire.decode(Array(b.readableBytesView), text: false)
            }
        } catch {
            connection.send(.reply(.error(4300, "malformed command: \(error.reason)", to: nil)))
            return false
        }
        guard case .command(let c) = inbound else {
            connection.send(.keepAlive)
            return false
        }
        guard c.hasCmd else {
            connection.send(.reply(.error(4301, "a command without a known cmd", to: c)))
            return false
        }
        switch c.cmd {
        case .login:
            guard Passwords.constantTimeEqual(Array(c.appID.utf8), Array(appId.utf8)) else {
                connection.send(.reply(.error(4100, "app not available: unknown appId", to: c)))
                connection.send(.close(code: 4100, reason: "app not available"))
                return false
            }
            let id = c.installationID
            guard !id.isEmpty, id.utf8.count <= LiveQueryHub.maximumIdLength, !c.hasService || c.service == 1 else {
                connection.send(.reply(.error(4103, "invalid login: needs installationId (at most \(LiveQueryHub.maximumIdLength) bytes) and service 1", to: c)))
                connection.send(.close(code: 4103, reason: "invalid login"))
                return false
            }
            hub.login(connection, installationId: id)
            var reply = LQGenericCommand.reply(.loggedin, to: c)
            reply.serverTs = Int64(Date().timeIntervalSince1970 * 1000)
            connection.send(.reply(reply))
        case .echo:
            connection.send(.reply(.reply(.echo, to: c)))
        case .ack:
            break  // delivery never waits for acks (only the JS SDK sends them)
        case .logout:
            hub.logout(connection)
            connection.send(.reply(.reply(.loggedout, to: c)))
        default:
            connection.send(.reply(.error(4302, "LiveQuery does not serve the command '\(c.cmd)'", to: c)))
        }
        return false
    }
}
