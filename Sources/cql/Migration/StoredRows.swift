import CQLEval
import CQLKit
import CQLSQL

/// The database's rows as the migration commands (`files fetch`, `dump`,
/// `pull`) read and write them, the same on SQLite and PostgreSQL: a class
/// table's objects as their stored JSON text, a page at a time in objectId
/// order (keyset paging: constant memory however large the class), and a
/// join table's rows a page at a time in insertion order.
///
/// ```swift
/// let rows = StoredRows(db)
/// try rows.forEachPage(of: "Comment") { texts in ... }   // 1,000 JSON texts a call
/// try rows.write { s throws(QueryError) in try StoredRows.upsert("a1", json: text, className: "Comment", in: s) }
/// ```
struct StoredRows {
    let db: any SQLDatabaseWriter

    init(_ db: any SQLDatabaseWriter) { self.db = db }

    var isPostgres: Bool { db.dialect == .postgres }

    func quote(_ name: String) throws(QueryError) -> String { try db.dialect.dialect.quote(name) }
    func p(_ n: Int) -> String { db.dialect.dialect.placeholder(n) }

    /// The column holding an object's exact text (PostgreSQL keeps it in `raw`
    /// beside the `jsonb` that queries read).
    var textColumn: String { isPostgres ? "\"raw\"" : "\"doc\"" }
    /// objectId in code-point order (PostgreSQL: the `C` collation its index has).
    var orderedId: String { isPostgres ? "\"objectId\" COLLATE \"C\"" : "\"objectId\"" }

    /// The tables present, by kind: classes (no `:` in the name), relations'
    /// `_Join:<key>:<Owner>` tables, the server's own `cql:` tables.
    func tables() throws(QueryError) -> (classes: [String], joins: [String], internal: [String]) {
        let all = try db.tableNames().sorted()
        return (all.filter { !$0.contains(":") }, all.filter { $0.hasPrefix("_Join:") }, all.filter { $0.hasPrefix("cql:") })
    }

    /// The stored JSON text of every object of `className`, `pageSize` at a
    /// time, in objectId order, starting after `after`.
    func forEachPage(of className: String, pageSize: Int = 1000, after: String? = nil,
                     _ body: ([String]) throws(QueryError) -> Void) throws(QueryError) {
        let table = try quote(className)
        var last = after
        while true {
            let condition = last == nil ? "" : "WHERE \(orderedId) > \(p(1)) "
            let sql = "SELECT \(textColumn) AS \"doc\" FROM \(table) \(condition)ORDER BY \(orderedId) LIMIT \(pageSize)"
            let texts = try db.documents(SQLStatement(sql: sql, arguments: last.map { [.string($0)] } ?? []))
            if texts.isEmpty { return }
            try body(texts)
            if texts.count < pageSize { return }
            guard case .string(let id)? = try DataFiles.object(json: texts[texts.count - 1])["objectId"] else {
                throw QueryError(.data, "\(className): a stored object without a string objectId")
            }
            last = id
        }
    }

    /// The stored texts of the objects `ids` of `className` (those present), by objectId.
    func objects(_ ids: [String], in className: String) throws(QueryError) -> [String: String] {
        guard !ids.isEmpty, try db.tableNames().contains(className) else { return [:] }
        var out: [String: String] = [:]
        let table = try quote(className)
        try Self.inChunks(ids, db.dialect.dialect) { (list, arguments) throws(QueryError) in
            let sql = "SELECT \(textColumn) AS \"doc\" FROM \(table) WHERE \"objectId\" IN (\(list))"
            for text in try db.documents(SQLStatement(sql: sql, arguments: arguments)) {
                if case .string(let id)? = try DataFiles.object(json: text)["objectId"] { out[id] = text }
            }
        }
        return out
    }

    /// The same inside a write transaction, parsed.
    func objects(_ ids: [String], in className: String, session s: any SQLWriteSession) throws(QueryError) -> [String: [String: Value]] {
        var out: [String: [String: Value]] = [:]
        let table = try quote(className)
        try Self.inChunks(ids, s.dialect.dialect) { (list, arguments) throws(QueryError) in
            let sql = "SELECT \(textColumn) FROM \(table) WHERE \"objectId\" IN (\(list))"
            for text in try s.documents(SQLStatement(sql: sql, arguments: arguments)) {
                let o = try DataFiles.object(json: text)
                if case .string(let id)? = o["objectId"] { out[id] = o }
            }
        }
        return out
    }

