import CQLKit

/// The SQL shared by the server's tables of state that expires
/// (``LoginFailureRows``, ``UploadTokenRows``): a text key, a `doc` text,
/// an `expires` time in milliseconds (indexed) — the same types on SQLite
/// and PostgreSQL (`BIGINT` is 64 bits on both).
///
/// ```swift
/// try StateTableSQL.prune("cql:uploads", now: 1_700_000_000_000, dialect: .sqlite).sql
/// // DELETE FROM "cql:uploads" WHERE "expires" <= ?1
/// ```
public enum StateTableSQL {
    /// The tables of this shape (no class table's: `cql load --index` makes no index on them).
    public static let tables: Set<String> = [LoginFailureRows.table, UploadTokenRows.table]

    /// `CREATE TABLE IF NOT EXISTS` with `extra` columns (text starting
    /// with `, `), and the index on `expires`.
    public static func create(_ table: String, key: String, extra: String, dialect: SQLDialectName) throws(QueryError) -> [SQLStatement] {
        let s = dialect.storage
        let t = try s.quote(table)
        return [
            SQLStatement(sql: "CREATE TABLE IF NOT EXISTS \(t) (\(try s.quote(key)) TEXT PRIMARY KEY, \"doc\" TEXT NOT NULL, \"expires\" BIGINT NOT NULL\(extra))",
                         arguments: []),
            SQLStatement(sql: "CREATE INDEX IF NOT EXISTS \(try s.quote(table + ":expires")) ON \(t) (\"expires\")", arguments: []),
        ]
    }

    /// Deletes the rows expired at `now`.
    public static func prune(_ table: String, now: Int64, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let s = dialect.storage
        return SQLStatement(sql: "DELETE FROM \(try s.quote(table)) WHERE \"expires\" <= \(s.placeholder(1))", arguments: [.int(now)])
    }
}
