/// Writes where objects straight to bytes: the text
/// `JSONWriter.write(ConditionEmitter.object(c, ctx, depth:))` gives, without
/// the ``WhereDoc`` / ``Value`` trees, the merger's regrouping and the
/// dictionary sorts in between.
///
/// A where object is an AND group: its entries (``collect(_:_:depth:into:)``)
/// are sorted by key and operator, which is the writer's member order, and
/// a run of one key is that key's merged operator object. Merging is then
/// plain when no operator repeats on a key: every fragment lands in one
/// operator object however the ANDs nested (an equality joins as `$eq`
/// where the dialect has it). The rest — a repeated operator or a second
/// equality on a key (fragments that go to `$and`), equality beside
/// operators without `$eq`, keys that are distinct bytes but equal Strings
/// (the merger's dictionary makes them one) — and every form
/// ``collect(_:_:depth:into:)`` declines are rendered the Value way for
/// that group alone, as ``ConditionEmitter/object(_:_:depth:)`` does.
///
/// All groups of a request share one entry buffer (``DirectEntryBuffer``):
/// a group's entries are appended, sorted in place and written before the
/// next group (an `$or` branch) is appended after them — one allocation per
/// request instead of one array per group.
struct DirectConditionWriter {
    let emitter: ConditionEmitter

    /// A where object ready to write: its sorted entries in the buffer, or
    /// the Value rendering of a group this writer leaves to the emitter.
    enum Prepared {
        case direct(Range<Int>)
        case value(Value)

        /// Whether the object is `{}` (a `where` that is then left out).
        var isEmpty: Bool {
            switch self {
            case .direct(let r): return r.isEmpty
            case .value(let v):
                if case .object(let o) = v { return o.isEmpty }
                return false
            }
        }
    }

    /// The where object of the AND group `c`, its entries appended to `entries`.
    func prepare(_ c: Condition, _ ctx: ConditionEmitter.Context, depth: Int, _ entries: inout DirectEntryBuffer) throws(QueryError) -> Prepared {
        let start = entries.count
        if try collect(c, ctx, depth: depth, into: &entries), arrange(&entries, from: start) { return .direct(start..<entries.count) }
        entries.removeAll(from: start)
        return .value(try emitter.object(c, ctx, depth: depth))
    }

    func write(_ p: Prepared, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink) throws(QueryError) {
        switch p {
        case .direct(let r): try writeObject(r, &entries, to: &out)
        case .value(let v): out.appendValue(v)
        }
    }

    /// Sorts `entries[start...]` into member order and marks where each
    /// key's run starts; `false` when some key needs a merge this writer
    /// leaves to the Value path (see the type's comment).
    private func arrange(_ entries: inout DirectEntryBuffer, from start: Int) -> Bool {
        let end = entries.count
        // One entry (an `$or` branch's lone leaf): nothing to sort or merge.
        if end - start <= 1 { return true }
        // Two `$or`s collide: each becomes an item of `$and`, in order.
        var ors = 0
        for i in start..<end where entries[i].kind == .or { ors += 1 }
        if ors > 1 { for i in start..<end where entries[i].kind == .or { entries[i].key = "$and" } }
        // Insertion sort: few entries, and stable (the `$and` / `$nor` items
        // keep their order). Through the buffer, whose swaps move entries
        // (an Array's copied and released each one's references).
        do {
            let buffer = entries.buffer(0..<end)
            guard let base = buffer.baseAddress else { return true }
            for i in (start + 1)..<end {
                var j = i
                while j > start, DirectConditionEntry.precedes(base + j, base + j - 1) {
                    buffer.swapAt(j, j - 1)
                    j -= 1
                }
            }
            var nonASCII = false
            var i = start
            while i < end {
                let kind = base[i].kind
                var j = i + 1
                // `==` first: equal Strings with different bytes are caught below.
                while j < end, base[j].key == base[i].key {
                    // Sorted by kind within a key: a repeat is adjacent.
                    if !kind.isTopLevel && base[j].kind == base[j - 1].kind { return false }
                    base[j].continuesKey = true
                    j += 1
                }
                if j - i > 1, kind == .equality, !emitter.table.supports(.eq) { return false }
                if !nonASCII && !base[i].keyIsASCII { nonASCII = Self.mayBeNonASCII(base[i].key) }
                i = j
            }
            return !nonASCII || !Self.hasEquivalentKeys(UnsafeBufferPointer(rebasing: buffer[start..<end]))
        }
    }

