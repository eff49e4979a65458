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
/// All groups of a request share one entry buffer (``DirectEntryBuffer``)
/// and one scratch sink (``JSONByteSink``) for the entries' keys and
/// rendered operands: a group's entries are appended, sorted in place and
/// written before they are dropped. An `$or`'s branches are written as the
/// `$or` entry is collected (their entries after those of the group that
/// holds it), so every entry is plain bytes by the time its group is sorted.
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

    /// The where object of the AND group `c`, its entries appended to
    /// `entries` (their keys and operands to `scratch`).
    func prepare(
        _ c: Condition, _ ctx: ConditionEmitter.Context, depth: Int, _ entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink
    ) throws(QueryError) -> Prepared {
        let start = entries.count
        if try collect(c, ctx, depth: depth, into: &entries, &scratch), arrange(&entries, from: start, &scratch) {
            return .direct(start..<entries.count)
        }
        entries.removeAll(from: start)
        return .value(try emitter.object(c, ctx, depth: depth))
    }

    /// Writes `p` to `scratch`, then drops its entries (always the last
    /// ones of the buffer).
    func write(_ p: Prepared, _ entries: inout DirectEntryBuffer, to scratch: inout JSONByteSink) {
        switch p {
        case .direct(let r):
            writeObject(r, &entries, to: &scratch)
            entries.removeAll(from: r.lowerBound)
        case .value(let v):
            scratch.appendValue(v)
        }
    }

    /// Sorts `entries[start...]` into member order and marks where each
    /// key's run starts; `false` when some key needs a merge this writer
    /// leaves to the Value path (see the type's comment).
    private func arrange(_ entries: inout DirectEntryBuffer, from start: Int, _ scratch: inout JSONByteSink) -> Bool {
        let end = entries.count
        // One entry (an `$or` branch's lone leaf): nothing to sort or merge.
        if end - start <= 1 { return true }
        // Two `$or`s collide: each becomes an item of `$and`, in order.
        var ors = 0
        for i in start..<end where entries[i].kind == .or { ors += 1 }
        if ors > 1 {
            let and = scratch.appendRaw("$and")
            for i in start..<end where entries[i].kind == .or {
                entries[i].key = and
                entries[i].keyIsUnescaped = true
            }
        }
        // Insertion sort: few entries, and stable (the `$and` / `$nor` items
        // keep their order). Keys compare by their bytes in the scratch sink.
        let buffer = entries.buffer(start..<end)
        let bytes = scratch.start
        for i in 1..<buffer.count {
            var j = i
            while j > 0, DirectConditionEntry.precedes(buffer[j], buffer[j - 1], bytes) {
                buffer.swapAt(j, j - 1)
                j -= 1
            }
        }
        var nonASCII = false
        var i = 0
        while i < buffer.count {
            let kind = buffer[i].kind
            let key = buffer[i].key
            var j = i + 1
            // Equal bytes here; equal Strings with other bytes are caught below.
            while j < buffer.count, DirectConditionEntry.compareKeys(buffer[j].key, key, bytes) == 0 {
                // Sorted by kind within a key: a repeat is adjacent.
                if !kind.isTopLevel && buffer[j].kind == buffer[j - 1].kind { return false }
                buffer[j].continuesKey = true
                j += 1
            }
            if j - i > 1, kind == .equality, !emitter.table.supports(.eq) { return false }
            if !nonASCII { nonASCII = Self.hasNonASCII(bytes + key.lowerBound, key.count) }
            i = j
        }
        return !nonASCII || !Self.hasEquivalentKeys(UnsafeBufferPointer(buffer), scratch)
    }

    /// Whether one of the `n` bytes at `p` is not ASCII.
    private static func hasNonASCII(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        // Eight bytes at a time: a high bit in any of them.
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return true }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return true }
            i += 1
        }
        return false
    }

    /// Whether two keys with different bytes are equal Strings (canonically
    /// equivalent, as NFC and NFD forms are): the merger's lookups join them.
    private static func hasEquivalentKeys(_ entries: UnsafeBufferPointer<DirectConditionEntry>, _ scratch: borrowing JSONByteSink) -> Bool {
        let keys = entries.map { scratch.string($0.key) }
        for i in keys.indices {
            for j in (i + 1)..<keys.count where keys[j] == keys[i] && CodePointOrder.compare(keys[j], keys[i]) != 0 { return true }
        }
        return false
    }

    /// `{...}` of arranged entries.
    private func writeObject(_ r: Range<Int>, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink) {
        out.append(UInt8(ascii: "{"))
        var i = r.lowerBound
        while i < r.upperBound {
            var j = i + 1
            while j < r.upperBound, entries[j].continuesKey { j += 1 }
            if i > r.lowerBound { out.append(UInt8(ascii: ",")) }
            if entries[i].keyIsUnescaped { out.appendQuoted(copyOf: entries[i].key) } else { out.appendString(copyOf: entries[i].key) }
            out.append(UInt8(ascii: ":"))
            writeMember(i..<j, &entries, to: &out)
            i = j
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The value of one member: the entries of one key.
    /// Inlined into ``writeObject(_:_:to:)``, its one caller, once per member.
    @inline(__always)
    private func writeMember(_ run: Range<Int>, _ entries: inout DirectEntryBuffer, to out: inout JSONByteSink) {
        let first = run.lowerBound
        switch entries[first].kind {
        case .or where run.count > 1:
            // `"$and":[{"$or":[...]},{"$or":[...]}]`
            out.append(UInt8(ascii: "["))
            for k in run {
                if k > first { out.append(UInt8(ascii: ",")) }
                out.append(#"{"$or":"#)
                out.append(copyOf: entries[k].operand)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        case .nor:
            out.append(UInt8(ascii: "["))
            for k in run {
                if k > first { out.append(UInt8(ascii: ",")) }
                out.append(copyOf: entries[k].operand)
            }
            out.append(UInt8(ascii: "]"))
        case .or:
            out.append(copyOf: entries[first].operand)
        case .equality where run.count == 1:
            out.append(copyOf: entries[first].operand)
        default:
            out.append(UInt8(ascii: "{"))
            for k in run {
                if k > first { out.append(UInt8(ascii: ",")) }
                out.append(entries[k].kind.member)
                out.append(copyOf: entries[k].operand)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The `$or` items of `branches` written to `scratch`, each its own
    /// where object, and appended to `entries` as items (an entry whose
    /// operand is the item's bytes); a branch that is itself only an `$or`
    /// (De Morgan under a `not`) is spliced in, as
    /// ``ConditionEmitter/doc(_:_:depth:)`` does. Each branch's own entries
    /// are dropped once it is written.
    func writeItems(
        _ branches: [Condition], depth: Int, _ entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink
    ) throws(QueryError) {
        for branch in branches {
            let start = entries.count
            let p = try prepare(branch, .nested("or"), depth: depth, &entries, &scratch)
            switch p {
            case .direct(let r) where r.count == 1 && entries[start].kind == .or:
                // Its operand is the `[...]` of its own items: those items.
                let items = entries[start].operand
                entries.removeAll(from: start)
                if items.count > 2 { appendItem((items.lowerBound + 1)..<(items.upperBound - 1), &entries) }
                continue
            case .value(.object(let members)) where members.count == 1:
                if case .array(let inner)? = members["$or"] {
                    for item in inner {
                        let itemStart = scratch.count
                        scratch.appendValue(item)
                        appendItem(itemStart..<scratch.count, &entries)
                    }
                    continue
                }
            default:
                break
            }
            let itemStart = scratch.count
            write(p, &entries, to: &scratch)
            appendItem(itemStart..<scratch.count, &entries)
        }
    }

    /// One `$or` item: the bytes at `bytes` (its key is not read).
    private func appendItem(_ bytes: Range<Int>, _ entries: inout DirectEntryBuffer) {
        entries.append(DirectConditionEntry(key: bytes.lowerBound..<bytes.lowerBound, kind: .or, operand: bytes))
    }
}
