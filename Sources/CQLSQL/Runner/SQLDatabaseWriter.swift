import CQLKit

/// A ``SQLDatabaseReader`` that also changes the database: loads, inserts,
/// indexes and write transactions (``SQLWriteRunner``, `cql load`, `cql
/// index`, the migrations). ``SQLiteDatabase`` and ``PostgreSQLDatabase``
/// implement it; a caller that only reads asks for the reader.
///
/// ```swift
/// let db: any SQLDatabaseWriter = try SQLiteDatabase(path: "app.db")
/// try db.load(path: "Corpus/data", className: nil, indexes: ["score"])
/// try SQLRunner.run(query, on: db)   // a writer reads too
/// ```
public protocol SQLDatabaseWriter: SQLDatabaseReader {
    /// Imports a data directory or file in one transaction (`cql load`);
    /// `progress`: a progress line on standard error when it is a terminal.
    /// - Returns: the number of objects imported per table.
    @discardableResult
    func load(path: String, className: String?, indexes: [String], progress: Bool) throws(QueryError) -> [String: Int]
    /// Adds objects already read to a class (or `_Join:`) table.
    func insert(_ objects: [[String: Value]], into className: String) throws(QueryError)
    /// The expression indexes the generated SQL uses for `keys`, on every
    /// class table present (`only`: on these classes alone) — `cql index`.
    /// - Returns: the classes indexed.
    @discardableResult
    func addIndexes(keys: [String], only: Set<String>?) throws(QueryError) -> [String]
    /// Runs `body` in one transaction: committed when it returns, rolled
    /// back when it throws (``SQLWriteRunner``).
    func inWriteTransaction<T>(_ body: (any SQLWriteSession) throws(QueryError) -> T) throws(QueryError) -> T
}

extension SQLDatabaseWriter {
    /// ``load(path:className:indexes:progress:)`` without a progress line.
    @discardableResult
    public func load(path: String, className: String? = nil, indexes: [String] = []) throws(QueryError) -> [String: Int] {
        try load(path: path, className: className, indexes: indexes, progress: false)
    }

    /// ``addIndexes(keys:only:)`` on every class table present.
    @discardableResult
    public func addIndexes(keys: [String]) throws(QueryError) -> [String] {
        try addIndexes(keys: keys, only: nil)
    }
}
