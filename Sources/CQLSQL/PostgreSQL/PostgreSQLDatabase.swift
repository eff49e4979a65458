import CQLEval
import CQLKit
import Foundation
import Logging
import PostgresNIO

/// A PostgreSQL database in the layout the PostgreSQL dialect targets:
/// `"<Class>"("objectId" text PRIMARY KEY, "doc" jsonb NOT NULL, "raw" text
/// NOT NULL, "seq" bigserial, "createdAt" bigint, "updatedAt" bigint)` (the
/// date columns of `SQLStoredColumns`, btree-indexed with `objectId`; a
/// table made before them gets them on connect), with a GIN
/// `jsonb_path_ops` index on `doc` (`cql load --index`: it serves the `@?`
/// equality and `in` shapes), and
/// `"_Join:<key>:<Owner>"("owningId", "relatedId")` indexed both ways.
///
/// One connection (postgres-nio), used synchronously: the `cql` command and
/// the tests run one statement at a time. It is made again when it is lost
/// (a restart of PostgreSQL, a terminated backend: `PostgreSQLLink`); a
/// statement that finds PostgreSQL gone fails with an error saying so
/// (``DatabaseFailure``), and a later one connects again.
///
/// ```swift
/// let db = try PostgreSQLDatabase(url: "postgres://postgres@127.0.0.1:5432/postgres")
/// try db.load(path: "Corpus/data")
/// let r = try SQLRunner.run(query, on: db)
/// ```
public final class PostgreSQLDatabase: SQLDatabaseWriter, @unchecked Sendable {
    public let dialect = SQLDialectName.postgres
    let link: PostgreSQLLink
    let logger = Logger(label: "cql.postgres")
    /// Whether a transaction is open (``inWriteTransaction(_:)``, the loads
    /// and migrations): its statements must not move to a new connection.
    var inTransaction = false
    /// Whether ``createTemporaryTables(classes:joins:)`` may have left
    /// stand-ins on the connection (a write first drops them).
    var holdsTemporaryTables = false
    /// The class tables a committed write transaction saw: present for
    /// good, as no route drops a table (``PostgreSQLWriteSession/hasTable(_:)``
    /// answers them without reading `pg_class`); ``reset()`` forgets them.
    var tablesSeenCommitted: Set<String> = []
    /// How long a statement may go unanswered before its connection is
    /// closed (``PostgreSQLLink/watch(_:for:)``): the statement time limit
    /// and a little more, once one is set; nil: no limit (`cql run`).
    var watchdogLimit: TimeAmount?
    /// The current request's deadline (``RequestDeadline``), set by the
    /// server around a request's work: the watchdog then fires at it (and
    /// a little more) when that comes before `watchdogLimit`.
    public var deadline: NIODeadline?
    /// This connection's named prepared statements (``executePrepared(_:_:)``).
    let preparedNames = PreparedStatementNames()
    /// Whether statements are kept as named prepared statements of this
    /// connection (`PreparedStatementNames`): what a server wants, which
    /// runs the same few shapes again and again. A process that runs each
    /// statement once (`cql run`) sets it to false: preparing then buys
    /// nothing, and unnamed statements hand their rows over more cheaply
    /// (`executeUnnamed(_:eachRow:)`).
    public var keepsStatementsPrepared = true

    /// Connects to `postgres://user[:password]@host[:port]/database` (no TLS).
    public init(url: String) throws(QueryError) {
        link = try PostgreSQLLink(url: url, on: PostgresConnection.defaultEventLoopGroup.any(), id: 1, logger: logger)
        try migrate()
        try prepareACL()
    }

    deinit { link.close() }

    /// The connection statements run on now (made again if it was lost,
    /// unless a transaction is open).
    var connection: PostgresConnection {
        get throws(QueryError) { try link.connection(reconnecting: !inTransaction, before: deadline) }
    }

    /// Waits for a statement's future, its connection watched
    /// (``watchdogLimit``); its error worded by ``PostgreSQLLink/failure(_:on:)``.
    func waited<T: Sendable>(_ connection: PostgresConnection, _ future: EventLoopFuture<T>) throws(QueryError) -> T {
        let mine = connection.eventLoop.makePromise(of: T.self)
        future.cascade(to: mine)
        let dog = watchdog(connection) { mine.fail(PostgreSQLLink.NoAnswer()) }
        defer { dog?.stop() }
        do {
            return try mine.futureResult.wait()
        } catch {
            throw statementFailure(error, on: connection, dog)
        }
    }

