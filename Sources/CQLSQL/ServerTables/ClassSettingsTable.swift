import CQLKit

/// The table that keeps each class's settings (the server's class-level
/// permissions), one document per class: `objectId` is the class name,
/// `doc` the settings as JSON.
///
/// It has a class table's shape, so that `cql load`, `cql index` and the
/// migrations treat it as any table; its name holds a `:`, which no class
/// name may, so no client route (class API, cloudQuery, sub-query,
/// `include`) can read or write it.
///
/// ```swift
/// try db.inWriteTransaction { s throws(QueryError) in
///     try ClassSettingsTable.save("Post", json: #"{"objectId":"Post","permissions":{"create":{}}}"#, in: s)
/// }
/// try ClassSettingsTable.all(on: db)   // [#"{"objectId":"Post","permissions":{"create":{}}}"#]
/// ```
public enum ClassSettingsTable {
    /// The table's name (a `:` in it: no class name).
    public static let name = "cql:classSettings"

    /// Every stored document's JSON text (each holds its class's name as
    /// `objectId`); none when the table was never made.
    public static func all(on db: some SQLDatabaseReader) throws(QueryError) -> [String] {
        guard try db.tableNames().contains(name) else { return [] }
        return try db.documents(all(dialect: db.dialect))
    }

    /// The SELECT of every stored document, in class-name order (the
    /// table must exist).
    public static func all(dialect: SQLDialectName) -> SQLStatement {
        SQLStatement(sql: "SELECT \(dialect.storage.documentText) FROM \"\(name)\" ORDER BY \"objectId\"", arguments: [])
    }

    /// Stores (or replaces) one class's document inside a write transaction.
    public static func save(_ className: String, json: String, in session: any SQLWriteSession) throws(QueryError) {
        try session.createTable(name)
        if try session.replaceObject(className, json: json, in: name) == 0 {
            try session.insertObject(className, json: json, into: name)
        }
    }
}
