import CQLEval
import CQLKit

extension PostgreSQLDatabase {
    /// `cql load --postgres`: as ``SQLiteDatabase/load(path:className:indexes:)``,
    /// in one transaction (`BEGIN` ... `COMMIT`; any error rolls back and
    /// names the file and line). JSONB cannot hold `\u0000`: such a string
    /// is a bad line. `indexes` creates the GIN `jsonb_path_ops` index on
    /// `doc` that serves equality and `in` on any key (the shapes are path
    /// tests on the whole document), then `ANALYZE`s.
    @discardableResult
    public func load(path: String, className: String? = nil, indexes: [String] = []) throws(QueryError) -> [String: Int] {
        let files = try DataFiles.files(at: path, className: className)
        var counts: [String: Int] = [:]
        try execute("BEGIN")
        do {
            for file in files {
                let n = try insert(file: file.path, className: file.className)
                counts[file.className, default: 0] += n
            }
            if !indexes.isEmpty {
                for table in try tableNames() where !table.hasPrefix("_Join:") { try createIndexes(table, keys: indexes) }
            }
            try execute("COMMIT")
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
        for table in try tableNames() { try execute("ANALYZE \(try PostgreSQLDialect().quote(table))") }
        return counts
    }

    /// Adds objects (already read) to `className`, in one transaction.
    public func insert(_ objects: [[String: Value]], into className: String) throws(QueryError) {
        try execute("BEGIN")
        do {
            try createTable(className)
            for (i, o) in objects.enumerated() { try insert(o, className, at: "\(className)[\(i)]") }
            try execute("COMMIT")
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rows one INSERT carries: a round trip per row made a 400k-object
    /// load take minutes.
    static let batchRows = 1000

    private func insert(file: String, className: String) throws(QueryError) -> Int {
        try createTable(className)
        var n = 0
        var batch: [(object: [String: Value], location: String, columns: [String])] = []
        try DataFiles.forEachObject(inFile: file) { (object, line) throws(QueryError) in
            let location = "\(file):\(line)"
            batch.append((object, location, try columns(object, className, at: location)))
            n += 1
            if batch.count == Self.batchRows {
                try insertBatch(batch, className)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try insertBatch(batch, className) }
        return n
    }

    /// The text columns of one row: objectId and the JSON text (or, for a
    /// join table, owningId and relatedId); bad data names its location.
    private func columns(_ object: [String: Value], _ className: String, at location: String) throws(QueryError) -> [String] {
        if className.hasPrefix("_Join:") {
            // Rows without both ids keep going through the one-row INSERT (NULLs).
            guard let o = object["owningId"]?.stringValue, let r = object["relatedId"]?.stringValue else { return [] }
            return [o, r]
        }
        guard case .string(let id)? = object["objectId"] else {
            throw QueryError(.data, "\(location): an object needs a string objectId to be stored in SQL")
        }
        let json = JSONWriter.string(.object(object))
        if json.contains("\\u0000") { throw QueryError(.data, "\(location): PostgreSQL's jsonb cannot hold a string with NUL (\\u0000)") }
        return [id, json]
    }

    /// One INSERT of many rows, the columns bound as two JSON arrays of
    /// strings (`json_array_elements_text` gives each string back exactly,
    /// so `raw` keeps the text byte for byte), in input order (`seq`). When
    /// the database refuses the batch (a duplicate objectId), it is undone
    /// to its savepoint and the rows go one by one, so the error names the
    /// file and line of the row at fault.
    private func insertBatch(_ batch: [(object: [String: Value], location: String, columns: [String])], _ className: String) throws(QueryError) {
        let table = try PostgreSQLDialect().quote(className)
        let first = Value.array(batch.map { .string($0.columns.first ?? "") })
        let second = Value.array(batch.map { .string($0.columns.count > 1 ? $0.columns[1] : "") })
        let sql = className.hasPrefix("_Join:")
            ? "INSERT INTO \(table) (\"owningId\", \"relatedId\") SELECT a.v, b.v"
            : "INSERT INTO \(table) (\"objectId\", \"doc\", \"raw\") SELECT a.v, b.v::jsonb, b.v"
        let rows = " FROM json_array_elements_text($1::json) WITH ORDINALITY AS a(v, n) "
            + "JOIN json_array_elements_text($2::json) WITH ORDINALITY AS b(v, n) ON a.n = b.n ORDER BY a.n"
        guard batch.allSatisfy({ !$0.columns.isEmpty }) else {
            for row in batch { try insert(row.object, className, at: row.location) }
            return
        }
        try execute("SAVEPOINT cql_load_batch")
        do {
            try execute(sql + rows, [.string(JSONWriter.string(first)), .string(JSONWriter.string(second))])
        } catch {
            try execute("ROLLBACK TO SAVEPOINT cql_load_batch")
            for row in batch { try insert(row.object, className, at: row.location) }
            throw QueryError(.data, "\(batch[0].location): \(error.message)")
        }
        try execute("RELEASE SAVEPOINT cql_load_batch")
    }

    private func insert(_ object: [String: Value], _ className: String, at location: String) throws(QueryError) {
        let table = try PostgreSQLDialect().quote(className)
        do throws(QueryError) {
            if className.hasPrefix("_Join:") {
                let owning: Value = object["owningId"]?.stringValue.map { .string($0) } ?? .null
                let related: Value = object["relatedId"]?.stringValue.map { .string($0) } ?? .null
                try execute("INSERT INTO \(table) (\"owningId\", \"relatedId\") VALUES ($1, $2)", [owning, related])
                return
            }
            guard case .string(let id)? = object["objectId"] else {
                throw QueryError(.data, "an object needs a string objectId to be stored in SQL")
            }
            let json = JSONWriter.string(.object(object))
            if json.contains("\\u0000") { throw QueryError(.data, "PostgreSQL's jsonb cannot hold a string with NUL (\\u0000)") }
            try execute("INSERT INTO \(table) (\"objectId\", \"doc\", \"raw\") VALUES ($1, $2::jsonb, $2)", [.string(id), .string(json)])
        } catch {
            let m = error.message.hasPrefix("postgres: ") ? String(error.message.dropFirst(10)) : error.message
            throw QueryError(.data, "\(location): \(m)")
        }
    }

    func createTable(_ className: String) throws(QueryError) {
        let d = PostgreSQLDialect()
        let table = try d.quote(className)
        if className.hasPrefix("_Join:") {
            try execute(PostgreSQLDatabase.joinTable(table))
            try execute("CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":owningId")) ON \(table) (\"owningId\")")
            try execute("CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":relatedId")) ON \(table) (\"relatedId\")")
        } else {
            try execute(PostgreSQLDatabase.classTable(table))
        }
    }

    /// The GIN index on the whole document (equality and `in` on any key),
    /// and per key of `--index` btree indexes on the expressions the range
    /// shapes use (``PostgreSQLDialect/indexedExpressions(forKey:)``): the
    /// number, the string (byte order) and the JSON type at the key.
    func createIndexes(_ className: String, keys: [String]) throws(QueryError) {
        let d = PostgreSQLDialect()
        let table = try d.quote(className)
        try execute("CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":doc")) ON \(table) USING GIN (\"doc\" jsonb_path_ops)")
        for key in keys {
            guard let expressions = PostgreSQLDialect.indexedExpressions(forKey: key) else {
                throw QueryError(.data, "--index: the key '\(key)' cannot be indexed (it holds NUL)")
            }
            for (suffix, e) in zip(["number", "string", "type"], expressions) {
                // Names past PostgreSQL's 63 bytes are refused by quote():
                // such an index goes unnamed (PostgreSQL picks a name).
                let name = (try? d.quote("\(className):\(key):\(suffix)")).map { "IF NOT EXISTS \($0) " } ?? ""
                try execute("CREATE INDEX \(name)ON \(table) (\(e))")
            }
        }
    }
}