    /// A watchdog on `connection` for the statement about to run: at
    /// ``watchdogLimit``, or the ``deadline`` (and the grace) when sooner.
    /// `release`: frees the waiting thread (``PostgreSQLLink/watch(_:for:release:)``).
    func watchdog(_ connection: PostgresConnection, release: @escaping @Sendable () -> Void) -> PostgreSQLLink.Watchdog? {
        guard var limit = watchdogLimit else { return nil }
        if let deadline { limit = max(.milliseconds(Self.watchdogGrace), min(limit, deadline - .now() + .milliseconds(Self.watchdogGrace))) }
        return link.watch(connection, for: limit, release: release)
    }

    func statementFailure(_ error: any Error, on connection: PostgresConnection, _ dog: PostgreSQLLink.Watchdog?) -> QueryError {
        if let dog, dog.fired {
            return QueryError(.data, "postgres: no answer from PostgreSQL in time (statement timeout): the connection was closed")
        }
        return link.failure(error, on: connection)
    }

    /// How to reach `postgres://user[:password]@host[:port]/database` (no TLS).
    static func configuration(url: String) throws(QueryError) -> PostgresConnection.Configuration {
        guard let c = URLComponents(string: url), c.scheme == "postgres" || c.scheme == "postgresql", let host = c.host else {
            throw QueryError(.data, "\(url): expected postgres://user[:password]@host[:port]/database")
        }
        var database = c.path
        if database.hasPrefix("/") { database.removeFirst() }
        return PostgresConnection.Configuration(
            host: host, port: c.port ?? 5432, username: c.user ?? "postgres", password: c.password,
            database: database.isEmpty ? nil : database, tls: .disable)
    }

    /// Ends any statement of this session that runs longer than `milliseconds`
    /// (PostgreSQL's `statement_timeout`; 0: no limit). A server's
    /// per-request time limit, so one hostile query cannot hold a connection.
    public func setStatementTimeout(milliseconds: Int) throws(QueryError) {
        try link.addSetting("SET statement_timeout = \(max(0, milliseconds))")
        watchdogLimit = milliseconds > 0 ? .milliseconds(Int64(milliseconds) + Self.watchdogGrace) : nil
        if milliseconds > 0 { link.limitConnecting(to: .milliseconds(Int64(milliseconds))) }
    }

    /// Milliseconds past the statement time limit before an unanswered
    /// statement's connection is closed: PostgreSQL's own cancellation
    /// (which keeps the connection) comes first when it can.
    static let watchdogGrace: Int64 = 250

    /// Closes the connection as if PostgreSQL had dropped it (tests).
    public func dropConnectionForTesting() { link.dropForTesting() }

