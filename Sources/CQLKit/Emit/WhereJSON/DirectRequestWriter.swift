/// The request object written member by member, in the writer's key order
/// (code point order: className, count, include, keys, limit, order,
/// returnACL, skip, where), each list straight from the query's keys: no
/// ``WhereJSONEmitter/RequestParts``, no joined strings, the `where` through
/// ``DirectConditionWriter``.
///
/// It makes the checks ``WhereJSONEmitter/RequestParts`` makes, in another
/// order; any error is only a signal: ``WhereJSONEmitter/write(_:dialect:objectIdAsMongoId:to:)``
/// then takes the Value path, whose error (in its order, with its position)
/// is the one thrown.
enum DirectRequestWriter {
    static func write(_ query: Query, table: WhereJSONDialectTable, to out: inout [UInt8]) throws(QueryError) {
        let emitter = ConditionEmitter(table: table)
        guard query.direct.isEmpty else { throw table.unsupported("direct", range: query.range) }
        let conditions = DirectConditionWriter(emitter: emitter)
        // 8 entries stay within malloc's small-size cache (16 cost some 400
        // instructions more to allocate); more grow the buffer.
        var entries = DirectEntryBuffer(capacity: 8)
        var whereObject: DirectConditionWriter.Prepared?
        if query.condition != nil {
            // Not `if let`: binding the condition copied it (and released it after).
            whereObject = try conditions.prepare(query.condition!, .top, depth: 0, &entries)
        }
        var skip: Int64?
        var limit: Int64?
        if let s = query.skip { skip = try integer(s, emitter, query.range) }
        if let l = query.limit { limit = try integer(l, emitter, query.range) }
        if query.count == .only { limit = 0 }  // the count alone: the server's `count=1&limit=0`
        if query.returnACL && !table.supports(.returnACL) { throw table.unsupported("returnACL", range: query.range) }

        var first = true
        if !query.className.isEmpty { member(&first, Self.className, &out); JSONWriter.writeString(query.className, &out) }
        if query.count != .none { member(&first, Self.count, &out) }
        if !query.includes.isEmpty {
            member(&first, Self.include, &out)
            try list(query.includes, "include", marks: "", emitter, query.range, &out, path: { $0 }, minus: { _ in false })
        }
        if !query.keys.isEmpty {
            for k in query.keys where k.alias != nil { throw table.unsupported("alias", range: query.range) }
            member(&first, Self.keys, &out)
            try list(query.keys, "keys", marks: "-", emitter, query.range, &out, path: \.path, minus: \.excluded)
        }
        if let limit { member(&first, Self.limit, &out); JSONWriter.appendInteger(limit, &out) }
        if !query.order.isEmpty {
            member(&first, Self.order, &out)
            try list(query.order, "order", marks: "-+", emitter, query.range, &out, path: \.path, minus: \.descending)
        }
        if query.returnACL { member(&first, Self.returnACL, &out) }
        if let skip { member(&first, Self.skip, &out); JSONWriter.appendInteger(skip, &out) }
        if let whereObject, !whereObject.isEmpty {
            member(&first, Self.`where`, &out)
            try conditions.write(whereObject, &entries, to: &out)
        }
        // Byte by byte: a String's UTF8View went through the generic sequence append.
        if first { out.append(UInt8(ascii: "{")) }
        out.append(UInt8(ascii: "}"))
    }

    /// `{"name":` or `,"name":` (`name` as bytes: appending an Array is a copy,
    /// a StaticString's buffer went through the generic sequence append).
    private static func member(_ first: inout Bool, _ name: [UInt8], _ out: inout [UInt8]) {
        out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        first = false
        out.append(contentsOf: name)
    }

    private static let className = Array(#""className":"#.utf8)
    private static let count = Array(#""count":1"#.utf8)
    private static let include = Array(#""include":"#.utf8)
    private static let keys = Array(#""keys":"#.utf8)
    private static let limit = Array(#""limit":"#.utf8)
    private static let order = Array(#""order":"#.utf8)
    private static let returnACL = Array(#""returnACL":"true""#.utf8)
    private static let skip = Array(#""skip":"#.utf8)
    private static let `where` = Array(#""where":"#.utf8)

    /// A comma-separated key list as one JSON string: `"-a,b"`. Escaping
    /// the keys one by one gives the bytes escaping the joined list gives
    /// (`,` and `-` need none).
    private static func list<Item>(
        _ items: [Item], _ name: String, marks: String, _ emitter: ConditionEmitter, _ range: SourceRange?,
        _ out: inout [UInt8], path: (Item) -> FieldPath, minus: (Item) -> Bool
    ) throws(QueryError) {
        out.append(UInt8(ascii: "\""))
        for (n, item) in items.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            if minus(item) { out.append(UInt8(ascii: "-")) }
            let key = try emitter.key(path(item), range)
            if !isPlainListItem(key, marks: marks) {
                _ = try WhereJSONEmitter.listItem(key, name, marks: marks, emitter.table, range)
            }
            JSONWriter.writeStringBody(key, &out)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A key that ``WhereJSONEmitter/listItem(_:_:marks:_:_:)`` accepts,
    /// judged by its bytes: no `,`, no space at either end, no mark first.
    /// A key this rejects goes to `listItem` itself, whose Character tests
    /// are the rule.
    /// Over the key's buffer: the UTF8View's `first`, `last` and `contains`
    /// cost some 300 instructions a key.
    private static func isPlainListItem(_ key: String, marks: String) -> Bool {
        let plain: Bool? = key.utf8.withContiguousStorageIfAvailable { bytes in
            guard let first = bytes.first, let last = bytes.last else { return true }
            if first == UInt8(ascii: " ") || last == UInt8(ascii: " ") { return false }
            for m in marks.utf8 where m == first { return false }
            return !bytes.contains(UInt8(ascii: ","))
        }
        if let plain { return plain }
        let bytes = key.utf8
        guard let first = bytes.first, let last = bytes.last else { return true }
        if first == UInt8(ascii: " ") || last == UInt8(ascii: " ") || marks.utf8.contains(first) { return false }
        return !bytes.contains(UInt8(ascii: ","))
    }

    /// `skip` / `limit`: a whole number.
    private static func integer(_ t: Term, _ emitter: ConditionEmitter, _ range: SourceRange?) throws(QueryError) -> Int64 {
        if case .value(.int(let i)) = t { return i }
        guard case .int(let i) = OperandChecks.wholeCount(try emitter.value(t, at: range)) else {
            throw QueryError(.invalidValue, "not an integer", range: range)
        }
        return i
    }
}
