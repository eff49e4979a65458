import CQLEval
import CQLKit
import Logging
import NIOCore
import PostgresNIO

/// A PostgreSQL connection read from `async` code without blocking a
/// thread: a server's handler awaits its statements on the connection's
/// event loop (``SQLRunner/run(_:on:countOnly:source:)-(_,PostgreSQLReadConnection,_,_)``).
///
/// It runs the statements ``PostgreSQLDatabase`` runs, with the same
/// arguments and types, as named prepared statements of this connection
/// (``PreparedStatementNames``); postgres-nio queues the statements of
/// callers that share it, so it needs no checking out. It never creates
/// temporary tables, so it keeps no session state but its prepared
/// statements, its `statement_timeout` and its `plan_cache_mode` (each
/// statement planned once: see ``init(url:on:statementTimeoutMilliseconds:)``).
///
/// ```swift
/// let c = try PostgreSQLReadConnection(url: url, on: loop, statementTimeoutMilliseconds: 10_000)
/// let r = try await SQLRunner.run(query, on: c)   // nil: run it with SQLRunner.run(_:on:) instead
/// ```
public final class PostgreSQLReadConnection: Sendable {
    let connection: PostgresConnection
    let preparedNames = PreparedStatementNames()
    let logger = Logger(label: "cql.postgres")

    /// The event loop the connection's reads and writes run on.
    public var eventLoop: any EventLoop { connection.eventLoop }

    init(_ connection: PostgresConnection) { self.connection = connection }

    /// Connects on `eventLoop` and sets the connection's statement time limit
    /// (0: none). It blocks until connected: call it off the event loops.
    public convenience init(url: String, on eventLoop: any EventLoop = PostgresConnection.defaultEventLoopGroup.any(),
                            statementTimeoutMilliseconds: Int) throws(QueryError) {
        let configuration = try PostgreSQLDatabase.configuration(url: url)
        let c: PostgresConnection
        do {
            c = try PostgresConnection.connect(on: eventLoop, configuration: configuration, id: 2, logger: Logger(label: "cql.postgres")).wait()
        } catch {
            throw QueryError(.data, "\(url): cannot connect: \(PostgreSQLDatabase.message(error))")
        }
        do {
            _ = try c.query("SET statement_timeout = \(max(0, statementTimeoutMilliseconds))").wait()
            // Each prepared statement is planned once, not on every run: a
            // page's `LIMIT $2` makes PostgreSQL's generic plan look costlier
            // (it assumes a tenth of the rows) than the custom plans it
            // compares it with, so in `auto` mode a Valine page was planned
            // afresh on every request: 0.25 ms of planning against 0.014 ms,
            // same plan (EXPLAIN ANALYZE EXECUTE over 1,000,000 comments);
            // under wrk, PostgreSQL's CPU a page fell from about 1,000 to 600 us.
            _ = try c.query("SET plan_cache_mode = force_generic_plan").wait()
        } catch {
            try? c.close().wait()
            throw QueryError(.data, "postgres: \(PostgreSQLDatabase.message(error))")
        }
        self.init(c)
    }

    public func close() async {
        try? await connection.close()
    }

    /// ``close()``, blocking until closed (off the event loops).
    public func closeNow() {
        try? connection.close().wait()
    }