    /// Whether `key` has a non-ASCII byte (`true` when not contiguous), over
    /// its buffer: iterating a String's UTF8View cost some 20 instructions a byte.
    private static func mayBeNonASCII(_ key: String) -> Bool {
        key.utf8.withContiguousStorageIfAvailable { b -> Bool in
            guard let p = b.baseAddress else { return false }
            // Eight bytes at a time: a high bit in any of them.
            var i = 0
            while i + 8 <= b.count {
                if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return true }
                i += 8
            }
            while i < b.count {
                if p[i] >= 0x80 { return true }
                i += 1
            }
            return false
        } ?? true
    }

    /// Whether two keys with different bytes are equal Strings (canonically
    /// equivalent, as NFC and NFD forms are): the merger's lookups join them.
    private static func hasEquivalentKeys(_ entries: UnsafeBufferPointer<DirectConditionEntry>) -> Bool {
        for i in entries.indices {
            for j in (i + 1)..<entries.count where entries[j].key == entries[i].key
                && CodePointOrder.compare(entries[j].key, entries[i].key) != 0
            {
                return true
            }
        }
        return false
    }

    /// `{...}` of arranged entries.
    private func writeObject(_ r: Range<Int>, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink) throws(QueryError) {
        out.append(UInt8(ascii: "{"))
        var i = r.lowerBound
        while i < r.upperBound {
            var j = i + 1
            while j < r.upperBound, entries[j].continuesKey { j += 1 }
            if i > r.lowerBound { out.append(UInt8(ascii: ",")) }
            out.appendString(entries[i].key)
            out.append(UInt8(ascii: ":"))
            try writeMember(i..<j, &entries, to: &out)
            i = j
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The value of one member: the entries of one key.
    private func writeMember(_ run: Range<Int>, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink) throws(QueryError) {
        let first = run.lowerBound
        switch entries[first].kind {
        case .or where run.count > 1:
            // `"$and":[{"$or":[...]},{"$or":[...]}]`
            out.append(UInt8(ascii: "["))
            for k in run {
                if k > first { out.append(UInt8(ascii: ",")) }
                out.append(#"{"$or":"#)
                try writeOperand(k, &entries, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        case .nor:
            out.append(UInt8(ascii: "["))
            for k in run {
                if k > first { out.append(UInt8(ascii: ",")) }
                try writeOperand(k, &entries, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .or:
            try writeOperand(first, &entries, to: &out)
        case .equality where run.count == 1:
            try writeOperand(first, &entries, to: &out)
        default:
            out.append(UInt8(ascii: "{"))
            for k in run {
                if k > first { out.append(UInt8(ascii: ",")) }
                out.append(entries[k].kind.member)
                try writeOperand(k, &entries, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The operand of `entries[k]`, switched on in place: passing the
    /// Operand itself copied it (and released it after) for every member.
    private func writeOperand(_ k: Int, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink) throws(QueryError) {
        switch entries[k].operand {
        case .value(let v):
            out.appendValue(v)
        case .plainList(let terms):
            out.append(UInt8(ascii: "["))
            for (n, t) in terms.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                if case .value(let v) = t { out.appendValue(v) }
            }
            out.append(UInt8(ascii: "]"))
        case .branches(let branches, let depth):
            try writeBranches(branches, depth: depth, &entries, to: &out)
        case .likeRegex(let like):
            if !out.appendLikeRegex(like) { out.appendString(LikePattern.regex(like)) }
        case .plainPrefixRegex(let prefix):
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: "^"))
            out.appendStringBody(prefix)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// `[...]` of an `$or` entry's branches.
    private func writeBranches(_ branches: [Condition], depth: Int, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink) throws(QueryError) {
        out.append(UInt8(ascii: "["))
        var first = true
        try writeItems(branches, depth: depth, first: &first, &entries, to: &out)
        out.append(UInt8(ascii: "]"))
    }

    /// The `$or` items of `branches`, each its own where object; a branch
    /// that is itself only an `$or` (De Morgan under a `not`) is spliced in,
    /// as ``ConditionEmitter/doc(_:_:depth:)`` does.
    private func writeItems(
        _ branches: [Condition], depth: Int, first: inout Bool, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink
    ) throws(QueryError) {
        for branch in branches {
            // The branch's entries stay in the buffer after it (dropping
            // them cost more than keeping them to the end of the request).
            let start = entries.count
            let p = try prepare(branch, .nested("or"), depth: depth, &entries)
            switch p {
            case .direct(let r) where r.count == 1 && entries[start].kind == .or:
                if case .branches(let inner, let innerDepth) = entries[start].operand {
                    try writeItems(inner, depth: innerDepth, first: &first, &entries, to: &out)
                    continue
                }
            case .value(.object(let members)) where members.count == 1:
                if case .array(let inner)? = members["$or"] {
                    for item in inner {
                        if !first { out.append(UInt8(ascii: ",")) }
                        first = false
                        out.appendValue(item)
                    }
                    continue
                }
            default:
                break
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            try write(p, &entries, to: &out)
        }
    }
}