    /// A PostgreSQL error's message (of the current error type, or the
    /// legacy one the EventLoopFuture API throws); with its SQLSTATE appended when
    /// that says whose fault it is (``DatabaseFailure``: disk full, I/O,
    /// a deadlock, too many connections...).
    static func message(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let m = e.serverInfo?[.message] {
                if let state = e.serverInfo?[.sqlState], DatabaseFailureText.isMarked(sqlState: state) { return m + " (SQLSTATE \(state))" }
                return m
            }
            if let underlying = e.underlying { return "\(e.code): \(underlying)" }
            return "\(e.code)"
        }
        // The EventLoopFuture API throws the legacy error type.
        if let e = error as? PostgresError, case .server(let m) = e, let text = m.fields[.message] {
            if let state = m.fields[.sqlState], DatabaseFailureText.isMarked(sqlState: state) { return text + " (SQLSTATE \(state))" }
            return text
        }
        if let e = error as? QueryError { return e.message }
        return "\(error)"
    }

    static func binds(_ values: [Value]) -> [PostgresData] {
        values.map { v in
            switch v {
            case .null: return .null
            case .bool(let b): return PostgresData(bool: b)
            case .int(let i): return PostgresData(int64: i)
            case .double(let d): return PostgresData(double: d)
            case .string(let s): return PostgresData(string: s)
            default: return PostgresData(string: JSONWriter.string(v))
            }
        }
    }

    /// The error of a failed statement as this library words it: `postgres: <message>`.
    static func queryError(_ error: any Error) -> QueryError {
        if let e = error as? QueryError { return e }
        return QueryError(.data, "postgres: \(message(error))")
    }

    /// Runs one statement and returns its rows.
    ///
    /// `BEGIN` opens a transaction (``inTransaction``: until `COMMIT` or
    /// `ROLLBACK`, a lost connection is not made again, so no statement of
    /// the transaction runs outside it); a `COMMIT` whose connection is
    /// lost fails as ``DatabaseFailure/commitOutcomeUnknown``.
    @discardableResult
    func execute(_ sql: String, _ arguments: [Value] = []) throws(QueryError) -> [PostgresRow] {
        let ends = sql == "COMMIT" || sql == "ROLLBACK"
        defer { if ends { inTransaction = false } }
        let c = try connection
        let rows: [PostgresRow]
        do {
            rows = try waited(c, c.query(sql, PostgreSQLDatabase.binds(arguments))).rows
        } catch {
            if sql == "COMMIT", error.databaseFailure == .connectionLost {
                throw QueryError(.data, "postgres: \(DatabaseFailureText.lostDuringCommit): the write may or may not have been committed")
            }
            throw error
        }
        if sql == "BEGIN" { inTransaction = true }
        return rows
    }

    /// Runs one statement and returns how many rows it changed.
    func affectedRows(_ sql: String, _ arguments: [Value] = []) throws(QueryError) -> Int {
        let c = try connection
        return try waited(c, c.query(sql, PostgreSQLDatabase.binds(arguments))).metadata.rows ?? 0
    }

    func strings(_ rows: [PostgresRow]) throws(QueryError) -> [String] {
        var out: [String] = []
        for row in rows {
            guard let s = row.makeRandomAccess()[data: 0].string else { throw QueryError(.data, "postgres: expected text") }
            out.append(s)
        }
        return out
    }

    /// Drops every table (and temporary table): an empty database.
    public func reset() throws(QueryError) {
        tablesSeenCommitted = []
        try execute("DISCARD TEMP")
        for table in try tableNames() { try execute("DROP TABLE IF EXISTS \(try PostgreSQLDialect().quote(table)) CASCADE") }
    }

    /// Whether a class table (of `tables`, or any) is marked as holding an
    /// array at createdAt or updatedAt (`markDateArrays(_:)`), which the
    /// date columns cannot hold. Asked of the tables a query reads, it is
    /// one lookup per table by its oid (the `pg_description` index), not a scan of
    /// the catalog's comments: a server asks it on every request.
    public func requiresRecheck(tables: Set<String>?) throws(QueryError) -> Bool {
        guard let tables else {
            return try !execute("SELECT 1 FROM pg_description d JOIN pg_class c ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass "
                + "WHERE d.objsubid = 0 AND d.description = $1 AND c.relnamespace = current_schema()::regnamespace LIMIT 1",
                [.string(Self.dateArraysMark)]).isEmpty
        }
        return try preflight("", keys: [], tables: tables).requiresRecheck
    }

    public func documents(_ statement: SQLStatement) throws(QueryError) -> [String] {
        try strings(try executePrepared("SELECT q.\"doc\" FROM (\(statement.sql)) AS q", statement.arguments))
    }

    /// Each row's text from the bytes PostgreSQL sent (no `String` per row).
    public func forEachDocument(
        _ statement: SQLStatement, _ body: (UnsafeBufferPointer<UInt8>) throws(QueryError) -> Void
    ) throws(QueryError) {
        try executePrepared("SELECT q.\"doc\" FROM (\(statement.sql)) AS q", statement.arguments) { (row) throws(QueryError) in
            var cells = row.makeIterator()
            guard let cell = cells.next() else { throw QueryError(.data, "postgres: expected text") }
            var failure: QueryError?
            if cell.dataType == .text || cell.dataType == .varchar, let bytes = cell.bytes {
                bytes.withUnsafeReadableBytes { raw in
                    do throws(QueryError) { try body(raw.bindMemory(to: UInt8.self)) } catch { failure = error }
                }
            } else {
                // Another column type (a table of an older layout): its text form.
                guard var text = row.makeRandomAccess()[data: 0].string else { throw QueryError(.data, "postgres: expected text") }
                text.withUTF8 { bytes in
                    do throws(QueryError) { try body(bytes) } catch { failure = error }
                }
            }
            if let failure { throw failure }
        }
    }

    public func integer(_ statement: SQLStatement) throws(QueryError) -> Int {
        let rows = try executePrepared(statement.sql, statement.arguments)
        return rows.first.flatMap { $0.makeRandomAccess()[data: 0].int } ?? 0
    }

    public func plan(_ statement: SQLStatement) throws(QueryError) -> [String] {
        try strings(try execute("EXPLAIN " + statement.sql, statement.arguments))
    }

    /// The keys among `keys` that hold no array in any row of `className`,
    /// as far as an index proves it cheaply: a key with its `--index` type
    /// index (`"<Class>:<key>:type"`) is probed for one `'array'` entry (an
    /// index seek); keys without one are left out (nothing assumed). One
    /// statement for all keys (``preflight(_:keys:tables:)``): each key's
    /// CASE runs its probe only when the index is there (the table is, as
    /// ``SQLRunner`` prepares missing ones first).
    public func arrayFreeKeys(_ className: String, among keys: Set<String>) throws(QueryError) -> Set<String> {
        try preflight(className, keys: keys, tables: []).arrayFreeKeys
    }

    /// ``arrayFreeKeys(_:among:)`` and ``requiresRecheck(tables:)`` as one
    /// prepared statement: one row, the recheck answer then one column per
    /// probed key.
    public func preflight(_ className: String, keys: Set<String>, tables: Set<String>, documentIndex: Bool) throws(QueryError) -> Preflight {
        let question = SQLRunner.PreflightQuestion(className: className, keys: keys, tables: tables, documentIndex: documentIndex)
        guard let statement = try Self.preflightStatement(question) else { return Preflight(arrayFreeKeys: [], requiresRecheck: false) }
        guard let row = try executePrepared(statement.sql, statement.arguments).first
        else { throw QueryError(.data, "postgres: the preflight statement returned no row") }
        return statement.answer(row)
    }

    /// The preflight as one statement, and how to read its one row (nil:
    /// nothing to ask).
    struct PreflightStatement {
        /// The answer's columns: the recheck's, then one per probed key, then
        /// the document index's.
        var columns: [String]
        var arguments: [Value]
        var sql: String { "SELECT " + columns.joined(separator: ", ") }
        /// The keys probed, in the order of their columns (after the recheck's).
        var probed: [String]
        var asksDocumentIndex: Bool

        /// The answer in `row`, whose columns from `first` on are ``columns``.
        func answer(_ row: PostgresRow, from first: Int = 0) -> Preflight {
            let row = row.makeRandomAccess()
            var free = Set<String>(), unindexed = Set<String>()
            for (i, key) in probed.enumerated() {
                switch row[data: first + i + 1].int {
                case 0: unindexed.insert(key)
                case 2: free.insert(key)
                default: break
                }
            }
            var answer = Preflight(arrayFreeKeys: free, requiresRecheck: row[data: first].bool == true)
            answer.unindexedKeys = unindexed
            if asksDocumentIndex {
                let indexed = row[data: first + probed.count + 1].bool
                answer.documentIndexed = indexed != false
                answer.documentIndexConfirmed = indexed == true
            }
            return answer
        }
    }

    /// `firstParameter`: the number of its first `$` parameter (after those
    /// of a statement it is joined to: ``PostgreSQLReadConnection``'s guesses).
    static func preflightStatement(_ question: SQLRunner.PreflightQuestion, firstParameter: Int = 1) throws(QueryError) -> PreflightStatement? {
        let (className, keys, tables, documentIndex) = (question.className, question.keys, question.tables, question.documentIndex)
        if keys.isEmpty && tables.isEmpty && !documentIndex { return nil }
        let d = PostgreSQLDialect()
        let names = tables.sorted().compactMap { try? d.quote($0) }
        var arguments: [Value] = [.string(Self.dateArraysMark)] + names.map { .string($0) }
        // pg_description read directly, not through obj_description: that is
        // a SQL function, whose inner query PostgreSQL plans again on every
        // execution. Joined here, the statement runs in 31 us instead of
        // 86 us and gets a generic plan after a few runs (planning 77 us to
        // 9 us), measured with EXPLAIN ANALYZE EXECUTE.
        func p(_ n: Int) -> String { "$\(n + firstParameter - 1)" }
        let lookups = names.indices.map { "to_regclass(\(p($0 + 2)))" }
        var columns = [names.isEmpty ? "FALSE" : "EXISTS (SELECT 1 FROM pg_description d WHERE d.objoid IN (\(lookups.joined(separator: ", "))) "
            + "AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0 AND d.description = \(p(1)))"]
        var probed: [String] = []
        if !keys.isEmpty {
            let table = try d.quote(className)
            for key in keys.sorted() {
                guard let index = try? d.quote("\(className):\(key):type"), let type = PostgreSQLDialect.indexedExpressions(forKey: key)?[2]
                else { continue }
                arguments.append(.string(index))
                // 0: no index; 1: an index, and an array somewhere; 2: an index, no array.
                columns.append("CASE WHEN to_regclass(\(p(arguments.count))) IS NULL THEN 0 "
                               + "WHEN NOT EXISTS (SELECT 1 FROM \(table) WHERE \(type) = 'array') THEN 2 ELSE 1 END")
                probed.append(key)
            }
        }
        // The GIN index `cql load --index` makes (its name, as createIndexes
        // gives it); a name that cannot be quoted: assume it is there.
        let documentIndexName = documentIndex ? try? d.quote(className + ":doc") : nil
        if let documentIndexName {
            arguments.append(.string(documentIndexName))
            columns.append("to_regclass(\(p(arguments.count))) IS NOT NULL")
        }
        return PreflightStatement(columns: columns, arguments: arguments, probed: probed, asksDocumentIndex: documentIndexName != nil)
    }

    /// Its only mark is an array at createdAt/updatedAt (`markDateArrays(_:)`).
    public var recheckConcernsOnlyDateColumns: Bool { true }

    public func tableNames() throws(QueryError) -> Set<String> {
        Set(try strings(try execute(
            "SELECT c.relname::text FROM pg_class c WHERE c.relkind = 'r' AND (c.relnamespace = current_schema()::regnamespace OR c.relpersistence = 't')")))
    }

    public func joinRows(_ table: String) throws(QueryError) -> [[String: Value]] {
        let rows = try execute("SELECT \"owningId\", \"relatedId\" FROM \(try PostgreSQLDialect().quote(table)) ORDER BY \"seq\"")
        return rows.map { row in
            let r = row.makeRandomAccess()
            var o: [String: Value] = [:]
            if let s = r[data: 0].string { o["owningId"] = .string(s) }
            if let s = r[data: 1].string { o["relatedId"] = .string(s) }
            return o
        }
    }

    /// Drops the temporary stand-ins ``createTemporaryTables(classes:joins:)``
    /// made (`DISCARD TEMP`). A connection that lives on (a server's) must
    /// not keep one: `pg_temp` comes first in the search path, so it would
    /// hide the real table once a write creates it.
    public func dropTemporaryTables() throws(QueryError) {
        try execute("DISCARD TEMP")
        holdsTemporaryTables = false
    }

    public func createTemporaryTables(classes: [String], joins: [String]) throws(QueryError) {
        holdsTemporaryTables = true
        for c in classes { try execute(PostgreSQLDatabase.classTable(try PostgreSQLDialect().quote(c), temporary: true)) }
        for j in joins { try execute(PostgreSQLDatabase.joinTable(try PostgreSQLDialect().quote(j), temporary: true)) }
    }

    static func classTable(_ table: String, temporary: Bool = false) -> String {
        "CREATE \(temporary ? "TEMP " : "")TABLE IF NOT EXISTS \(table) (\"objectId\" text PRIMARY KEY, \"doc\" jsonb NOT NULL, \"raw\" text NOT NULL, \"seq\" bigserial, \"createdAt\" bigint, \"updatedAt\" bigint)"
    }

    static func joinTable(_ table: String, temporary: Bool = false) -> String {
        "CREATE \(temporary ? "TEMP " : "")TABLE IF NOT EXISTS \(table) (\"owningId\" text, \"relatedId\" text, \"seq\" bigserial)"
    }
}
