/// SQL text with `?` / `$n` placeholders and the values bound to them, in
/// placeholder order. Values never enter the text; identifiers are quoted.
///
/// ```swift
/// let t = try SQLGenerator.translate(query, dialect: .sqlite)   // select * from T where score > 80
/// t.select.sql        // SELECT t0."objectId", t0."doc" FROM "T" AS t0 WHERE (...) ORDER BY t0.rowid
/// t.select.arguments  // [80]
/// ```
public struct SQLStatement: Hashable, Sendable {
    public var sql: String
    /// Scalars only: `.null`, `.bool`, `.int`, `.double`, `.string`.
    public var arguments: [Value]

    public init(sql: String, arguments: [Value]) {
        self.sql = sql
        self.arguments = arguments
    }

    /// `{"sql": ..., "arguments": [...]}`, what `cql translate --to sql` prints.
    public var json: Value { .object(["sql": .string(sql), "arguments": .array(arguments)]) }

    /// ``json`` written as compact JSON straight into `out`, byte for byte
    /// what `JSONWriter` writes for it (keys in code-point order), without
    /// building the object first.
    public func write(to out: inout [UInt8]) {
        out.append(contentsOf: "{\"arguments\":".utf8)
        JSONWriter.write(.array(arguments), to: &out)
        out.append(contentsOf: ",\"sql\":".utf8)
        JSONWriter.writeString(sql, &out)
        out.append(UInt8(ascii: "}"))
    }
}

/// What the generator made of one query for one dialect.
///
/// `select` returns the columns `objectId` and `doc` (the whole stored
/// object) of the matching rows in result order. Projection (`keys`) and
/// `include` are applied to the fetched objects afterwards, with the
/// evaluator's own rules; ``json`` lists them as `keys` and `include`.
public struct SQLTranslation: Sendable {
    /// The rows, filtered, ordered and paged.
    public var select: SQLStatement
    /// `SELECT count(*)` of the matches (before skip/limit), when the query counts.
    public var count: SQLStatement?
    /// Whether the WHERE clause is exactly the query's condition (else it is a
    /// superset: a prefilter whose rows must be re-checked).
    public var whereIsExact: Bool
    /// Whether ORDER BY / LIMIT / OFFSET are the query's own (else rows come
    /// in input order, unpaged, and must be sorted and paged afterwards).
    public var orderIsExact: Bool
    /// The parts of the query that did not run exactly in the database,
    /// described for `cql explain` / `cql run --explain`.
    public var rechecked: [String]
    /// The query this translation is for.
    public var query: Query

    public init(
        select: SQLStatement, count: SQLStatement?, whereIsExact: Bool, orderIsExact: Bool, rechecked: [String], query: Query
    ) {
        self.select = select
        self.count = count
        self.whereIsExact = whereIsExact
        self.orderIsExact = orderIsExact
        self.rechecked = rechecked
        self.query = query
    }

    /// Whether the database answers alone.
    public var isExact: Bool { whereIsExact && orderIsExact }

    /// `{"sql": ..., "arguments": [...]}`, plus `count` (the count
    /// statement), `keys` and `include` (applied to the fetched objects) when
    /// the query has them.
    public var json: Value {
        guard case .object(var o) = select.json else { return select.json }
        if let count { o["count"] = count.json }
        if !query.keys.isEmpty {
            o["keys"] = .array(query.keys.map { .string(($0.excluded ? "-" : "") + $0.path.dotted) })
        }
        if !query.includes.isEmpty { o["include"] = .array(query.includes.map { .string($0.dotted) }) }
        return .object(o)
    }

    /// ``json`` written as compact JSON straight into `out`, byte for byte
    /// what `JSONWriter` writes for it (keys in code-point order:
    /// `arguments`, `count`, `include`, `keys`, `sql`), without building the
    /// object first: `translate --lines --to sql` writes every line so.
    ///
    /// ```swift
    /// var out: [UInt8] = []
    /// try SQLGenerator.translate(query, dialect: .sqlite).write(to: &out)
    /// // {"arguments":[80],"sql":"SELECT t0.\"objectId\", ..."}
    /// ```
    public func write(to out: inout [UInt8]) {
        out.append(contentsOf: "{\"arguments\":".utf8)
        JSONWriter.write(.array(select.arguments), to: &out)
        if let count {
            out.append(contentsOf: ",\"count\":".utf8)
            count.write(to: &out)
        }
        if !query.includes.isEmpty {
            out.append(contentsOf: ",\"include\":".utf8)
            JSONWriter.write(.array(query.includes.map { .string($0.dotted) }), to: &out)
        }
        if !query.keys.isEmpty {
            out.append(contentsOf: ",\"keys\":".utf8)
            JSONWriter.write(.array(query.keys.map { .string(($0.excluded ? "-" : "") + $0.path.dotted) }), to: &out)
        }
        out.append(contentsOf: ",\"sql\":".utf8)
        JSONWriter.writeString(select.sql, &out)
        out.append(UInt8(ascii: "}"))
    }
}
