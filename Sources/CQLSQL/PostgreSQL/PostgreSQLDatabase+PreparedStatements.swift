import CQLKit
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The named prepared statements of one PostgreSQL connection, so that a
/// statement run again (a server answers the same few query shapes with new
/// values) is parsed and planned once, not on every request.
///
/// The generated SQL and its argument types are known only at run time, but
/// postgres-nio's prepared-statement API (`PostgresPreparedStatement`, which
/// keeps a per-connection cache by name and prepares on first use) takes the
/// name, SQL and parameter types as static members. ``RuntimeStatement``
/// answers those from a task-local value bound around the call, read
/// synchronously by `PostgresConnection.execute` before its first
/// suspension.
///
/// The parameter types are the arguments' own (`int8`, `float8`, `text`,
/// `bool`; a NULL leaves its type to PostgreSQL), exactly what the unnamed
/// statements of ``PostgreSQLDatabase/execute(_:_:)`` declare, so a prepared
/// statement means what the unnamed one means; the key is the SQL text with
/// those types. Bounded: past ``capacity`` statements a connection runs new
/// SQL unnamed (a client sending ever new query shapes cannot grow the
/// server's memory). A statement that failed is forgotten and gets a new
/// name next time, because postgres-nio keeps a failed preparation's error
/// under its name (a table that was missing may exist by then).
///
/// ```swift
/// // the first run parses and plans; later runs only bind and execute
/// let rows = try db.executePrepared("SELECT \"raw\" FROM \"Todo\" WHERE \"objectId\" = $1", [.string("a1")])
/// ```
final class PreparedStatementNames: @unchecked Sendable {
    /// The SQL text with its parameter types, hashed once when made: a
    /// page's statement is about 2 KB, and each run looks it up twice (its
    /// batch's groups, its prepared name).
    struct Key: Hashable {
        let sql: String
        let types: [UInt32]
        private let hashed: Int

        init(sql: String, types: [UInt32]) {
            self.sql = sql
            self.types = types
            var h = Hasher()
            h.combine(sql)
            h.combine(types)
            hashed = h.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hashed) }

        static func == (a: Key, b: Key) -> Bool { a.hashed == b.hashed && a.types == b.types && a.sql == b.sql }
    }

    /// Prepared statements per connection, at most.
    static let capacity = 256
    private var names: [Key: String] = [:]
    private var made = 0
    private let lock = NSLock()

    /// The statement's name, or nil when the connection holds ``capacity``
    /// statements already (run it unnamed).
    func name(for key: Key) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let n = names[key] { return n }
        if names.count >= Self.capacity { return nil }
        made += 1
        let n = "cql_\(made)"
        names[key] = n
        return n
    }

    /// Forgets a statement that failed: the next run prepares it afresh under
    /// a new name.
    func forget(_ key: Key) {
        lock.lock()
        names[key] = nil
        lock.unlock()
    }
}

/// A statement's arguments bound with their own types, and its key among
/// a connection's prepared statements (``PreparedStatementNames``): what the
/// blocking and the awaited paths both run.
struct PreparedCall: Sendable {
    let sql: String
    let types: [PostgresDataType]
    let bindings: PostgresBindings
    let key: PreparedStatementNames.Key

    init(_ sql: String, _ arguments: [Value]) {
        let binds = PostgreSQLDatabase.binds(arguments)
        var bindings = PostgresBindings(capacity: binds.count)
        for b in binds { bindings.append(b) }
        self.init(sql, types: binds.map(\.type), bindings: bindings)
    }

    /// A statement whose bindings are made already (``CoalescedStatement``'s arrays).
    init(_ sql: String, types: [PostgresDataType], bindings: PostgresBindings) {
        self.sql = sql
        self.types = types
        self.bindings = bindings
        key = PreparedStatementNames.Key(sql: sql, types: types.map(\.rawValue))
    }

    /// What ``RuntimeStatement`` answers for it under `name`.
    func text(name: String) -> RuntimeStatement.Text { RuntimeStatement.Text(name: name, sql: sql, types: types) }
}

/// A prepared statement whose name, SQL and parameter types come from
/// ``current`` (see ``PreparedStatementNames``).
struct RuntimeStatement: PostgresPreparedStatement {
    struct Text: Sendable {
        var name: String
        var sql: String
        var types: [PostgresDataType]
    }

    @TaskLocal static var current: Text?

    static var name: String { bound.name }
    static var sql: String { bound.sql }
    static var bindingDataTypes: [PostgresDataType] { bound.types }

    private static var bound: Text {
        guard let t = current else { preconditionFailure("RuntimeStatement used outside RuntimeStatement.$current.withValue") }
        return t
    }

