import CQLKit
import CQLSQL
import NIOCore
import NIOPosix

/// The PostgreSQL connections a server reads through from its handlers,
/// spread over the event loops that serve HTTP, so a request handled on a
/// loop (``EventLoopTaskExecutor``) reads through a connection of that same
/// loop: its statement is written, and its answer read and handed to the
/// handler, on one thread, without a hand-off. Each connection is CQLSQL's
/// `SQLAsyncDatabaseReader`: a request's session, grantees, catalog and
/// find all read through it (``ServerStorage/withoutBlocking(_:_:)``).
///
/// Why: the blocking path (a storage thread waits while postgres-nio works
/// on its loop) costs eight context switches a get; measured in Server.md.
///
/// A read leaves its loop only when scans hold every lane there
/// (``LanePlacement``).
final class EventLoopReaders: Sendable {
    /// Each loop's index in `all`.
    private let byLoop: [ObjectIdentifier: Int]
    private let all: [PostgreSQLReadConnection]
    private let placement: LockedValue<LanePlacement>

    /// `count` connections in all (at least one per loop of `group`), as
    /// lanes of one ``PostgreSQLReadConnection`` per loop, whose batches run
    /// on the loop's executor.
    init(url: String, count: Int, executors: EventLoopTaskExecutors, statementTimeoutMilliseconds: Int) throws(QueryError) {
        let loops = executors.all
        var made: [PostgreSQLReadConnection] = []
        do throws(QueryError) {
            for (i, executor) in loops.enumerated() {
                // count spread over the loops, the first ones taking the rest.
                let lanes = max(1, count / loops.count + (i < count % loops.count ? 1 : 0))
                made.append(try PostgreSQLReadConnection(url: url, on: executor.eventLoop, lanes: lanes, taskExecutor: executor,
                                                         statementTimeoutMilliseconds: statementTimeoutMilliseconds))
            }
        } catch {
            for c in made { c.closeNow() }
            throw error
        }
        all = made
        byLoop = Dictionary(uniqueKeysWithValues: made.enumerated().map { (ObjectIdentifier($1.eventLoop), $0) })
        placement = LockedValue(LanePlacement(lanes: made.map(\.laneCount)))
    }

    /// Runs `body` with the connections of the current thread's event loop
    /// (else the first loop's), or another loop's when ``LanePlacement``
    /// says so for a read of `kind`.
    func withConnection<T>(_ kind: ReadKind, _ body: (any SQLAsyncDatabaseReader) async throws -> T) async throws -> T {
        let home = MultiThreadedEventLoopGroup.currentEventLoop.flatMap { byLoop[ObjectIdentifier($0)] } ?? 0
        let loop = placement.update { $0.place(kind, home: home) }
        // Only scans are counted (a point read's end changes nothing).
        defer { if kind == .scan { placement.update { $0.done(kind, on: loop) } } }
        return try await body(all[loop])
    }

    func close() async {
        for c in all { await c.close() }
    }
}
