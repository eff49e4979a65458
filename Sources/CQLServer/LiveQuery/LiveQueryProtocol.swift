import CQLKit
import Foundation
import SwiftProtobuf

/// The three WebSocket subprotocols LeanCloud's SDKs speak to LiveQuery
/// (LiveQuery.md, "The WebSocket"), and their frames in and out.
///
/// Decoding never crashes nor loops on hostile bytes: SwiftProtobuf's
/// decoders bound their recursion, and a frame is at most
/// ``LiveQueryHub/Limits/messageSize`` bytes before it gets here.
///
/// ```swift
/// let p = LiveQueryProtocol(rawValue: "lc.json.3")!
/// try p.decode(Array(#"{"cmd":"echo","i":3}"#.utf8), text: true)   // .command(echo, i 3)
/// try p.decode(Array("{}".utf8), text: true)                       // .keepAlive
/// ```
enum LiveQueryProtocol: String, Sendable, CaseIterable {
    /// Binary protobuf frames (JS realtime 5, Swift, Objective-C, Java).
    case protobuf = "lc.protobuf2.3"
    /// Text frames holding base64 of the protobuf (JS with `noBinary`).
    case base64 = "lc.proto2base64.3"
    /// JSON text frames (C#).
    case json = "lc.json.3"

    /// What a client frame says.
    enum Inbound: Equatable {
        case command(LQGenericCommand)
        /// C#'s `{}` keep-alive (answered `{}`).
        case keepAlive
    }

    /// A frame that is not a command of this subprotocol.
    struct FrameError: Error, Equatable {
        var reason: String
    }

    /// One outgoing frame: text or binary.
    enum Frame: Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// The subprotocol a client offers first among those served (the
    /// `Sec-WebSocket-Protocol` values, comma-separated).
    static func negotiate(_ offered: [String]) -> LiveQueryProtocol? {
        for value in offered {
            for name in value.split(separator: ",") {
                if let p = LiveQueryProtocol(rawValue: name.trimmingCharacters(in: .whitespaces)) { return p }
            }
        }
        return nil
    }

    func decode(_ bytes: [UInt8], text: Bool) throws(FrameError) -> Inbound {
        switch self {
        case .protobuf:
            guard !text else { throw FrameError(reason: "lc.protobuf2.3 commands are binary frames") }
            return .command(try Self.protobuf(bytes))
        case .base64:
            guard text else { throw FrameError(reason: "lc.proto2base64.3 commands are text frames of base64") }
            guard let data = Data(base64Encoded: Data(bytes)) else { throw FrameError(reason: "not base64") }
            return .command(try Self.protobuf(Array(data)))
        case .json:
            guard text else { throw FrameError(reason: "lc.json.3 commands are text frames of JSON") }
            guard let s = String(bytes: bytes, encoding: .utf8) else { throw FrameError(reason: "not UTF-8") }
            if s.trimmingCharacters(in: .whitespacesAndNewlines) == "{}" { return .keepAlive }
            var options = JSONDecodingOptions()
            options.ignoreUnknownFields = true
            do {
                return .command(try LQGenericCommand(jsonString: s, options: options))
            } catch {
                throw FrameError(reason: "not a command: \(error)")
            }
        }
    }

    static func protobuf(_ bytes: [UInt8]) throws(FrameError) -> LQGenericCommand {
        do {
            return try LQGenericCommand(serializedBytes: bytes, partial: true)
        } catch {
            throw FrameError(reason: "not a protobuf GenericCommand: \(error)")
        }
    }

    /// A command as this subprotocol frames it.
    func encode(_ command: LQGenericCommand) -> Frame {
        switch self {
        case .protobuf: return .binary(Self.bytes(command))
        case .base64: return .text(Data(Self.bytes(command)).base64EncodedString())
        case .json: return .text((try? command.jsonString()) ?? "{}")
        }
    }

    static func bytes(_ command: LQGenericCommand) -> [UInt8] {
        // Every command made here sets its required fields.
        let bytes: [UInt8]? = try? command.serializedBytes(partial: true)
        return bytes ?? []
    }

    /// A `data` push of events (JSON texts) to `installationId`; `ids`
    /// one per event. In `lc.json.3` each `msg` item is the event itself.
    func encodeData(installationId: String, events: [String], ids: [String]) -> Frame {
        switch self {
        case .protobuf, .base64:
            var c = LQGenericCommand()
            c.cmd = .data
            c.service = 1
            c.installationID = installationId
            c.dataMessage.ids = ids
            c.dataMessage.msg = events.map { e in
                var m = LQJsonObjectMessage()
                m.data = e
                return m
            }
            return encode(c)
        case .json:
            var text = #"{"cmd":"data","service":1,"installationId":"#
            text += JSONWriter.string(.string(installationId))
            text += #","dataMessage":{"ids":"# + JSONWriter.string(.array(ids.map { .string($0) }))
            text += #","msg":["# + events.joined(separator: ",") + "]}}"
            return .text(text)
        }
    }

    /// The keep-alive answer of `lc.json.3`.
    static let keepAliveAnswer = Frame.text("{}")
}

extension LQGenericCommand {
    /// A reply of type `cmd` to `request` (its `i`), for LiveQuery (service 1).
    static func reply(_ cmd: LQCommandType, to request: LQGenericCommand?) -> LQGenericCommand {
        var c = LQGenericCommand()
        c.cmd = cmd
        c.service = 1
        if let request, request.hasI { c.i = request.i }
        return c
    }

    /// An `error` command (`code`, `reason`), answering `request` when given.
    static func error(_ code: Int32, _ reason: String, to request: LQGenericCommand?) -> LQGenericCommand {
        var c = reply(.error, to: request)
        c.errorMessage.code = code
        c.errorMessage.reason = reason
        return c
    }
}
