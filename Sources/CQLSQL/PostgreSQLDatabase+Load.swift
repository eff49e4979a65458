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
                for table in try tableNames() where !table.hasPrefix("_Join:") { try createIndexes(table) }
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

    private func insert(file: String, className: String) throws(QueryError) -> Int {
        try createTable(className)
        var n = 0
        try DataFiles.forEachObject(inFile: file) { (object, line) throws(QueryError) in
            try insert(object, className, at: "\(file):\(line)")
            n += 1
        }
        return n
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

    func createIndexes(_ className: String) throws(QueryError) {
        let d = PostgreSQLDialect()
        try execute("CREATE INDEX IF NOT EXISTS \(try d.quote(className + ":doc")) ON \(try d.quote(className)) USING GIN (\"doc\" jsonb_path_ops)")
    }
}