    let bindings: PostgresBindings
    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgreSQLDatabase {
    /// Runs a statement a server repeats with new arguments as a named
    /// prepared statement of this connection (see ``PreparedStatementNames``),
    /// and returns its rows.
    func executePrepared(_ sql: String, _ arguments: [Value] = []) throws(QueryError) -> [PostgresRow] {
        var rows: [PostgresRow] = []
        try executePrepared(sql, arguments) { row in rows.append(row) }
        return rows
    }

    /// ``executePrepared(_:_:)`` handing each row to `eachRow` as it
    /// arrives, so the caller's work on a row overlaps the database sending
    /// the next ones (`cql run` copying a large result). An error `eachRow`
    /// throws ends the statement and is thrown as it is.
    ///
    /// `eachRow` runs on the task that reads the rows while this thread
    /// waits for it: one thread at a time touches what it captures, which is
    /// why it need not be `Sendable` (``WaitingCaller``).
    func executePrepared(_ sql: String, _ arguments: [Value], eachRow: (PostgresRow) throws(QueryError) -> Void) throws(QueryError) {
        let call = PreparedCall(sql, arguments)
        let (key, bindings) = (call.key, call.bindings)
        guard keepsStatementsPrepared, let name = preparedNames.name(for: key) else {
            try executeUnnamed(PostgresQuery(unsafeSQL: sql, binds: bindings), eachRow: eachRow)
            return
        }
        let text = call.text(name: name)
        let statement = RuntimeStatement(bindings: bindings)
        let connection = try self.connection
        let logger = self.logger
        let promise = connection.eventLoop.makePromise(of: Void.self)
        try withoutActuallyEscaping(eachRow) { (eachRow) throws(QueryError) in
            let caller = WaitingCaller(eachRow)
            let dog = watchdog(connection) { promise.fail(PostgreSQLLink.NoAnswer()) }
            defer { dog?.stop() }
            // A released wait returns while the task may still run: it then
            // holds nothing of the caller's.
            defer { caller.release() }
            promise.completeWithTask {
                // Dropped before the promise completes: when the wait returns
                // nothing holds the closure any more.
                defer { caller.release() }
                try await RuntimeStatement.$current.withValue(text) {
                    for try await row in try await connection.execute(statement, logger: logger) { try caller.call(row) }
                }
            }
            do {
                try promise.futureResult.wait()
            } catch let error as QueryError {
                throw error
            } catch {
                preparedNames.forget(key)
                throw statementFailure(error, on: connection, dog)
            }
        }
    }
}

extension PostgreSQLDatabase {
    /// Runs `query` as an unnamed statement (parsed and planned for this run
    /// only, with the arguments' own types as ``executePrepared(_:_:eachRow:)``
    /// declares them), handing each row to `eachRow` on the connection's
    /// event loop while this thread waits.
    ///
    /// Why not the prepared path when nothing repeats: its rows come through
    /// postgres-nio's async row sequence, whose every step is a task switch
    /// that looks up the task's executor under a lock. This callback is a plain call.
    func executeUnnamed(_ query: PostgresQuery, eachRow: (PostgresRow) throws(QueryError) -> Void) throws(QueryError) {
        let connection = try self.connection
        try withoutActuallyEscaping(eachRow) { (eachRow) throws(QueryError) in
            let caller = WaitingCaller(eachRow)
            let done = connection.eventLoop.makePromise(of: Void.self)
            connection.query(query, logger: logger) { row in try caller.call(row) }.map { _ in }.cascade(to: done)
            let dog = watchdog(connection) { done.fail(PostgreSQLLink.NoAnswer()) }
            defer { dog?.stop() }
            defer {
                // The row stream may outlive the statement holding its
                // callback; the callback then holds nothing of the caller's.
                caller.release()
            }
            do {
                _ = try done.futureResult.wait()
            } catch let error as QueryError {
                throw error
            } catch {
                throw statementFailure(error, on: connection, dog)
            }
        }
    }
}

/// A caller's closure run by the task or row callback it waits for (see
/// ``PostgreSQLDatabase/executePrepared(_:_:eachRow:)`` and
/// ``PostgreSQLDatabase/executeUnnamed(_:eachRow:)``): the waiting thread
/// does nothing until the statement ends, so the closure is never run by
/// two threads at once; it is let go of (`body = nil`) before the wait
/// returns, so nothing holds it afterwards (`withoutActuallyEscaping`
/// checks that).
private final class WaitingCaller: @unchecked Sendable {
    private var body: ((PostgresRow) throws(QueryError) -> Void)?
    /// Held while the body runs, so that ``release()`` (from the waiting
    /// thread, when a watchdog freed it) waits for a call under way.
    private let lock = NSLock()
    init(_ body: @escaping (PostgresRow) throws(QueryError) -> Void) { self.body = body }

    func call(_ row: PostgresRow) throws(QueryError) {
        lock.lock()
        defer { lock.unlock() }
        guard let body else { return }
        try body(row)
    }

    func release() {
        lock.lock()
        body = nil
        lock.unlock()
    }
}
