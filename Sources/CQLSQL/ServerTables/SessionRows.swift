import CQLKit

/// The SQL of a server's session rows (a table of a class table's shape:
/// `objectId` the token's hash, `doc` `{"objectId","user","createdAt"}`),
/// here with the rest of the SQL text rather than in the server.
///
/// ```swift
/// let s = try SessionRows.session(hash: "9f86…", table: "cql:sessions", dialect: .sqlite)
/// s.sql   // SELECT "doc" FROM "cql:sessions" WHERE "objectId" = ?
/// ```
public enum SessionRows {
    /// The document of the session whose token hashes to `hash`.
    public static func session(hash: String, table: String, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let storage = dialect.storage
        return SQLStatement(sql: "SELECT \(storage.documentText) FROM \(try storage.quote(table)) WHERE \"objectId\" = \(storage.textArgument(1))",
                            arguments: [.string(hash)])
    }

    /// Deletes every session of `userId`.
    public static func deleteSessions(of userId: String, table: String, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let storage = dialect.storage
        return SQLStatement(sql: "DELETE FROM \(try storage.quote(table)) WHERE \(storage.textAtKey("user")) = \(storage.textArgument(1))",
                            arguments: [.string(userId)])
    }
}
