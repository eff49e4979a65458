import CQLKit

/// A key no two objects of a class may share, held by the database itself:
/// a unique expression index on the key's value in the document, so that
/// no race between writers, no rename and no path that forgets a check can
/// make two (`cql serve` keeps `_User`'s username, email and phone number,
/// `_Role`'s name and `_File`'s key this way).
///
/// - SQLite: `CREATE UNIQUE INDEX "<Class>:<key>:unique" ON "<Class>"
///   (json_extract("doc", '$.<key>'))`.
/// - PostgreSQL: the same on `("doc"->>'<key>')`.
///
/// With ``Folding/asciiCase``, the value is compared through `lower()` (on
/// PostgreSQL under the "C" collation, which folds ASCII letters only), on
/// both sides of every comparison, so the index, the check and the lookup
/// agree on any build of either database. An object without the key (or
/// with `null`) holds no value: any number of them may exist.
///
/// ```swift
/// let email = UniqueIndex(className: "_User", key: "email", folding: .asciiCase)
/// try db.inWriteTransaction { s in try email.ensure(in: s) }   // CREATE UNIQUE INDEX IF NOT EXISTS ...
/// try db.inWriteTransaction { s in try email.isTaken("Ann@Example.com", excluding: nil, in: s) }   // true if "ann@example.com" exists
/// ```
public struct UniqueIndex: Sendable, Hashable {
    /// How values are compared.
    public enum Folding: Sendable, Hashable {
        /// As stored, code point by code point.
        case exact
        /// ASCII letters without case (`lower()`).
        case asciiCase
    }

    public let className: String
    public let key: String
    public let folding: Folding

    /// - Precondition: `key` is letters only (it is spelled inside the SQL
    ///   text as a JSON path and a string literal).
    public init(className: String, key: String, folding: Folding = .exact) {
        precondition(!key.isEmpty && key.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }, "a unique key is letters only")
        self.className = className
        self.key = key
        self.folding = folding
    }

    /// The index's name, which the database's error names on a conflict.
    public var name: String { "\(className):\(key):unique" }

    /// The indexed expression (of the row's `doc`).
    func expression(_ dialect: SQLDialectName) -> String {
        folded(dialect.storage.textAtKey(key), dialect)
    }

    private func folded(_ e: String, _ dialect: SQLDialectName) -> String {
        switch folding {
        case .exact: return e
        case .asciiCase: return dialect.storage.lowerASCII(e)
        }
    }

    /// The expression a given value is compared as (folded by the database,
    /// as the index folds the stored one).
    func argument(_ dialect: SQLDialectName, _ index: Int) -> String {
        folded(dialect.storage.textArgument(index), dialect)
    }

    func table(_ dialect: SQLDialectName) throws(QueryError) -> String {
        try dialect.dialect.quote(className)
    }

    func quotedName(_ dialect: SQLDialectName) throws(QueryError) -> String {
        try dialect.dialect.quote(name)
    }

    /// Whether the index is there (its table must be).
    public func exists(in session: any SQLWriteSession) throws(QueryError) -> Bool {
        let sql = session.dialect.storage.indexExistsQuery
        return !(try session.documents(SQLStatement(sql: sql, arguments: [.string(name)]))).isEmpty
    }

    /// Up to `limit` values more than one object holds (as folded), for the
    /// message that refuses to index them.
    public func duplicates(in session: any SQLWriteSession, limit: Int = 5) throws(QueryError) -> [String] {
        let e = expression(session.dialect), t = try table(session.dialect)
        let text = session.dialect.storage.asText(e)
        return try session.documents(SQLStatement(
            sql: "SELECT \(text) FROM \(t) WHERE \(e) IS NOT NULL GROUP BY \(e) HAVING count(*) > 1 ORDER BY 1 LIMIT \(max(1, limit))",
            arguments: []))
    }

    /// Makes the index when missing (the table too); throws, naming up to
    /// five of them, when objects already share a value.
    public func ensure(in session: any SQLWriteSession) throws(QueryError) {
        try session.createTable(className)
        if try exists(in: session) { return }
        let shared = try duplicates(in: session)
        if !shared.isEmpty {
            throw QueryError(.data, "\(className): more than one object has the \(key)\(folding == .asciiCase ? " (ASCII letters without case)" : "") "
                + shared.map { "'\($0)'" }.joined(separator: ", ") + "; the \(key) must be unique")
        }
        try session.execute(SQLStatement(
            sql: "CREATE UNIQUE INDEX IF NOT EXISTS \(try quotedName(session.dialect)) ON \(try table(session.dialect)) (\(expression(session.dialect)))",
            arguments: []))
    }

    /// Whether an object other than `objectId` holds `value` (as folded).
    public func isTaken(_ value: String, excluding objectId: String?, in session: any SQLWriteSession) throws(QueryError) -> Bool {
        let d = session.dialect
        var sql = "SELECT \"objectId\" FROM \(try table(d)) WHERE \(expression(d)) = \(argument(d, 1))"
        var arguments: [Value] = [.string(value)]
        if let objectId {
            sql += " AND \"objectId\" <> " + d.storage.textArgument(2)
            arguments.append(.string(objectId))
        }
        return !(try session.documents(SQLStatement(sql: sql + " LIMIT 1", arguments: arguments))).isEmpty
    }

    /// The SELECT of the document of the object holding `value` (as
    /// folded), for ``SQLDatabaseReader/documents(_:)``; served by the index.
    public func lookup(_ value: String, dialect: SQLDialectName) throws(QueryError) -> SQLStatement {
        let t = try table(dialect)
        let column = dialect.dialect.documentColumn(t)
        return SQLStatement(sql: "SELECT \(column) FROM \(t) WHERE \(expression(dialect)) = \(argument(dialect, 1)) LIMIT 1",
                            arguments: [.string(value)])
    }

    /// Whether `error` is a write refused by this index (SQLite: "UNIQUE
    /// constraint failed: index '<name>'"; PostgreSQL: "duplicate key value
    /// violates unique constraint "<name>"").
    public func isViolated(by error: QueryError) -> Bool {
        error.message.contains("UNIQUE constraint failed: index '\(name)'") || error.message.contains("violates unique constraint \"\(name)\"")
    }
}
