import CQLKit
import CQLSQL
import NIOCore
import NIOPosix

/// The PostgreSQL connections a server reads through from its handlers,
/// spread over the event loops that serve HTTP, so a request handled on a
/// loop (``EventLoopTaskExecutor``) reads through a connection of that same
/// loop: its statement is written, and its answer read and handed to the
/// handler, on one thread, without a hand-off.
///
/// Why: the blocking path (a storage thread waits while postgres-nio works
/// on its loop) costs eight context switches a get; measured in Server.md.
final class EventLoopReaders: Sendable {
    /// Each loop's connections, as indices into ``all``.
    private let byLoop: [ObjectIdentifier: [Int]]
    private let all: [PostgreSQLReadConnection]
    /// Statements queued on each connection (by this server).
    private let busy: LockedValue<[Int]>

    /// `count` connections in all (at least one per loop of `group`).
    init(url: String, count: Int, group: any EventLoopGroup, statementTimeoutMilliseconds: Int) throws(QueryError) {
        let loops = group.makeIterator().map { $0 }
        let total = max(count, loops.count)
        var made: [PostgreSQLReadConnection] = []
        do throws(QueryError) {
            for i in 0..<total {
                made.append(try PostgreSQLReadConnection(url: url, on: loops[i % loops.count], statementTimeoutMilliseconds: statementTimeoutMilliseconds))
            }
        } catch {
            for c in made { c.closeNow() }
            throw error
        }
        all = made
        byLoop = Dictionary(grouping: made.indices) { ObjectIdentifier(made[$0].eventLoop) }
        busy = LockedValue(Array(repeating: 0, count: made.count))
    }

    /// Runs `body` with the connection of the current thread's event loop
    /// that has the fewest statements queued (else the least busy of all):
    /// a connection runs its statements one after another, so a request
    /// queued behind a slow one waits for it; the least busy keeps the tail
    /// of the latencies short.
    func withConnection<T>(_ body: (PostgreSQLReadConnection) async throws -> T) async throws -> T {
        let candidates: [Int]
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop, let mine = byLoop[ObjectIdentifier(loop)] {
            candidates = mine
        } else {
            candidates = Array(all.indices)
        }
        let chosen = busy.update { counts -> Int in
            var best = candidates[0]
            for i in candidates.dropFirst() where counts[i] < counts[best] { best = i }
            counts[best] += 1
            return best
        }
        defer { busy.update { $0[chosen] -= 1 } }
        return try await body(all[chosen])
    }

    func close() async {
        for c in all { await c.close() }
    }
}
