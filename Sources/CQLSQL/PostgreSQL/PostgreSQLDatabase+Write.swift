import CQLEval
import CQLKit
import PostgresNIO

extension PostgreSQLDatabase {
    /// The advisory lock key of writes: "cqlwrite" as a 64-bit integer.
    static let writeLockKey: Int64 = 0x6371_6C77_7269_7465

    /// Runs `body` in one transaction: committed when it returns, rolled
    /// back when it throws. Temporary stand-in tables (made by `run` for
    /// classes the database lacks) are discarded first, so that the write
    /// reaches the real tables.
    ///
    /// Writes through this project are serialized by one transaction-scoped
    /// advisory lock (held until COMMIT or ROLLBACK), across connections and
    /// processes: the exact path reads an object, applies the write in
    /// memory and writes it back, which under READ COMMITTED could otherwise
    /// lose a concurrent write to the same object (two `Increment`s reading
    /// 5 and both writing 6), and two first writes to a new class would race
    /// to create its table. SQLite gets the same from `BEGIN IMMEDIATE`.
    public func inWriteTransaction<T>(_ body: (any SQLWriteSession) throws(QueryError) -> T) throws(QueryError) -> T {
        if holdsTemporaryTables { try dropTemporaryTables() }
        try execute("BEGIN")
        do {
            try execute("SELECT pg_advisory_xact_lock(\(PostgreSQLDatabase.writeLockKey))")
            let session = PostgreSQLWriteSession(db: self, tables: PostgreSQLWriteSession.Tables())
            let result = try body(session)
            try execute("COMMIT")
            if let known = session.tables.known { tablesSeenCommitted.formUnion(known) }
            return result
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }
}

/// A write transaction on PostgreSQL (the database's one connection, inside
/// BEGIN ... COMMIT).
///
/// The class tables are read from `pg_class` once a transaction and kept
/// (``Tables``): under the write lock no other writer creates one, and no
/// route drops one, so a table seen stays; `createTable` of a table seen
/// sends nothing (no `CREATE ... IF NOT EXISTS` round trips under the
/// lock). A `ROLLBACK TO SAVEPOINT` forgets them (it may undo a create).
struct PostgreSQLWriteSession: SQLWriteSession {
    let db: PostgreSQLDatabase
    let tables: Tables
    var dialect: SQLDialectName { .postgres }

    /// The class tables this transaction has seen; nil: read them again.
    final class Tables {
        var known: Set<String>?
    }

    /// Without a round trip for a table a committed write saw.
    func hasTable(_ name: String) throws(QueryError) -> Bool {
        if db.tablesSeenCommitted.contains(name) { return true }
        return try tableNames().contains(name)
    }

    func tableNames() throws(QueryError) -> Set<String> {
        if let known = tables.known { return known }
        let names = Set(try db.strings(try db.execute(
            "SELECT c.relname::text FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace")))
        tables.known = names
        return names
    }

    /// The tables' date-array marks, asked in the write's transaction.
    func requiresRecheck(tables: Set<String>) throws(QueryError) -> Bool {
        try db.requiresRecheck(tables: tables)
    }

    func documents(_ statement: SQLStatement) throws(QueryError) -> [String] {
        try db.strings(try db.execute(statement.sql, statement.arguments))
    }

    func joinRows(_ statement: SQLStatement) throws(QueryError) -> [[String: Value]] {
        try db.execute(statement.sql, statement.arguments).map { row in
            let r = row.makeRandomAccess()
            var o: [String: Value] = [:]
            if let s = r[data: 0].string { o["owningId"] = .string(s) }
            if let s = r[data: 1].string { o["relatedId"] = .string(s) }
            return o
        }
    }

    func execute(_ statement: SQLStatement) throws(QueryError) -> Int {
        if statement.sql.hasPrefix("ROLLBACK") { tables.known = nil }
        return try db.affectedRows(statement.sql, statement.arguments)
    }

    func createTable(_ className: String) throws(QueryError) {
        if try hasTable(className) { return }
        try db.createTable(className)
        tables.known?.insert(className)
    }

    func insertObject(_ objectId: String, json: String, into className: String) throws(QueryError) {
        if json.contains("\\u0000") { throw QueryError(.data, "PostgreSQL's jsonb cannot hold a string with NUL (\\u0000)") }
        let table = try PostgreSQLDialect().quote(className)
        let object = try DataFiles.object(json: json)
        if SQLStoredColumns.holdsArray(object) { try db.markDateArrays(className) }
        let dates = SQLStoredColumns.dateColumns(object)
        try db.execute("INSERT INTO \(table) (\"objectId\", \"doc\", \"raw\", \"createdAt\", \"updatedAt\") VALUES ($1, $2::jsonb, $2, $3, $4)",
                       [.string(objectId), .string(json)] + dates)
    }

    func replaceObject(_ objectId: String, json: String, in className: String) throws(QueryError) -> Int {
        if json.contains("\\u0000") { throw QueryError(.data, "PostgreSQL's jsonb cannot hold a string with NUL (\\u0000)") }
        let table = try PostgreSQLDialect().quote(className)
        let object = try DataFiles.object(json: json)
        if SQLStoredColumns.holdsArray(object) { try db.markDateArrays(className) }
        let dates = SQLStoredColumns.dateColumns(object)
        return try db.affectedRows("UPDATE \(table) SET \"doc\" = $1::jsonb, \"raw\" = $1, \"createdAt\" = $3, \"updatedAt\" = $4 WHERE \"objectId\" = $2",
                                   [.string(json), .string(objectId)] + dates)
    }
}
