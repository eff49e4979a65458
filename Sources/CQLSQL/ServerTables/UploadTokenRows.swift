import CQLKit

/// The SQL of the server's one-time upload tokens, shared by every process
/// serving the database: the table `cql:uploads` holds one row per token —
/// `token` (the token's SHA-256 in hex: a copy of the database holds no
/// usable token), `doc` (`{"fileId","key"}` as JSON text), `expires` (the
/// millisecond it stops being valid, indexed for pruning) and `used` (1
/// once its bytes were taken).
///
/// Taking and finishing are each one statement that changes the row and
/// returns it (`UPDATE ... RETURNING`, `DELETE ... RETURNING`), so of two
/// processes racing on one token exactly one gets the row.
///
/// ```swift
/// let s = try UploadTokenRows.take(hash: "9f86…", now: 1_700_000_000_000, dialect: .sqlite)
/// s.sql   // UPDATE "cql:uploads" SET "used" = 1 WHERE "token" = ?1 AND "used" = 0 AND "expires" > ?2 RETURNING "doc"
/// ```
public enum UploadTokenRows {
    /// The table's name (a `:` in it: no class name, out of every client route's reach).
    public static let table = "cql:uploads"

    /// The table and its index on `expires`, when missing.
    public static func create(dialect: SQLDialectName) throws(QueryError) -> [SQLStatement] {
        try StateTableSQL.create(table, key: "token", extra: ", \"used\" INTEGER NOT NULL DEFAULT 0", dialect: dialect)
    }

    /// A new token's row.
    public static func insert(hash: String, doc: String, expires: Int64, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let s = dialect.storage
        return SQLStatement(sql: "INSERT INTO \(try s.quote(table)) (\"token\", \"doc\", \"expires\") VALUES (\(s.placeholder(1)), \(s.placeholder(2)), \(s.placeholder(3)))",
                            arguments: [.string(hash), .string(doc), .int(expires)])
    }

    /// Marks the token used and returns its `doc` — no row when it is
    /// unknown, used or expired at `now`.
    public static func take(hash: String, now: Int64, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let s = dialect.storage
        return SQLStatement(sql: "UPDATE \(try s.quote(table)) SET \"used\" = 1 WHERE \"token\" = \(s.placeholder(1)) AND \"used\" = 0 AND \"expires\" > \(s.placeholder(2)) RETURNING \"doc\"",
                            arguments: [.string(hash), .int(now)])
    }

    /// Deletes the token (its upload's callback) and returns its `doc` — no
    /// row when it is unknown or already finished.
    public static func finish(hash: String, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let s = dialect.storage
        return SQLStatement(sql: "DELETE FROM \(try s.quote(table)) WHERE \"token\" = \(s.placeholder(1)) RETURNING \"doc\"", arguments: [.string(hash)])
    }

    /// Deletes the tokens expired at `now`.
    public static func prune(now: Int64, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        try StateTableSQL.prune(table, now: now, dialect: dialect)
    }
}
