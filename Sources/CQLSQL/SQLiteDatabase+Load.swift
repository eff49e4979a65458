import CQLEval
import CQLKit
import GRDB

extension SQLiteDatabase {
    /// `cql load --sqlite`: imports a data directory or file (the files `cql
    /// eval --data` reads) in one transaction: a bad line aborts with its
    /// file and line and the database is left exactly as it was.
    ///
    /// Class tables get the object as its canonical JSON (what `cql eval`
    /// prints), join tables their `owningId`/`relatedId` strings, indexed
    /// both ways. Each key of `indexes` gets, on every class table, the
    /// expression indexes the generated SQL uses: the value
    /// (`json_extract("doc", '$."k"')`) and its JSON type.
    ///
    /// - Returns: the number of objects imported per table.
    @discardableResult
    public func load(path: String, className: String? = nil, indexes: [String] = []) throws(QueryError) -> [String: Int] {
        let files = try DataFiles.files(at: path, className: className)
        var counts: [String: Int] = [:]
        do {
            try queue.inTransaction { db in
                for file in files {
                    let table = try SQLiteDialect().quote(file.className)
                    let isJoin = file.className.hasPrefix("_Join:")
                    try SQLiteDatabase.createTable(db, file.className)
                    let sql = isJoin
                        ? "INSERT INTO \(table) (\"owningId\", \"relatedId\") VALUES (?, ?)"
                        : "INSERT INTO \(table) (\"objectId\", \"doc\") VALUES (?, ?)"
                    let insert = try db.cachedStatement(sql: sql)
                    var n = 0
                    try DataFiles.forEachObject(inFile: file.path) { (object, line) throws(QueryError) in
                        do {
                            if isJoin {
                                try insert.execute(arguments: [object["owningId"]?.stringValue, object["relatedId"]?.stringValue])
                            } else {
                                guard case .string(let id)? = object["objectId"] else {
                                    throw QueryError(.data, "\(file.path):\(line): an object needs a string objectId to be stored in SQL")
                                }
                                let json = JSONWriter.string(.object(object))
                                try SQLiteDatabase.markNUL(db, json)
                                try insert.execute(arguments: [id, json])
                            }
                        } catch let e as QueryError {
                            throw e
                        } catch {
                            throw QueryError(.data, "\(file.path):\(line): \(SQLiteDatabase.message(error))")
                        }
                        n += 1
                    }
                    counts[file.className, default: 0] += n
                }
                let classes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_Join:%' ESCAPE '\\'")
                for c in classes {
                    for key in indexes { try SQLiteDatabase.createIndexes(db, className: c, key: key) }
                }
                return .commit
            }
        } catch let e as QueryError {
            throw e
        } catch {
            throw SQLiteDatabase.queryError(error)
        }
        return counts
    }

    static func createTable(_ db: Database, _ className: String) throws {
        let d = SQLiteDialect()
        let table = try d.quote(className)
        if className.hasPrefix("_Join:") {
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (\"owningId\" TEXT, \"relatedId\" TEXT)")
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":owningId")) ON \(table) (\"owningId\")")
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":relatedId")) ON \(table) (\"relatedId\")")
        } else {
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (\"objectId\" TEXT PRIMARY KEY, \"doc\" TEXT NOT NULL)")
        }
    }

    /// The indexes for the shapes of a one-step key: the value and its type
    /// (the type index serves the array branch of the OR).
    static func createIndexes(_ db: Database, className: String, key: String) throws {
        let d = SQLiteDialect()
        guard let expressions = SQLiteDialect.indexedExpressions(forKey: key) else {
            throw QueryError(.unsupported, "sqlite: cannot index the key '\(key)'")
        }
        let table = try d.quote(className)
        for (expression, suffix) in zip(expressions, ["value", "type"]) {
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(try d.quote("\(className):\(key):\(suffix)")) ON \(table) (\(expression))")
        }
    }
}

extension SQLiteDatabase {
    /// Adds objects (already read) to the class table `className` (a join
    /// table for `_Join:...`: their `owningId` and `relatedId`), in one
    /// transaction, creating the table if needed.
    public func insert(_ objects: [[String: Value]], into className: String) throws(QueryError) {
        do {
            try queue.inTransaction { db in
                try SQLiteDatabase.createTable(db, className)
                let table = try SQLiteDialect().quote(className)
                if className.hasPrefix("_Join:") {
                    let insert = try db.cachedStatement(sql: "INSERT INTO \(table) (\"owningId\", \"relatedId\") VALUES (?, ?)")
                    for o in objects { try insert.execute(arguments: [o["owningId"]?.stringValue, o["relatedId"]?.stringValue]) }
                    return .commit
                }
                let insert = try db.cachedStatement(sql: "INSERT INTO \(table) (\"objectId\", \"doc\") VALUES (?, ?)")
                for (i, object) in objects.enumerated() {
                    guard case .string(let id)? = object["objectId"] else {
                        throw QueryError(.data, "\(className)[\(i)]: an object needs a string objectId to be stored in SQL")
                    }
                    let json = JSONWriter.string(.object(object))
                    try SQLiteDatabase.markNUL(db, json)
                    try insert.execute(arguments: [id, json])
                }
                return .commit
            }
        } catch let e as QueryError {
            throw e
        } catch {
            throw SQLiteDatabase.queryError(error)
        }
    }
}
