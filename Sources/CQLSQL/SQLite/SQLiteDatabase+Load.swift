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
    /// (`json_extract("doc", '$."k"')`) and its JSON type. Ends with an
    /// `ANALYZE` of the tables of ``analyzedRows`` rows or more, as
    /// the PostgreSQL load analyzes its tables.
    /// `progress`: a progress line on standard error when it is a terminal
    /// (`LoadProgress`).
    ///
    /// - Returns: the number of objects imported per table.
    @discardableResult
    public func load(path: String, className: String?, indexes: [String], progress: Bool) throws(QueryError) -> [String: Int] {
        let files = try DataFiles.files(at: path, className: className)
        let meter = progress ? LoadProgress.onTerminal(files: files.map(\.path)) : nil
        defer { meter?.finish() }
        var counts: [String: Int] = [:]
        do {
            // Immediate: the write lock first (waited for: a served file), not
            // a read snapshot that a server's commit would then make stale.
            try queue.inTransaction(.immediate) { db in
                for file in files {
                    let table = try SQLiteDialect().quote(file.className)
                    let isJoin = file.className.hasPrefix("_Join:")
                    try SQLiteDatabase.createTable(db, file.className)
                    let sql = isJoin
                        ? "INSERT INTO \(table) (\"owningId\", \"relatedId\") VALUES (?, ?)"
                        : SQLiteDatabase.insertObjectSQL(table)
                    let insert = try db.cachedStatement(sql: sql)
                    var n = 0
                    try DataFiles.forEachObject(inFile: file.path, progress: meter) { (object, line) throws(QueryError) in
                        do {
                            if isJoin {
                                try insert.execute(arguments: [object["owningId"]?.stringValue, object["relatedId"]?.stringValue])
                            } else {
                                guard case .string(let id)? = object["objectId"] else {
                                    throw QueryError(.data, "\(file.path):\(line): an object needs a string objectId to be stored in SQL")
                                }
                                let dates = SQLStoredColumns.dateColumns(object)
                                let json = JSONWriter.string(.object(object))
                                try SQLiteDatabase.mark(db, json, object)
                                try insert.execute(arguments: SQLiteDatabase.arguments([.string(id), .string(json)] + dates))
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
                try SQLiteDatabase.indexClassTables(db, keys: indexes)
                return .commit
            }
        } catch let e as QueryError {
            throw e
        } catch {
            throw SQLiteDatabase.queryError(error)
        }
        return counts
    }

    /// Statistics of the tables large enough for the plan to matter, so
    /// that the planner tells a type index (`json_type(...) = 'text'`: one
    /// value for most rows) from a value index, and an early-stopping walk
    /// of a date index from a sort.
    ///
    /// Whole indexes are read, not a sample (`analysis_limit` 0): a sample
    /// of a value index's first entries, when each value holds many rows,
    /// makes it look no better than the type index (SQLiteLoadTests).
    static func analyze(_ db: Database, _ classes: [String]) throws {
        try db.execute(sql: "PRAGMA analysis_limit = 0")
        for c in classes {
            let table = try SQLiteDialect().quote(c)
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM \(table) LIMIT \(SQLiteDatabase.analyzedRows))") ?? 0
            if rows >= SQLiteDatabase.analyzedRows { try db.execute(sql: "ANALYZE \(table)") }
        }
    }

    /// The size from which `load` analyzes a table (smaller ones keep
    /// SQLite's default estimates, which favour the indexes).
    public static let analyzedRows = 1000

    /// The SQL condition leaving out SQLite's own tables (`sqlite_stat1`).
    static let notInternal = "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"

    static func createTable(_ db: Database, _ className: String) throws {
        let d = SQLiteDialect()
        let table = try d.quote(className)
        if className.hasPrefix("_Join:") {
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (\"owningId\" TEXT, \"relatedId\" TEXT)")
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":owningId")) ON \(table) (\"owningId\")")
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":relatedId")) ON \(table) (\"relatedId\")")
        } else {
            try db.execute(sql: classTable(table))
            try createDateIndexes(db, className)
        }
    }

    /// A class table: the key, the document, and the date columns
    /// (``SQLStoredColumns``: integer milliseconds, NULL when not a Date).
    static func classTable(_ table: String, temporary: Bool = false) -> String {
        "CREATE \(temporary ? "TEMP " : "")TABLE IF NOT EXISTS \(table) (\"objectId\" TEXT PRIMARY KEY, \"doc\" TEXT NOT NULL, \"createdAt\" INTEGER, \"updatedAt\" INTEGER)"
    }

    /// The INSERT of one object into a class table: objectId, doc and the date columns.
    static func insertObjectSQL(_ table: String) -> String {
        "INSERT INTO \(table) (\"objectId\", \"doc\", \"createdAt\", \"updatedAt\") VALUES (?, ?, ?, ?)"
    }

    /// The indexes of the date columns, which serve their orders and ranges.
    static func createDateIndexes(_ db: Database, _ className: String) throws {
        let d = SQLiteDialect()
        for key in SQLStoredColumns.dateKeys {
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(try d.quote("\(className):\(key)")) ON \(try d.quote(className)) (\"\(key)\")")
        }
    }

    /// Brings class tables made before the date columns existed up to the
    /// layout (on open): adds the columns, fills them from each document
    /// and indexes them, in one transaction.
    static func migrate(_ queue: DatabaseQueue) throws {
        let stale = try queue.read { db in
            try String.fetchAll(db, sql: """
                SELECT m.name FROM sqlite_master AS m WHERE m.type = 'table' AND m.name NOT LIKE '\\_Join:%' ESCAPE '\\'
                AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'doc')
                AND NOT EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'createdAt')
                """)
        }
        guard !stale.isEmpty else { return }
        try queue.inTransaction(.immediate) { db in
            for className in stale {
                let table = try SQLiteDialect().quote(className)
                for key in SQLStoredColumns.dateKeys { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \"\(key)\" INTEGER") }
                let update = try db.makeStatement(sql: "UPDATE \(table) SET \"createdAt\" = ?, \"updatedAt\" = ? WHERE rowid = ?")
                let rows = try Row.fetchCursor(db, sql: "SELECT rowid, \"doc\" FROM \(table)")
                var pending: [(Int64, [Value])] = []
                while let row = try rows.next() {
                    let object = try DataFiles.object(json: row[1])
                    if SQLStoredColumns.holdsArray(object) { try SQLiteDatabase.mark(db, .dateArrays) }
                    pending.append((row[0], SQLStoredColumns.dateColumns(object)))
                }
                for (rowid, dates) in pending { try update.execute(arguments: SQLiteDatabase.arguments(dates + [.int(rowid)])) }
                try createDateIndexes(db, className)
            }
            return .commit
        }
    }

    /// The `--index` indexes of `keys` on every class table (not the
    /// `_Join:` tables), then fresh statistics (load and `cql index`).
    /// - Returns: the class tables, by name.
    @discardableResult
    static func indexClassTables(_ db: Database, keys: [String], only: Set<String>? = nil) throws -> [String] {
        let classes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_Join:%' ESCAPE '\\' AND \(SQLiteDatabase.notInternal) ORDER BY name")
            .filter { only?.contains($0) != false }
        for c in classes {
            for key in keys { try createIndexes(db, className: c, key: key) }
        }
        try analyze(db, classes)
        return classes
    }

    /// The indexes for the shapes of a one-step key: its value, then its
    /// type and createdAt (a range or an equality on the value; with the
    /// type, an equality on a key that holds no array is answered from the
    /// index alone, a count too, and a Valine page — `url = ? order by
    /// -createdAt limit 10` — reads its ten rows in order); and its type
    /// (the array branch of the equality OR, and the probe that proves no
    /// array is there: ``SQLiteDatabase/arrayFreeKeys(_:among:)``).
    static func createIndexes(_ db: Database, className: String, key: String) throws {
        let d = SQLiteDialect()
        guard let expressions = SQLiteDialect.indexedExpressions(forKey: key) else {
            throw QueryError(.unsupported, "sqlite: cannot index the key '\(key)'")
        }
        let table = try d.quote(className)
        let (value, type) = (expressions[0], expressions[1])
        for (columns, suffix) in [("\(value), \(type), \"createdAt\"", "value"), (type, "type")] {
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(try d.quote("\(className):\(key):\(suffix)")) ON \(table) (\(columns))")
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
                let insert = try db.cachedStatement(sql: SQLiteDatabase.insertObjectSQL(table))
                for (i, object) in objects.enumerated() {
                    guard case .string(let id)? = object["objectId"] else {
                        throw QueryError(.data, "\(className)[\(i)]: an object needs a string objectId to be stored in SQL")
                    }
                    let dates = SQLStoredColumns.dateColumns(object)
                    let json = JSONWriter.string(.object(object))
                    try SQLiteDatabase.mark(db, json, object)
                    try insert.execute(arguments: SQLiteDatabase.arguments([.string(id), .string(json)] + dates))
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

extension SQLiteDatabase {
    /// `cql index`: the indexes `load --index` makes for `keys`, on every
    /// class table there is now, or on those of `only` that exist (a
    /// running `cql serve` may go on: the file is shared), then fresh
    /// statistics.
    /// - Returns: the class tables indexed.
    @discardableResult
    public func addIndexes(keys: [String], only: Set<String>?) throws(QueryError) -> [String] {
        var classes: [String] = []
        do {
            try queue.inTransaction(.immediate) { db in
                classes = try SQLiteDatabase.indexClassTables(db, keys: keys, only: only)
                return .commit
            }
        } catch let e as QueryError {
            throw e
        } catch {
            throw QueryError(.data, "sqlite: \(SQLiteDatabase.message(error))")
        }
        return classes
    }
}
