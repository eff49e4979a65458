import CQLEval
import CQLKit

extension PostgreSQLDatabase {
    /// `cql load --postgres`: as ``SQLiteDatabase/load(path:className:indexes:progress:)``,
    /// in one transaction (`BEGIN` ... `COMMIT`; any error rolls back and
    /// names the file and line). JSONB cannot hold `\u0000`: such a string
    /// is a bad line. `indexes` creates the GIN `jsonb_path_ops` index on
    /// `doc` that serves equality and `in` on any key (the shapes are path
    /// tests on the whole document), then `ANALYZE`s.
    ///
    /// `progress`: a progress line on standard error when it is a terminal
    /// (`LoadProgress`).
    @discardableResult
    public func load(path: String, className: String?, indexes: [String], progress: Bool) throws(QueryError) -> [String: Int] {
        let files = try DataFiles.files(at: path, className: className)
        let meter = progress ? LoadProgress.onTerminal(files: files.map(\.path)) : nil
        defer { meter?.finish() }
        var counts: [String: Int] = [:]
        try execute("BEGIN")
        do {
            for file in files {
                let n = try insert(file: file.path, className: file.className, progress: meter)
                counts[file.className, default: 0] += n
            }
            if !indexes.isEmpty {
                for table in try tableNames() where !table.hasPrefix("_Join:") && !StateTableSQL.tables.contains(table) {
                    try createIndexes(table, keys: indexes)
                }
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
            var batch: [Row] = []
            if objects.contains(where: SQLStoredColumns.holdsArray) { try markDateArrays(className) }
            for (i, o) in objects.enumerated() {
                batch.append(try row(o, className, at: "\(className)[\(i)]"))
                if batch.count == Self.batchRows { try insert(batch, className); batch.removeAll(keepingCapacity: true) }
            }
            if !batch.isEmpty { try insert(batch, className) }
            try execute("COMMIT")
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// The rows one INSERT carries: a round trip per row made a 400k-object
    /// load take minutes.
    static let batchRows = 1000

    /// One row to insert: its two columns (objectId and the JSON text, or a
    /// join table's owningId and relatedId, NULL when missing) and where it
    /// came from, for errors.
    struct Row {
        var columns: [Value]
        var location: String
    }

    private func insert(file: String, className: String, progress: LoadProgress?) throws(QueryError) -> Int {
        try createTable(className)
        var n = 0
        var batch: [Row] = []
        var arrays = false
        try DataFiles.forEachObject(inFile: file, progress: progress) { (object, line) throws(QueryError) in
            batch.append(try row(object, className, at: "\(file):\(line)"))
            arrays = arrays || SQLStoredColumns.holdsArray(object)
            n += 1
            if batch.count == Self.batchRows {
                try insert(batch, className)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try insert(batch, className) }
        if arrays { try markDateArrays(className) }
        return n
    }

    /// The comment that marks a class table holding an array at createdAt or
    /// updatedAt (``SQLStoredColumns/holdsArray(_:)``): `cql run` then
    /// re-checks every row of the database in memory.
    static let dateArraysMark = "cql: an array at createdAt or updatedAt"

    func markDateArrays(_ className: String) throws(QueryError) {
        guard !className.hasPrefix("_Join:") else { return }
        try execute("COMMENT ON TABLE \(try PostgreSQLDialect().quote(className)) IS '\(Self.dateArraysMark)'")
    }

    /// The row of one object; bad data names its location.
    private func row(_ object: [String: Value], _ className: String, at location: String) throws(QueryError) -> Row {
        if className.hasPrefix("_Join:") {
            let owning: Value = object["owningId"]?.stringValue.map { .string($0) } ?? .null
            let related: Value = object["relatedId"]?.stringValue.map { .string($0) } ?? .null
            return Row(columns: [owning, related], location: location)
        }
        guard case .string(let id)? = object["objectId"] else {
            throw QueryError(.data, "\(location): an object needs a string objectId to be stored in SQL")
        }
        let dates = SQLStoredColumns.dateColumns(object)
        let json = JSONWriter.string(.object(object))
        if json.contains("\\u0000") { throw QueryError(.data, "\(location): PostgreSQL's jsonb cannot hold a string with NUL (\\u0000)") }
        return Row(columns: [.string(id), .string(json)] + dates, location: location)
    }

    /// A table's two INSERTs: many rows from two bound JSON arrays of
    /// column values (`$1`, `$2`), or one row from two bound values.
    private func insertSQL(_ className: String) throws(QueryError) -> (many: String, one: String) {
        let table = try PostgreSQLDialect().quote(className)
        let pairs = "FROM json_array_elements_text($1::json) WITH ORDINALITY AS a(v, n) "
            + "JOIN json_array_elements_text($2::json) WITH ORDINALITY AS b(v, n) ON a.n = b.n"
        if className.hasPrefix("_Join:") {
            let into = "INSERT INTO \(table) (\"owningId\", \"relatedId\") "
            return (into + "SELECT a.v, b.v \(pairs) ORDER BY a.n", into + "VALUES ($1, $2)")
        }
        // The date columns come as a third array of [createdAt, updatedAt] pairs.
        let into = "INSERT INTO \(table) (\"objectId\", \"doc\", \"raw\", \"createdAt\", \"updatedAt\") "
        return (
            into + "SELECT a.v, b.v::jsonb, b.v, (c.v ->> 0)::bigint, (c.v ->> 1)::bigint \(pairs) "
                + "JOIN json_array_elements($3::json) WITH ORDINALITY AS c(v, n) ON a.n = c.n ORDER BY a.n",
            into + "VALUES ($1, $2::jsonb, $2, $3, $4)"
        )
    }

    /// One INSERT of many rows, the columns bound as two JSON arrays
    /// (`json_array_elements_text` gives each string back exactly, so `raw`
    /// keeps the text byte for byte, and JSON null as NULL), in input order
    /// (`seq`). When the database refuses the batch (a duplicate objectId),
    /// it is undone to its savepoint and the rows go one by one, so the
    /// error names the file and line of the row at fault.
    private func insert(_ rows: [Row], _ className: String) throws(QueryError) {
        let sql = try insertSQL(className)
        let first = Value.array(rows.map { $0.columns[0] }), second = Value.array(rows.map { $0.columns[1] })
        var arrays = [Value.string(JSONWriter.string(first)), .string(JSONWriter.string(second))]
        if !className.hasPrefix("_Join:") { arrays.append(.string(JSONWriter.string(.array(rows.map { .array(Array($0.columns[2...])) })))) }
        try execute("SAVEPOINT cql_load_batch")
        do {
            try execute(sql.many, arrays)
        } catch {
            try execute("ROLLBACK TO SAVEPOINT cql_load_batch")
            for row in rows {
                do throws(QueryError) {
                    try execute(sql.one, row.columns)
                } catch {
                    let m = error.message.hasPrefix("postgres: ") ? String(error.message.dropFirst(10)) : error.message
                    throw QueryError(.data, "\(row.location): \(m)")
                }
            }
            throw QueryError(.data, "\(rows[0].location): \(error.message)")
        }
        try execute("RELEASE SAVEPOINT cql_load_batch")
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
            try createColumnIndexes(className)
            try createACLIndex(className)
        }
    }

    /// The btree indexes of the key and date columns that serve their orders
    /// and ranges (``SQLStoredColumns``): `objectId` in code-point order,
    /// the dates descending with NULLs last (read backwards for ascending).
    func createColumnIndexes(_ className: String) throws(QueryError) {
        let d = PostgreSQLDialect()
        let table = try d.quote(className)
        let columns = [("objectId", "\"objectId\" COLLATE \"C\"")] + SQLStoredColumns.dateKeys.map { ($0, "\"\($0)\" DESC NULLS LAST") }
        for (key, expression) in columns {
            // A name past PostgreSQL's 63 bytes is refused by quote(): such
            // a (rare, long) class goes without these indexes.
            guard let name = try? d.quote("\(className):\(key)") else { continue }
            try execute("CREATE INDEX IF NOT EXISTS \(name) ON \(table) (\(expression))")
        }
    }

    /// Brings class tables made before the date columns existed up to the
    /// layout (on connect): adds the columns, fills them from each document
    /// and indexes them, in one transaction.
    func migrate() throws(QueryError) {
        let stale = try strings(try execute("""
            SELECT c.relname::text FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
            AND c.relname NOT LIKE '\\_Join:%' AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'raw' AND NOT a.attisdropped)
            AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'createdAt' AND NOT a.attisdropped)
            """))
        guard !stale.isEmpty else { return }
        try execute("BEGIN")
        do {
            for className in stale {
                let table = try PostgreSQLDialect().quote(className)
                try execute("ALTER TABLE \(table) ADD COLUMN \"createdAt\" bigint, ADD COLUMN \"updatedAt\" bigint")
                var batch: [Value] = []
                func flush() throws(QueryError) {
                    try execute("UPDATE \(table) AS t SET \"createdAt\" = (x.v ->> 1)::bigint, \"updatedAt\" = (x.v ->> 2)::bigint "
                        + "FROM json_array_elements($1::json) AS x(v) WHERE t.\"objectId\" = x.v ->> 0", [.string(JSONWriter.string(.array(batch)))])
                    batch.removeAll(keepingCapacity: true)
                }
                for row in try execute("SELECT \"objectId\", \"raw\" FROM \(table)") {
                    let r = row.makeRandomAccess()
                    guard let id = r[data: 0].string, let raw = r[data: 1].string else { continue }
                    let object = try DataFiles.object(json: raw)
                    if SQLStoredColumns.holdsArray(object) { try markDateArrays(className) }
                    batch.append(.array([.string(id)] + SQLStoredColumns.dateColumns(object)))
                    if batch.count == Self.batchRows { try flush() }
                }
                if !batch.isEmpty { try flush() }
                try createColumnIndexes(className)
            }
            try execute("COMMIT")
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
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
            // The number and the string, each then createdAt: a range or an
            // equality on the value, and on a key that holds no array
            // (arrayFreeKeys) an order after the equality — a Valine page,
            // `url = ? order by -createdAt limit 10` — reads its rows in order.
            for (suffix, e) in zip(["number", "string", "type"], expressions) {
                // Names past PostgreSQL's 63 bytes are refused by quote():
                // such an index goes unnamed (PostgreSQL picks a name).
                let name = (try? d.quote("\(className):\(key):\(suffix)")).map { "IF NOT EXISTS \($0) " } ?? ""
                let columns = suffix == "type" ? e : "\(e), \"createdAt\" DESC NULLS LAST"
                try execute("CREATE INDEX \(name)ON \(table) (\(columns))")
            }
        }
    }
}

extension PostgreSQLDatabase {
    /// `cql index`: the indexes `load --index` makes for `keys`, on every
    /// class table there is now (or on those of `only` that exist), then
    /// fresh statistics.
    /// - Returns: the class tables indexed.
    @discardableResult
    public func addIndexes(keys: [String], only: Set<String>?) throws(QueryError) -> [String] {
        let classes = try tableNames().filter { !$0.hasPrefix("_Join:") && only?.contains($0) != false }.sorted()
        for c in classes {
            try createIndexes(c, keys: keys)
            try execute("ANALYZE \(try PostgreSQLDialect().quote(c))")
        }
        return classes
    }
}
