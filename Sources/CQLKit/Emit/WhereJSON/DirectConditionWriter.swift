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
struct DirectConditionWriter {
    let emitter: ConditionEmitter

    /// A where object ready to write: sorted direct entries, or the Value
    /// rendering of a group this writer leaves to the emitter.
    enum Prepared {
        case direct([DirectConditionEntry])
        case value(Value)

        /// Whether the object is `{}` (a `where` that is then left out).
        var isEmpty: Bool {
            switch self {
            case .direct(let entries): return entries.isEmpty
            case .value(let v):
                if case .object(let o) = v { return o.isEmpty }
                return false
            }
        }
    }

    /// The where object of the AND group `c`.
    func prepare(_ c: Condition, _ ctx: ConditionEmitter.Context, depth: Int) throws(QueryError) -> Prepared {
        var entries: [DirectConditionEntry] = []
        if try collect(c, ctx, depth: depth, into: &entries), arrange(&entries) { return .direct(entries) }
        return .value(try emitter.object(c, ctx, depth: depth))
    }

    func write(_ p: Prepared, to out: inout [UInt8]) throws(QueryError) {
        switch p {
        case .direct(let entries): try write(entries, to: &out)
        case .value(let v): JSONWriter.write(v, to: &out)
        }
    }

    /// Sorts `entries` into member order; `false` when some key needs a
    /// merge this writer leaves to the Value path (see the type's comment).
    private func arrange(_ entries: inout [DirectConditionEntry]) -> Bool {
        // Two `$or`s collide: each becomes an item of `$and`, in order.
        var ors = 0
        for e in entries where e.kind == .or { ors += 1 }
        if ors > 1 { for i in entries.indices where entries[i].kind == .or { entries[i].key = "$and" } }
        // Insertion sort: few entries, and stable (the `$and` / `$nor` items keep their order).
        if entries.count > 1 {
            for i in 1..<entries.count {
                var j = i
                while j > 0, DirectConditionEntry.precedes(entries[j], entries[j - 1]) {
                    entries.swapAt(j, j - 1)
                    j -= 1
                }
            }
        }
        var nonASCII = false
        var i = 0
        while i < entries.count {
            let kind = entries[i].kind
            var j = i + 1
            while j < entries.count, CodePointOrder.compare(entries[j].key, entries[i].key) == 0 {
                // Sorted by kind within a key: a repeat is adjacent.
                if !kind.isTopLevel && entries[j].kind == entries[j - 1].kind { return false }
                j += 1
            }
            if j - i > 1, kind == .equality, !emitter.table.supports(.eq) { return false }
            if !nonASCII { nonASCII = entries[i].key.utf8.contains { $0 >= 0x80 } }
            i = j
        }
        return !nonASCII || !hasEquivalentKeys(entries)
    }

    /// Whether two keys with different bytes are equal Strings (canonically
    /// equivalent, as NFC and NFD forms are): the merger's lookups join them.
    private func hasEquivalentKeys(_ entries: [DirectConditionEntry]) -> Bool {
        for i in entries.indices {
            for j in entries.indices where j > i && entries[j].key == entries[i].key
                && CodePointOrder.compare(entries[j].key, entries[i].key) != 0
            {
                return true
            }
        }
        return false
    }

    /// `{...}` of arranged entries.
    private func write(_ entries: [DirectConditionEntry], to out: inout [UInt8]) throws(QueryError) {
        out.append(UInt8(ascii: "{"))
        var i = 0
        while i < entries.count {
            var j = i + 1
            while j < entries.count, CodePointOrder.compare(entries[j].key, entries[i].key) == 0 { j += 1 }
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(entries[i].key, &out)
            out.append(UInt8(ascii: ":"))
            try writeMember(entries[i..<j], to: &out)
            i = j
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The value of one member: the entries of one key.
    private func writeMember(_ run: ArraySlice<DirectConditionEntry>, to out: inout [UInt8]) throws(QueryError) {
        let first = run[run.startIndex]
        switch first.kind {
        case .or where run.count > 1:
            // `"$and":[{"$or":[...]},{"$or":[...]}]`
            out.append(UInt8(ascii: "["))
            for (n, e) in run.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: "{\"$or\":".utf8)
                try writeBranches(e, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        case .or:
            try writeBranches(first, to: &out)
        case .nor:
            out.append(UInt8(ascii: "["))
            for (n, e) in run.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.write(e.value, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .equality where run.count == 1:
            JSONWriter.write(first.value, to: &out)
        default:
            out.append(UInt8(ascii: "{"))
            for (n, e) in run.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\""))
                let name = e.kind.name
                out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                out.append(contentsOf: "\":".utf8)
                JSONWriter.write(e.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `[...]` of an `$or` entry's branches.
    private func writeBranches(_ e: DirectConditionEntry, to out: inout [UInt8]) throws(QueryError) {
        out.append(UInt8(ascii: "["))
        var first = true
        try writeItems(e.branches, depth: e.depth, first: &first, to: &out)
        out.append(UInt8(ascii: "]"))
    }

    /// The `$or` items of `branches`, each its own where object; a branch
    /// that is itself only an `$or` (De Morgan under a `not`) is spliced in,
    /// as ``ConditionEmitter/doc(_:_:depth:)`` does.
    private func writeItems(_ branches: [Condition], depth: Int, first: inout Bool, to out: inout [UInt8]) throws(QueryError) {
        for branch in branches {
            let p = try prepare(branch, .nested("or"), depth: depth)
            switch p {
            case .direct(let entries) where entries.count == 1 && entries[0].kind == .or:
                try writeItems(entries[0].branches, depth: entries[0].depth, first: &first, to: &out)
                continue
            case .value(.object(let members)) where members.count == 1:
                if case .array(let inner)? = members["$or"] {
                    for item in inner {
                        if !first { out.append(UInt8(ascii: ",")) }
                        first = false
                        JSONWriter.write(item, to: &out)
                    }
                    continue
                }
            default:
                break
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            try write(p, to: &out)
        }
    }
}