    /// Runs a statement as this connection's named prepared statement (or
    /// unnamed, past ``PreparedStatementNames/capacity``) and returns its rows.
    func rows(_ sql: String, _ arguments: [Value]) async throws(QueryError) -> [PostgresRow] {
        let binds = PostgreSQLDatabase.binds(arguments)
        let types = binds.map(\.type)
        var bindings = PostgresBindings(capacity: binds.count)
        for b in binds { bindings.append(b) }
        let key = PreparedStatementNames.Key(sql: sql, types: types.map(\.rawValue))
        let connection = self.connection
        let logger = self.logger
        do {
            guard let name = preparedNames.name(for: key) else {
                var rows: [PostgresRow] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) { rows.append(row) }
                return rows
            }
            return try await RuntimeStatement.$current.withValue(RuntimeStatement.Text(name: name, sql: sql, types: types)) {
                var rows: [PostgresRow] = []
                for try await row in try await connection.execute(RuntimeStatement(bindings: bindings), logger: logger) { rows.append(row) }
                return rows
            }
        } catch {
            preparedNames.forget(key)
            throw QueryError(.data, "postgres: \(PostgreSQLDatabase.message(error))")
        }
    }

    func documents(_ statement: SQLStatement) async throws(QueryError) -> [String] {
        var out: [String] = []
        for row in try await rows("SELECT q.\"doc\" FROM (\(statement.sql)) AS q", statement.arguments) {
            guard let s = row.makeRandomAccess()[data: 0].string else { throw QueryError(.data, "postgres: expected text") }
            out.append(s)
        }
        return out
    }

    func integer(_ statement: SQLStatement) async throws(QueryError) -> Int {
        try await rows(statement.sql, statement.arguments).first.flatMap { $0.makeRandomAccess()[data: 0].int } ?? 0
    }

    /// The tables of the current schema (this connection makes no
    /// temporary ones): those ``SQLRunner/run(_:on:countOnly:source:)-(_,PostgreSQLReadConnection,_,_)`` may read.
    public func tableNames() async throws(QueryError) -> Set<String> {
        var names = Set<String>()
        for row in try await rows("SELECT c.relname::text FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace", []) {
            if let s = row.makeRandomAccess()[data: 0].string { names.insert(s) }
        }
        return names
    }

    func preflight(_ question: SQLRunner.PreflightQuestion) async throws(QueryError) -> Preflight {
        guard let statement = try PostgreSQLDatabase.preflightStatement(question) else { return Preflight(arrayFreeKeys: [], requiresRecheck: false) }
        guard let row = try await rows(statement.sql, statement.arguments).first
        else { throw QueryError(.data, "postgres: the preflight statement returned no row") }
        return statement.answer(row)
    }
}

extension SQLRunner {
    /// ``run(_:on:countOnly:source:presentTables:)`` on a connection read
    /// asynchronously: the same phases (``begin(_:countOnly:source:)``,
    /// the preflight, ``pushdown(_:_:dialect:residualMatch:indexedKeys:)``,
    /// ``shaped(_:_:objects:count:store:source:)``) with the same statements,
    /// for the queries the database answers alone.
    ///
    /// Returns nil when the query needs more than that — the evaluator
    /// re-checking rows, `include`d objects, an order PostgreSQL cannot
    /// rank — and the caller then runs it with the synchronous `run`, which
    /// answers every query. The caller makes sure every table the query
    /// reads exists (``tablesRead(by:)``): this path creates no stand-ins.
    public static func run(_ query: Query, on db: PostgreSQLReadConnection, countOnly: Bool = false, source: String? = nil)
        async throws(QueryError) -> Result?
    {
        let q = try begin(query, countOnly: countOnly, source: source)
        if !q.includes.isEmpty { return nil }
        let preflight = try await db.preflight(preflightQuestion(q, dialect: .postgres, recheckConcernsOnlyDateColumns: true))
        let translation = try pushdown(q, preflight, dialect: .postgres)
        guard translation.isExact else { return nil }
        if q.count == .only, let c = translation.count {
            return Result(objects: [], count: try await db.integer(c), translation: translation)
        }
        let docs: [String]
        do {
            docs = try await db.documents(translation.select)
        } catch where isOrderFailure(error) {
            return nil
        }
        var objects: [[String: Value]] = []
        objects.reserveCapacity(docs.count)
        for d in docs { objects.append(try DataFiles.object(json: d)) }
        var count: Int?
        if q.count != .none, let c = translation.count { count = try await db.integer(c) }
        return try shaped(q, translation, objects: objects, count: count, store: DocumentStore(), source: source)
    }
}
