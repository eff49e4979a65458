import CQLKit

/// The row operations a write needs, inside one transaction of one
/// database (``SQLDatabaseWriter/inWriteTransaction(_:)``). Values are bound,
/// identifiers quoted: the statements are written by ``SQLWriteRunner``
/// through the session's dialect.
public protocol SQLWriteSession {
    var dialect: SQLDialectName { get }
    /// The table names present.
    func tableNames() throws(QueryError) -> Set<String>
    /// Whether the table `name` is present: ``tableNames()`` asked for one
    /// name, which a session may answer from tables it knows cannot have
    /// gone (PostgreSQL: those of committed writes, as no route drops one).
    func hasTable(_ name: String) throws(QueryError) -> Bool
    /// Whether the stored data defeats the generated SQL for a read of
    /// `tables` (``SQLDatabaseReader/requiresRecheck(tables:)``: strings with NUL
    /// on SQLite, an array at a date key), so that a write's condition is
    /// evaluated in memory rather than by its SQL.
    func requiresRecheck(tables: Set<String>) throws(QueryError) -> Bool
    /// The `doc` text of each row a `SELECT ... "doc"` statement returns.
    func documents(_ statement: SQLStatement) throws(QueryError) -> [String]
    /// `{"owningId":..,"relatedId":..}` of each row a join-table SELECT returns.
    func joinRows(_ statement: SQLStatement) throws(QueryError) -> [[String: Value]]
    /// Runs a statement; returns the number of rows it changed.
    @discardableResult
    func execute(_ statement: SQLStatement) throws(QueryError) -> Int
    /// Creates a class or `_Join:` table (and its indexes) when missing.
    func createTable(_ className: String) throws(QueryError)
    /// The object as stored: the row's `doc` (and, on PostgreSQL, `raw`) values.
    func insertObject(_ objectId: String, json: String, into className: String) throws(QueryError)
    func replaceObject(_ objectId: String, json: String, in className: String) throws(QueryError) -> Int
}

extension SQLWriteSession {
    public func hasTable(_ name: String) throws(QueryError) -> Bool { try tableNames().contains(name) }
}
