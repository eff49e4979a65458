import CQLKit

/// The SQL of the login throttle's rows, shared by every process serving
/// the database: the table `cql:loginFailures` holds one row per account
/// with recent failed logins — `account` (the `_User` objectId), `doc` (the
/// account's state as JSON text, `{"failures":[ms,...],"lockedUntil":ms}`)
/// and `expires` (the millisecond from which the row says nothing: every
/// failure has left the window and any lock has ended; an index on it makes
/// pruning a seek). Times are milliseconds since 1970, from the server's
/// clock.
///
/// The server reads and rewrites a row inside one write transaction, which
/// is serialized across connections and processes (PostgreSQL's write
/// advisory lock, SQLite's `BEGIN IMMEDIATE`): two failures counted at once,
/// by two processes, both count.
///
/// ```swift
/// let s = try LoginFailureRows.state(of: "u1", now: 1_700_000_000_000, dialect: .postgres)
/// s.sql   // SELECT "doc" FROM "cql:loginFailures" WHERE "account" = $1 AND "expires" > $2
/// ```
public enum LoginFailureRows {
    /// The table's name (a `:` in it: no class name, out of every client route's reach).
    public static let table = "cql:loginFailures"

    /// The table and its index on `expires`, when missing.
    public static func create(dialect: SQLDialectName) throws(QueryError) -> [SQLStatement] {
        try StateTableSQL.create(table, key: "account", extra: "", dialect: dialect)
    }

    /// The state of `account` (its `doc`), unless expired at `now`.
    public static func state(of account: String, now: Int64, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let s = dialect.storage
        return SQLStatement(sql: "SELECT \"doc\" FROM \(try s.quote(table)) WHERE \"account\" = \(s.placeholder(1)) AND \"expires\" > \(s.placeholder(2))",
                            arguments: [.string(account), .int(now)])
    }

    /// Stores the state of `account` (inserted or replaced: one UPSERT).
    public static func save(_ account: String, doc: String, expires: Int64, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let s = dialect.storage
        return SQLStatement(sql: "INSERT INTO \(try s.quote(table)) (\"account\", \"doc\", \"expires\") VALUES (\(s.placeholder(1)), \(s.placeholder(2)), \(s.placeholder(3))) "
                                + "ON CONFLICT (\"account\") DO UPDATE SET \"doc\" = excluded.\"doc\", \"expires\" = excluded.\"expires\"",
                            arguments: [.string(account), .string(doc), .int(expires)])
    }

    /// Forgets `account`'s failures (a successful login).
    public static func delete(_ account: String, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let s = dialect.storage
        return SQLStatement(sql: "DELETE FROM \(try s.quote(table)) WHERE \"account\" = \(s.placeholder(1))", arguments: [.string(account)])
    }

    /// Deletes the rows expired at `now` (so the table holds only accounts
    /// failing or locked now).
    public static func prune(now: Int64, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        try StateTableSQL.prune(table, now: now, dialect: dialect)
    }
}
