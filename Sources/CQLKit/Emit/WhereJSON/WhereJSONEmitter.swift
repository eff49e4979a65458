/// The where-JSON backend: a bound ``Query`` as the REST request object of
/// LeanCloud, Parse Server or a MongoDB filter, in one of three
/// ``WhereJSONDialect``s.
///
/// The object holds `className`, `where`, `order`, `skip`, `limit`, `keys`,
/// `include`, `count` and (LeanCloud only) `returnACL`, each only when set. Conditions merge the idiomatic
/// way (one object per AND, `$and` only where keys collide). A construct the
/// dialect cannot express is an `.unsupported` error naming it and the
/// dialect; an unbound `?` is a `.binding` error. Print the result with
/// ``JSONWriter`` (sorted keys, compact).
///
/// ```swift
/// let q = try CQLParser.parse("select * from GameScore where name is exists and score > 80 and score <= 100 order by -score limit 10")
/// JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .leancloud))
/// // {"className":"GameScore","limit":10,"order":"-score","where":{"name":{"$exists":true},"score":{"$gt":80,"$lte":100}}}
/// ```
public enum WhereJSONEmitter {
    /// The request object of `query` (bind it first: placeholders, `current_timestamp()`).
    ///
    /// - Parameters:
    ///   - query: a bound query.
    ///   - dialect: the target (``WhereJSONDialect``); a construct it cannot
    ///     express throws a ``QueryError/Kind/unsupported`` error.
    ///   - objectIdAsMongoId: `mongo` only: write the built-in
    ///     `objectId` key as MongoDB's `_id` (in `where`, `order` and `keys`), for
    ///     collections that store it there. The other dialects ignore it.
    ///
    /// ```swift
    /// let q = try CQLParser.parse("select * from T where objectId in ('a', 'b') order by objectId")
    /// JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .mongo, objectIdAsMongoId: true))
    /// // {"className":"T","order":"_id","where":{"_id":{"$in":["a","b"]}}}
    /// ```
    public static func emit(_ query: Query, dialect: WhereJSONDialect, objectIdAsMongoId: Bool = false) throws(QueryError) -> Value {
        var table = dialect.table
        if objectIdAsMongoId && dialect == .mongo { table.objectIdKey = "_id" }
        do throws(QueryError) {
            return try request(query, table: table)
        } catch {
            throw query.source.map { error.withSource($0) } ?? error
        }
    }

    private static func request(_ query: Query, table: WhereJSONDialectTable) throws(QueryError) -> Value {
        let parts = try RequestParts(query, table: table)
        var o: [String: Value] = [:]
        if let c = parts.className { o["className"] = .string(c) }
        if let w = parts.where { o["where"] = w }
        if let order = parts.order { o["order"] = .string(order) }
        if let s = parts.skip { o["skip"] = s }
        if let l = parts.limit { o["limit"] = l }
        if let keys = parts.keys { o["keys"] = .string(keys) }
        if let include = parts.include { o["include"] = .string(include) }
        if parts.count { o["count"] = .int(1) }
        if parts.returnACL { o["returnACL"] = .string("true") }
        return .object(o)
    }

    /// The members of a request object, each checked (and its error thrown)
    /// in a fixed order, so that ``emit(_:dialect:objectIdAsMongoId:)`` and
    /// ``write(_:dialect:objectIdAsMongoId:to:)`` fail alike.
    struct RequestParts {
        var className: String?
        var `where`: Value?
        var order: String?
        var skip: Value?
        var limit: Value?
        var keys: String?
        var include: String?
        /// `"count":1`
        var count = false
        /// `"returnACL":"true"` (the string, as the LeanCloud SDKs send it).
        var returnACL = false