    /// `ids` 500 at a time, with the placeholders of an `IN (...)` list of them.
    static func inChunks(_ ids: [String], _ d: any SQLDialect, _ body: (String, [Value]) throws(QueryError) -> Void) throws(QueryError) {
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + 500, ids.count)]
            start += chunk.count
            try body((1...chunk.count).map { d.placeholder($0) }.joined(separator: ", "), chunk.map { .string($0) })
        }
    }

    /// Every objectId of `className`, in objectId order.
    func objectIds(of className: String) throws(QueryError) -> [String] {
        guard try db.tableNames().contains(className) else { return [] }
        let json = isPostgres ? "json_build_object('objectId', \"objectId\")::text" : "json_object('objectId', \"objectId\")"
        let texts = try db.documents(SQLStatement(sql: "SELECT \(json) AS \"doc\" FROM \(try quote(className)) ORDER BY \(orderedId)", arguments: []))
        var ids: [String] = []
        ids.reserveCapacity(texts.count)
        for t in texts { if case .string(let id)? = try DataFiles.object(json: t)["objectId"] { ids.append(id) } }
        return ids
    }

    /// The number of rows of a table (0 when it is missing).
    func count(_ table: String) throws(QueryError) -> Int {
        guard try db.tableNames().contains(table) else { return 0 }
        return try db.integer(SQLStatement(sql: "SELECT count(*) FROM \(try quote(table))", arguments: []))
    }

    /// A join table's rows, `pageSize` at a time, in the order they were added.
    func forEachJoinPage(of table: String, pageSize: Int = 5000,
                         _ body: ([(owningId: String?, relatedId: String?)]) throws(QueryError) -> Void) throws(QueryError) {
        let name = try quote(table)
        let order = isPostgres ? "\"seq\"" : "rowid"
        let json = isPostgres
            ? "json_build_object('o', \"owningId\", 'r', \"relatedId\", 's', \"seq\")::text"
            : "json_object('o', \"owningId\", 'r', \"relatedId\", 's', rowid)"
        var last: Int64 = -1
        while true {
            let sql = "SELECT \(json) AS \"doc\" FROM \(name) WHERE \(order) > \(p(1)) ORDER BY \(order) LIMIT \(pageSize)"
            let texts = try db.documents(SQLStatement(sql: sql, arguments: [.int(last)]))
            if texts.isEmpty { return }
            var rows: [(owningId: String?, relatedId: String?)] = []
            rows.reserveCapacity(texts.count)
            for t in texts {
                let o = try DataFiles.object(json: t)
                rows.append((o["o"]?.stringValue, o["r"]?.stringValue))
                if case .int(let s)? = o["s"] { last = s }
            }
            try body(rows)
            if texts.count < pageSize { return }
        }
    }

    /// Runs `body` in one write transaction (PostgreSQL: under the advisory
    /// lock every write of this project takes).
    func write(_ body: (any SQLWriteSession) throws(QueryError) -> Void) throws(QueryError) {
        try db.inWriteTransaction(body)
    }

    /// Stores the object `json` under `id`: replaces the row, or adds it.
    static func upsert(_ id: String, json: String, className: String, in s: any SQLWriteSession) throws(QueryError) {
        if try s.replaceObject(id, json: json, in: className) == 0 { try s.insertObject(id, json: json, into: className) }
    }

    /// Deletes the objects `ids` of `className` and their rows in the join
    /// tables `joins` they own.
    static func delete(_ ids: [String], className: String, joins: [String], in s: any SQLWriteSession) throws(QueryError) {
        let d = s.dialect.dialect
        for id in ids {
            try s.execute(SQLStatement(sql: "DELETE FROM \(try d.quote(className)) WHERE \"objectId\" = \(d.placeholder(1))", arguments: [.string(id)]))
            for j in joins {
                try s.execute(SQLStatement(sql: "DELETE FROM \(try d.quote(j)) WHERE \"owningId\" = \(d.placeholder(1))", arguments: [.string(id)]))
            }
        }
    }

    /// Makes `owningId`'s rows of the join table exactly `relatedIds`.
    static func replaceJoinRows(_ table: String, owningId: String, relatedIds: [String], in s: any SQLWriteSession) throws(QueryError) {
        let d = s.dialect.dialect
        try s.createTable(table)
        let name = try d.quote(table)
        try s.execute(SQLStatement(sql: "DELETE FROM \(name) WHERE \"owningId\" = \(d.placeholder(1))", arguments: [.string(owningId)]))
        for r in relatedIds {
            try s.execute(SQLStatement(sql: "INSERT INTO \(name) (\"owningId\", \"relatedId\") VALUES (\(d.placeholder(1)), \(d.placeholder(2)))",
                                       arguments: [.string(owningId), .string(r)]))
        }
    }
}
