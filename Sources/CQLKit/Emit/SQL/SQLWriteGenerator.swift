/// `cql translate --to sql` of a write statement.
///
/// An insert is one `INSERT` of every row, each object built as `cql exec`
/// builds it (the columns' values, a fresh objectId, createdAt = updatedAt =
/// `now`), bound as JSON text: exact. Updates and deletes are a named error:
/// `cql exec --sqlite|--postgres` applies them by reading the object,
/// applying the op semantics of cql.md and writing it back in one
/// transaction, because no single SQL text means the same — `json_set` /
/// `jsonb_set` cannot keep the exact number text (`jsonb` prints `1e2` as
/// `100`), AddUnique compares by semantic equality, and the relation rows a
/// delete removes (`_Join:<key>:<Class>`) depend on the tables the database
/// holds.
///
/// ```swift
/// let s = try Binder.bind(try CQLParser.parseStatement("insert into Todo(title) values ('milk')"), parameters: [])
/// try SQLWriteGenerator.translate(s, dialect: .sqlite, now: DateValue(millisecondsSince1970: 0), newObjectId: { "t1" }).sql
/// // INSERT INTO "Todo" ("objectId", "doc") VALUES (?1, ?2)
/// // arguments: ["t1", "{\"createdAt\":\"1970-01-01T00:00:00.000Z\",\"objectId\":\"t1\",\"title\":\"milk\",...}"]
/// ```
public enum SQLWriteGenerator {
    public static func translate(
        _ statement: Statement, dialect name: SQLDialectName, now: DateValue, newObjectId: () -> String
    ) throws(QueryError) -> SQLStatement {
        switch statement {
        case .select(let q):
            throw QueryError(.unsupported, "a select is a query: translate it with SQLGenerator", range: q.range)
        case .insert(let s):
            return try insert(s, dialect: name, now: now, newObjectId: newObjectId)
        case .update(let s):
            throw QueryError(.unsupported, "\(name.rawValue): an update has no SQL text of the same meaning; "
                + "apply it with cql exec --sqlite FILE or --postgres URL (it reads the object, applies the ops and writes it back in one transaction)",
                range: s.range)
        case .delete(let s):
            throw QueryError(.unsupported, "\(name.rawValue): a delete also removes the relation rows its object owns, "
                + "which depend on the database's tables; apply it with cql exec --sqlite FILE or --postgres URL",
                range: s.range)
        }
    }

    static func insert(
        _ s: InsertStatement, dialect name: SQLDialectName, now: DateValue, newObjectId: () -> String
    ) throws(QueryError) -> SQLStatement {
        let dialect: any SQLDialect = name == .sqlite ? SQLiteDialect() : PostgreSQLDialect()
        let stamp = Value.string(ISODate.format(now))
        var ctx = SQLContext(dialect: dialect)
        var rows: [String] = []
        var ids = Set<String>()
        for row in s.rows {
            var object: [String: Value] = [:]
            for (column, term) in zip(s.columns, row) {
                guard case .value(let v) = term else {
                    throw QueryError(.binding, "the statement is not bound: a '?' or current_timestamp() has no value", range: s.range)
                }
                object[column.name] = v
            }
            var id = newObjectId()
            for _ in 0..<100 where id.isEmpty || ids.contains(id) { id = newObjectId() }
            ids.insert(id)
            object["objectId"] = .string(id)
            object["createdAt"] = stamp
            object["updatedAt"] = stamp
            let json = JSONWriter.string(.object(object))
            if name == .postgres && json.contains("\\u0000") {
                throw QueryError(.unsupported, "postgres: jsonb cannot hold a string with NUL (\\u0000)", range: s.range)
            }
            let p = ctx.bind(.string(id)), d = ctx.bind(.string(json))
            rows.append(name == .sqlite ? "(\(p), \(d))" : "(\(p), \(d)::jsonb, \(d))")
        }
        let columns = name == .sqlite ? "(\"objectId\", \"doc\")" : "(\"objectId\", \"doc\", \"raw\")"
        return SQLStatement(sql: "INSERT INTO \(try dialect.quote(s.className)) \(columns) VALUES " + rows.joined(separator: ", "),
                            arguments: ctx.arguments)
    }
}