        init(_ query: Query, table: WhereJSONDialectTable) throws(QueryError) {
            let emitter = ConditionEmitter(table: table)
            if !query.className.isEmpty { className = query.className }
            guard query.direct.isEmpty else { throw table.unsupported("direct", range: query.range) }
            if let c = query.condition { self.where = whereObject(try emitter.object(c)) }
            (order, skip, limit) = try paging(query, table: table)
            if !query.keys.isEmpty {
                var keys: [String] = []
                for k in query.keys {
                    if let alias = k.alias {
                        throw QueryError(.unsupported, "the key alias '\(alias)' (of '\(k.path.dotted)') cannot be expressed in the \(table.name) where-JSON dialect", range: query.range)
                    }
                    keys.append((k.excluded ? "-" : "") + (try listItem(emitter.key(k.path, query.range), "keys", marks: "-", table, query.range)))
                }
                self.keys = keys.joined(separator: ",")
            }
            if !query.includes.isEmpty {
                var paths: [String] = []
                for p in query.includes { paths.append(try listItem(emitter.key(p, query.range), "include", marks: "", table, query.range)) }
                include = paths.joined(separator: ",")
            }
            switch query.count {
            case .none: break
            case .only:
                // The count alone: no results (the server's `count=1&limit=0`).
                count = true
                limit = .int(0)
            case .withResults:
                count = true
            }
            if query.returnACL {
                guard table.supports(.returnACL) else { throw table.unsupported("returnACL", range: query.range) }
                returnACL = true
            }
        }
    }

    /// Just the `where` object of `condition`.
    ///
    /// ```swift
    /// let c = Condition.or([Condition(.compare("a", .equal, .value(1))), Condition(.exists("b", false))])
    /// JSONWriter.string(try WhereJSONEmitter.emitCondition(c, dialect: .parse))
    /// // {"$or":[{"a":1},{"b":{"$exists":false}}]}
    /// ```
    public static func emitCondition(_ condition: Condition, dialect: WhereJSONDialect) throws(QueryError) -> Value {
        try ConditionEmitter(table: dialect.table).object(condition)
    }

    /// The `where` of a request: absent when it would be `{}` (a condition
    /// that is always true), as for a query without a condition — the
    /// reader reads `{}` as no condition.
    static func whereObject(_ w: Value) -> Value? {
        if case .object(let o) = w, o.isEmpty { return nil }
        return w
    }

    /// A key of the comma-separated `order`, `keys` or `include` lists, which
    /// readers split at `,`, trim of spaces, and read a leading mark of
    /// (`-` descending or excluded, `+` ascending): a key with such
    /// characters there cannot be written.
    static func listItem(_ key: String, _ list: String, marks: String, _ table: WhereJSONDialectTable, _ range: SourceRange?)
        throws(QueryError) -> String
    {
        let leadingMark = key.unicodeScalars.first.map { marks.unicodeScalars.contains($0) } ?? false
        if key.contains(",") || key.hasPrefix(" ") || key.hasSuffix(" ") || leadingMark {
            let why = marks.isEmpty ? "a ',' or spaces at either end" : "a ',', spaces at either end or a leading '\(marks)'"
            throw QueryError(.unsupported, "the key '\(key)' cannot be written in the '\(list)' list of the \(table.name) where-JSON dialect (\(why) would read differently)", range: range)
        }
        return key
    }

    /// `order`, `skip`, `limit` of a query or subquery.
    static func addPaging(_ q: Query, to o: inout [String: Value], table: WhereJSONDialectTable) throws(QueryError) {
        let (order, skip, limit) = try paging(q, table: table)
        if let order { o["order"] = .string(order) }
        if let skip { o["skip"] = skip }
        if let limit { o["limit"] = limit }
    }

    /// The `order` list, `skip` and `limit` of a query or subquery (`nil` when not set).
    static func paging(_ q: Query, table: WhereJSONDialectTable) throws(QueryError) -> (String?, Value?, Value?) {
        let emitter = ConditionEmitter(table: table)
        var order: String?
        if !q.order.isEmpty {
            var keys: [String] = []
            for k in q.order {
                keys.append((k.descending ? "-" : "") + (try listItem(emitter.key(k.path, q.range), "order", marks: "-+", table, q.range)))
            }
            order = keys.joined(separator: ",")
        }
        var skip: Value?
        var limit: Value?
        if let s = q.skip { skip = try integer(s, "skip", emitter, q.range) }
        if let l = q.limit { limit = try integer(l, "limit", emitter, q.range) }
        return (order, skip, limit)
    }

    private static func integer(_ t: Term, _ name: String, _ emitter: ConditionEmitter, _ range: SourceRange?) throws(QueryError) -> Value {
        let v = OperandChecks.wholeCount(try emitter.value(t, at: range))
        guard case .int = v else {
            throw QueryError(.invalidValue, "'\(name)' must be an integer, found \(v.typeDescription)", range: range)
        }
        return v
    }
}
