/// The where-JSON request written straight to bytes: the text
/// `JSONWriter.write(try WhereJSONEmitter.emit(query, ...))` gives (compact),
/// without building the request object and sorting its keys
/// (``DirectRequestWriter``). ``WhereJSONEmitter/RequestParts`` writes it
/// when the query has an error, so the error is `emit`'s.
extension WhereJSONEmitter {
    /// Appends the compact JSON text of the request object of `query` to
    /// `out`, byte for byte what ``JSONWriter`` writes for
    /// ``emit(_:dialect:objectIdAsMongoId:)``'s result, with the same errors
    /// (nothing is appended when it throws).
    ///
    /// ```swift
    /// let q = try CQLParser.parse("select * from GameScore where score > 80 order by -score limit 10")
    /// var out: [UInt8] = []
    /// try WhereJSONEmitter.write(q, dialect: .leancloud, to: &out)
    /// String(decoding: out, as: UTF8.self)
    /// // {"className":"GameScore","limit":10,"order":"-score","where":{"score":{"$gt":80}}}
    /// ```
    public static func write(_ query: Query, dialect: WhereJSONDialect, objectIdAsMongoId: Bool = false, to out: inout [UInt8]) throws(QueryError) {
        guard objectIdAsMongoId && dialect == .mongo else {
            // The static tables passed as they are: copying one out of its
            // global retained and released each of its members.
            switch dialect {
            case .leancloud: return try write(query, table: .leancloud, to: &out)
            case .parse: return try write(query, table: .parse, to: &out)
            case .mongo: return try write(query, table: .mongo, to: &out)
            }
        }
        var table = dialect.table
        table.objectIdKey = "_id"
        try write(query, table: table, to: &out)
    }

    private static func write(_ query: Query, table: WhereJSONDialectTable, to out: inout [UInt8]) throws(QueryError) {
        let start = out.count
        do throws(QueryError) {
            try DirectRequestWriter.write(query, table: table, to: &out)
            return
        } catch {
            // The direct writer checks what `emit` checks, but not in its
            // order: the Value path below names the error `emit` throws.
            out.removeSubrange(start...)
        }
        let parts: RequestParts
        do throws(QueryError) {
            parts = try RequestParts(query, table: table)
        } catch {
            throw query.source.map { error.withSource($0) } ?? error
        }
        parts.write(to: &out)
    }
}

extension WhereJSONEmitter.RequestParts {
    /// The members in the writer's key order (code point order of the
    /// names: className, count, include, keys, limit, order, returnACL, skip, where).
    func write(to out: inout [UInt8]) {
        var first = true
        func member(_ name: StaticString, _ out: inout [UInt8]) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: "\":".utf8)
        }
        if let className { member("className", &out); JSONWriter.writeString(className, &out) }
        if count { member("count", &out); out.append(UInt8(ascii: "1")) }
        if let include { member("include", &out); JSONWriter.writeString(include, &out) }
        if let keys { member("keys", &out); JSONWriter.writeString(keys, &out) }
        if let limit { member("limit", &out); JSONWriter.write(limit, to: &out) }
        if let order { member("order", &out); JSONWriter.writeString(order, &out) }
        if returnACL { member("returnACL", &out); out.append(contentsOf: "\"true\"".utf8) }
        if let skip { member("skip", &out); JSONWriter.write(skip, to: &out) }
        if let `where` { member("where", &out); JSONWriter.write(`where`, to: &out) }
        out.append(contentsOf: (first ? "{}" : "}").utf8)
    }
}
