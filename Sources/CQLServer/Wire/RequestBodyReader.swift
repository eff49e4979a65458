import CQLKit
import CQLSQL
import Foundation
import Hummingbird
import NIOCore
#if canImport(CMalloc)
import CMalloc
#endif

/// How a request's JSON body is read, within what memory (Server.md,
/// "Memory a request takes").
///
/// - A body past ``maximumSize`` is 413/116: at once when its
///   `Content-Length` says so (nothing is read), else as soon as it gets
///   there.
/// - A body whose route takes an object (all but cloud functions') and
///   whose first byte opens none is 107 there, before the rest is read.
/// - A body of ``largeSize`` bytes or more is *large*: built into values it
///   takes tens of times its size (a 15 MiB array of small numbers: about
///   800 MB through a create), so at most ``largeAtOnce`` large bodies are
///   read and handled at once. The others wait for a turn, holding nothing
///   but their connection, until the request's deadline: then 503/124.
///   The turn is held until the request is answered (``Turn/end()``).
/// - After the last large body of a burst, the allocator gives its free
///   memory back to the system (`malloc_trim`), so the process's resident
///   size returns near its base rather than staying at the burst's peak.
///
/// ```swift
/// let reader = RequestBodyReader(maximumSize: 16 << 20, largeSize: 1 << 20, largeAtOnce: 2)
/// let (body, turn) = try await reader.read(request, anyJSON: false)   // body: the JSON value, nil when empty
/// defer { turn?.end() }                               // a large body's turn, given back
/// ```
final class RequestBodyReader: Sendable {
    let maximumSize: Int
    let largeSize: Int
    let largeAtOnce: Int
    private let turns: AsyncPermits
    private let holders = LockedValue(0)

    init(maximumSize: Int, largeSize: Int, largeAtOnce: Int) {
        self.maximumSize = maximumSize
        self.largeSize = max(1, largeSize)
        self.largeAtOnce = max(1, largeAtOnce)
        turns = AsyncPermits(self.largeAtOnce)
    }

    /// A large body's turn: ended once, when its request is answered.
    final class Turn: Sendable {
        private let reader: RequestBodyReader
        private let ended = LockedValue(false)
        fileprivate init(_ reader: RequestBodyReader) { self.reader = reader }

        func end() {
            let first = ended.update { (e: inout Bool) -> Bool in
                defer { e = true }
                return !e
            }
            if first { reader.endTurn() }
        }
    }

    /// The JSON body (nil when empty or blank), and the turn it holds when
    /// large. 413 past the limit; 107 when not JSON, or — unless
    /// `anyJSON` (a cloud function's parameters) — when its first byte
    /// opens no object and it is not `null` (every other route's body is
    /// an object: refused before the rest is read or anything is built);
    /// 503/124 when no turn came before the deadline.
    func read(_ request: Request, anyJSON: Bool) async throws(APIError) -> (Value?, Turn?) {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > maximumSize {
            throw APIError.tooLarge(maximumSize)
        }
        var turn: Turn?
        var buffer = ByteBuffer()
        var shapeSeen = anyJSON
        do {
            for try await chunk in request.body {
                guard buffer.readableBytes + chunk.readableBytes <= maximumSize else { throw APIError.tooLarge(maximumSize) }
                var chunk = chunk
                buffer.writeBuffer(&chunk)
                if !shapeSeen, let first = buffer.readableBytesView.first(where: { !Self.isBlank($0) }) {
                    guard first == UInt8(ascii: "{") || first == UInt8(ascii: "n") else {
                        throw APIError.malformedJSON("the body must be a JSON object")
                    }
                    shapeSeen = true
                }
                if turn == nil && buffer.readableBytes >= largeSize { turn = try await takeTurn() }
            }
        } catch let e as APIError {
            turn?.end()
            throw e
        } catch {
            turn?.end()
            throw APIError.malformedJSON("cannot read the request body")
        }
        if buffer.readableBytesView.allSatisfy(Self.isBlank) { return (nil, turn) }
        do {
            return (try JSONReader.parse(String(buffer: buffer)), turn)
        } catch {
            turn?.end()
            throw APIError.malformedJSON("malformed JSON in the body: \(error.shortDescription)")
        }
    }

    static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    private func takeTurn() async throws(APIError) -> Turn {
        let deadline = RequestDeadline.current ?? .now() + .seconds(10)
        guard await turns.acquire(before: deadline) else {
            throw APIError(status: 503, code: 124,
                           "\(largeAtOnce) large request bodies (\(largeSize >> 10) KiB or more) are being handled; this one waited until its time limit (retry later)")
        }
        holders.update { $0 += 1 }
        return Turn(self)
    }

    fileprivate func endTurn() {
        let last = holders.update { (n: inout Int) -> Bool in
            n -= 1
            return n == 0
        }
        turns.release()
        #if canImport(CMalloc)
        // The burst's memory back to the system (glibc keeps freed pages otherwise).
        if last { _ = malloc_trim(0) }
        #else
        _ = last
        #endif
    }
}
