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
        guard query.direct.isEmpty else { throw table.unsupported("direct", range: query.range) }
        // The entries of the request's where objects: room for a few on the
        // stack (most requests need a few); more move to the heap. At most
        // 1,024 bytes: a larger temporary allocation asks the runtime whether
        // the stack has room, and is refused (a larger malloc than the heap's).
        let room = 1024 / MemoryLayout<DirectConditionEntry>.stride
        try withUnsafeTemporaryAllocation(of: DirectConditionEntry.self, capacity: room) { stack throws(QueryError) in
            var entries = DirectEntryBuffer(stack: stack)
            // The request's bytes (the entries' keys and operands, the where
            // object, then the request itself), copied to `out` once
            // complete: 1,024 bytes on the stack, which most requests fit.
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { bytes throws(QueryError) in
                var scratch = JSONByteSink(stack: bytes)
                try write(query, table: table, &entries, &scratch, to: &out)
            }
        }
    }

    private static func write(
        _ query: Query, table: WhereJSONDialectTable, _ entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink, to out: inout [UInt8]
    ) throws(QueryError) {
        let emitter = ConditionEmitter(table: table)
        // The where object first, into the scratch sink: its entries' keys
        // and operands go there too, and it is copied into the request below.
        var whereObject: Range<Int>?
        if query.condition != nil {
            let conditions = DirectConditionWriter(emitter: emitter)
            // Not `if let`: binding the condition copied it (and released it after).
            let prepared = try conditions.prepare(query.condition!, .top, depth: 0, &entries, &scratch)
            if !prepared.isEmpty {
                let start = scratch.count
                conditions.write(prepared, &entries, to: &scratch)
                whereObject = start..<scratch.count
            }
        }
        var skip: Int64?
        var limit: Int64?
        if let s = query.skip { skip = try integer(s, emitter, query.range) }
        if let l = query.limit { limit = try integer(l, emitter, query.range) }
        if query.count == .only { limit = 0 }  // the count alone: the server's `count=1&limit=0`
        if query.returnACL && !table.supports(.returnACL) { throw table.unsupported("returnACL", range: query.range) }
        let request = scratch.count
        try members(query, emitter, whereObject, limit: limit, skip: skip, &scratch)
        scratch.copy(request..<scratch.count, to: &out)
    }

    /// The members in the writer's key order.
    private static func members(
        _ query: Query, _ emitter: ConditionEmitter, _ whereObject: Range<Int>?, limit: Int64?, skip: Int64?, _ sink: inout JSONByteSink
    ) throws(QueryError) {
        let table = emitter.table
        var first = true
        if !query.className.isEmpty { member(&first, #""className":"#, &sink); sink.appendString(query.className) }
        if query.count != .none { member(&first, #""count":1"#, &sink) }
        if !query.includes.isEmpty {
            member(&first, #""include":"#, &sink)
            try list(query.includes, "include", marks: "", emitter, query.range, &sink, path: { $0 }, minus: { _ in false })
        }
        if !query.keys.isEmpty {
            for k in query.keys where k.alias != nil { throw table.unsupported("alias", range: query.range) }
            member(&first, #""keys":"#, &sink)
            try list(query.keys, "keys", marks: "-", emitter, query.range, &sink, path: { $0.path }, minus: { $0.excluded })
        }
        if let limit { member(&first, #""limit":"#, &sink); sink.appendInteger(limit) }
        if !query.order.isEmpty {
            member(&first, #""order":"#, &sink)
            try list(query.order, "order", marks: "-+", emitter, query.range, &sink, path: { $0.path }, minus: { $0.descending })
        }
        if query.returnACL { member(&first, #""returnACL":"true""#, &sink) }
        if let skip { member(&first, #""skip":"#, &sink); sink.appendInteger(skip) }
        if let whereObject {
            member(&first, #""where":"#, &sink)
            sink.append(copyOf: whereObject)
        }
        if first { sink.append(UInt8(ascii: "{")) }
        sink.append(UInt8(ascii: "}"))
    }

    /// `{"name":` or `,"name":`.
    /// Inlined: a request writes several, each a few stores.
    @inline(__always)
    private static func member(_ first: inout Bool, _ name: StaticString, _ sink: inout JSONByteSink) {
        sink.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        first = false
        sink.append(name)
    }

    /// A comma-separated key list as one JSON string: `"-a,b"`. Escaping
    /// the keys one by one gives the bytes escaping the joined list gives
    /// (`,` and `-` need none).
    private static func list<Item>(
        _ items: [Item], _ name: String, marks: StaticString, _ emitter: ConditionEmitter, _ range: SourceRange?,
        _ out: inout JSONByteSink, path: (Item) -> FieldPath, minus: (Item) -> Bool
    ) throws(QueryError) {
        out.append(UInt8(ascii: "\""))
        for (n, item) in items.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            if minus(item) { out.append(UInt8(ascii: "-")) }
            let p = path(item)
            // The usual key (one plain component) is checked and copied in
            // one pass; any other goes through the emitter's key.
            if let only = p.singleComponent, out.appendPlainListKey(only, marks: marks) { continue }
            let key = try emitter.key(p, range)
            // Checked and copied in one pass when it can be; any other key
            // is checked by `listItem` itself, whose Character tests are the rule.
            if !out.appendPlainListItem(key, marks: marks) {
                _ = try WhereJSONEmitter.listItem(key, name, marks: marks.description, emitter.table, range)
                out.appendStringBody(key)
            }
        }
        out.append(UInt8(ascii: "\""))
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
