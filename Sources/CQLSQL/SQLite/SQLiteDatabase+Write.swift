import CQLEval
import CQLKit
import GRDB

extension SQLiteDatabase {
    /// Runs `body` in one immediate transaction: committed when it returns,
    /// rolled back when it throws. Temporary stand-in tables (made by `run`
    /// for classes the database lacks) are dropped first, so that the write
    /// reaches the real tables.
    public func inWriteTransaction<T>(_ body: (any SQLWriteSession) throws(QueryError) -> T) throws(QueryError) -> T {
        var result: T?
        do {
            try queue.inTransaction(.immediate) { db in
                for temp in try String.fetchAll(db, sql: "SELECT name FROM sqlite_temp_master WHERE type = 'table'") {
                    try db.execute(sql: "DROP TABLE temp.\(try SQLiteDialect().quote(temp))")
                }
                result = try body(SQLiteWriteSession(db: db))
                return .commit
            }
        } catch let e as QueryError {
            throw e
        } catch {
            throw SQLiteDatabase.queryError(error)
        }
        return result!
    }
}

/// A write transaction on SQLite (GRDB's `Database` inside `inTransaction`).
struct SQLiteWriteSession: SQLWriteSession {
    let db: Database
    var dialect: SQLDialectName { .sqlite }

    func run<T>(_ body: () throws -> T) throws(QueryError) -> T {
        do {
            return try body()
        } catch let e as QueryError {
            throw e
        } catch {
            throw SQLiteDatabase.queryError(error)
        }
    }

    func tableNames() throws(QueryError) -> Set<String> {
        try run { Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND \(SQLiteDatabase.notInternal)")) }
    }

    /// The database's one mark (`PRAGMA user_version`, ``SQLiteDatabase/requiresRecheck(tables:)``).
    func requiresRecheck(tables: Set<String>) throws(QueryError) -> Bool {
        try run { try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 } != 0
    }

    func documents(_ statement: SQLStatement) throws(QueryError) -> [String] {
        try run { try String.fetchAll(db, sql: statement.sql, arguments: SQLiteDatabase.arguments(statement.arguments)) }
    }

    func joinRows(_ statement: SQLStatement) throws(QueryError) -> [[String: Value]] {
        try run {
            try Row.fetchAll(db, sql: statement.sql, arguments: SQLiteDatabase.arguments(statement.arguments)).map { row in
                var o: [String: Value] = [:]
                if let s: String = row["owningId"] { o["owningId"] = .string(s) }
                if let s: String = row["relatedId"] { o["relatedId"] = .string(s) }
                return o
            }
        }
    }

    func execute(_ statement: SQLStatement) throws(QueryError) -> Int {
        try run {
            try db.execute(sql: statement.sql, arguments: SQLiteDatabase.arguments(statement.arguments))
            return db.changesCount
        }
    }

    func createTable(_ className: String) throws(QueryError) {
        try run { try SQLiteDatabase.createTable(db, className) }
    }

    func insertObject(_ objectId: String, json: String, into className: String) throws(QueryError) {
        let table = try SQLiteDialect().quote(className)
        let object = try DataFiles.object(json: json)
        try run {
            try SQLiteDatabase.mark(db, json, object)
            try db.execute(sql: SQLiteDatabase.insertObjectSQL(table), arguments: SQLiteDatabase.arguments([.string(objectId), .string(json)] + SQLStoredColumns.dateColumns(object)))
        }
    }

    func replaceObject(_ objectId: String, json: String, in className: String) throws(QueryError) -> Int {
        let table = try SQLiteDialect().quote(className)
        let object = try DataFiles.object(json: json)
        return try run {
            try SQLiteDatabase.mark(db, json, object)
            try db.execute(sql: "UPDATE \(table) SET \"doc\" = ?, \"createdAt\" = ?, \"updatedAt\" = ? WHERE \"objectId\" = ?",
                           arguments: SQLiteDatabase.arguments([.string(json)] + SQLStoredColumns.dateColumns(object) + [.string(objectId)]))
            return db.changesCount
        }
    }
}
