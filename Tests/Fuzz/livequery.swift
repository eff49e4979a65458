// LiveQuery's frame decoder (CQLServer's LiveQueryProtocol.swift and the
// generated protobuf messages, compiled into this harness with
// SwiftProtobuf): the input as each subprotocol's text and binary frame.
import CQLKit
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLiveQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for wire in LiveQueryProtocol.allCases {
        for text in [true, false] {
            guard case .command(let c)? = try? wire.decode(bytes, text: text) else { continue }
            // What decoded encodes, and decodes back the same (binary subprotocols).
            guard wire != .json else { continue }
            let frame = wire.encode(c)
            let again: LiveQueryProtocol.Inbound?
            switch frame {
            case .binary(let b): again = try? wire.decode(b, text: false)
            case .text(let t): again = try? wire.decode(Array(t.utf8), text: true)
            }
            if again != .command(c) { fuzzFinding("\(wire.rawValue): a decoded command does not survive encoding: \(c)", fuzzText(data, size)) }
        }
    }
    return 0
}
