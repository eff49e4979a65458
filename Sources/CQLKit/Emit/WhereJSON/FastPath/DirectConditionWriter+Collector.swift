/// The collecting half of ``DirectConditionWriter``: a condition's AND
/// group (everything that lands in one where object: ANDs flattened, `not`s
/// rewritten) as flat ``DirectConditionEntry``s, with the operands the
/// emitter computes (``ConditionEmitter/key(_:_:)``, ``ConditionEmitter/value(_:at:allowRelativeTime:)``).
///
/// It mirrors ``ConditionEmitter/doc(_:_:depth:)`` node for node, with the
/// same depths, and answers `false` for anything it does not write itself:
/// the geo, subquery, `$elemMatch`, `$all`, `$type`, `$mod`, `$text`,
/// `$containedBy` and `related to` forms, `$`-keyed object constants,
/// the element key, and every form whose Value rendering throws (a `not`
/// the dialect cannot say, the depth limit). The caller then renders that
/// group the Value way, which also gives its errors.
extension DirectConditionWriter {
    func collect(
        _ c: Condition, _ ctx: ConditionEmitter.Context, depth: Int, into entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink
    ) throws(QueryError) -> Bool {
        guard depth < ConditionEmitter.maxDepth else { return false }
        let d = depth + 1
        switch c.predicate {
        case .and(let items):
            for item in items {
                // A leaf (the usual operand) straight to `leaf`, with the
                // depth check `collect` makes: no call through the switch here.
                if item.predicate.featureKind & Self.logicKinds == 0 {
                    guard d < ConditionEmitter.maxDepth, try leaf(item, into: &entries, &scratch) else { return false }
                } else if !(try collect(item, ctx, depth: d, into: &entries, &scratch)) {
                    return false
                }
            }
            return true
        case .or(let items):
            if items.isEmpty { Self.appendMatchesNothing(&entries, &scratch); return true }
            if items.count == 1 { return try collect(items[0], ctx, depth: d, into: &entries, &scratch) }
            // The branches are written now, each its own where object (their
            // entries come after ours in the buffer and go once written),
            // then gathered into one `[...]`: the bytes of a branch's keys
            // and operands lie between the objects.
            let itemsStart = entries.count
            try writeItems(items, depth: d, &entries, &scratch)
            let key = scratch.appendRaw("$or")
            let start = scratch.count
            scratch.append(UInt8(ascii: "["))
            for i in itemsStart..<entries.count {
                if i > itemsStart { scratch.append(UInt8(ascii: ",")) }
                scratch.append(copyOf: entries[i].operand)
            }
            scratch.append(UInt8(ascii: "]"))
            entries.removeAll(from: itemsStart)
            entries.append(DirectConditionEntry(key: key, kind: .or, operand: start..<scratch.count, keyIsUnescaped: true))
            return true
        case .not(let inner):
            if let rewritten = NegationRewriter.rewrite(not: inner, range: c.range) {
                return try collect(rewritten, ctx, depth: d, into: &entries, &scratch)
            }
            return try negation(of: inner, depth: d, into: &entries, &scratch)
        case .constant(let b):
            if !b { Self.appendMatchesNothing(&entries, &scratch) }
            return true
        case .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .elementMatch, .type,
             .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon,
             .withinCenterSphere, .geoIntersects:
            return try leaf(c, into: &entries, &scratch)
        }
    }

    /// The node kinds `collect` handles itself (``Predicate/featureKind``):
    /// `and`, `or`, `not`, `true`, `false`. Every other node is a leaf.
    private static let logicKinds: UInt64 = Predicate.andKind | Predicate.orKind | Predicate.notKind | (1 << 3) | (1 << 4)

    /// `or()` and `false`: `{"objectId": {"$in": []}}`, as ``WhereDoc/matchesNothing``.
    private static func appendMatchesNothing(_ entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink) {
        let key = scratch.appendRaw("objectId")
        let operand = scratch.appendRaw("[]")
        entries.append(DirectConditionEntry(key: key, kind: .in, operand: operand, keyIsUnescaped: true))
    }

    /// `not inner` without an exact rewrite (so `inner` is a leaf): MongoDB's
    /// field `$not` of the leaf's operator object, else one `$nor` item.
    private func negation(
        of inner: Condition, depth: Int, into entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink
    ) throws(QueryError) -> Bool {
        let table = emitter.table
        guard depth < ConditionEmitter.maxDepth, table.supports(.nor) || table.supports(.fieldNot) else { return false }
        // The leaf's operators, appended and taken back off the shared buffer.
        let start = entries.count
        guard try leaf(inner, into: &entries, &scratch) else { return false }
        let key = entries[start].key
        let unescaped = entries[start].keyIsUnescaped
        let fieldNot = table.supports(.fieldNot)
        // The operator object with its members in operator order (the order
        // ``JSONWriter`` sorts an object's keys in: see ``DirectConditionEntry/Kind``).
        let ops = entries.buffer(start..<entries.count)
        for i in ops.indices.dropFirst() {
            var j = i
            while j > 0, ops[j].kind < ops[j - 1].kind {
                ops.swapAt(j, j - 1)
                j -= 1
            }
        }
        let operand = scratch.count
        if !fieldNot {
            scratch.append(UInt8(ascii: "{"))
            scratch.appendString(copyOf: key)
            scratch.append(UInt8(ascii: ":"))
        }
        scratch.append(UInt8(ascii: "{"))
        for i in start..<entries.count {
            if i > start { scratch.append(UInt8(ascii: ",")) }
            scratch.append(entries[i].kind.member)
            scratch.append(copyOf: entries[i].operand)
        }
        scratch.append(UInt8(ascii: "}"))
        if !fieldNot { scratch.append(UInt8(ascii: "}")) }
        entries.removeAll(from: start)
        let object = operand..<scratch.count
        if fieldNot {
            entries.append(DirectConditionEntry(key: key, kind: .not, operand: object, keyIsUnescaped: unescaped))
        } else {
            entries.append(DirectConditionEntry(key: scratch.appendRaw("$nor"), kind: .nor, operand: object, keyIsUnescaped: true))
        }
        return true
    }

    /// A predicate on one key, as its operator entries (`$regex` with its
    /// `$options`), each operand rendered into `scratch`. Every leaf this
    /// handles yields operators on one key (equality only for `=`, which a
    /// `not` has always rewritten away).
    private func leaf(_ c: Condition, into entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink) throws(QueryError) -> Bool {
        let r = c.range
        switch c.predicate {
        case .compare(let path, let op, let term):
            // `$`-keyed objects take `$eq` or are refused: the Value path decides.
            if case .value(.object) = term { return false }
            guard let k = try key(path, r, &scratch) else { return false }
            let start = scratch.count
            if case .value(let plain) = term, Self.isPlain(plain) {
                scratch.appendValue(plain)
            } else {
                scratch.appendValue(try emitter.value(term, at: r, allowRelativeTime: op != .equal && op != .notEqual))
            }
            entries.append(DirectConditionEntry(key: k.bytes, kind: Self.kind(of: op), operand: start..<scratch.count, keyIsUnescaped: k.unescaped))
        case .in(let path, let terms, let negated):
            for case .value(.object) in terms { return false }
            guard let k = try key(path, r, &scratch) else { return false }
            let start = scratch.count
            if terms.allSatisfy({ if case .value(let v) = $0 { return Self.isPlain(v) } else { return false } }) {
                // Constants that are their own JSON form: no list built.
                scratch.append(UInt8(ascii: "["))
                for (n, t) in terms.enumerated() {
                    if n > 0 { scratch.append(UInt8(ascii: ",")) }
                    if case .value(let v) = t { scratch.appendValue(v) }
                }
                scratch.append(UInt8(ascii: "]"))
            } else {
                scratch.appendValue(try emitter.list(terms, at: r))
            }
            entries.append(DirectConditionEntry(key: k.bytes, kind: negated ? .nin : .in, operand: start..<scratch.count, keyIsUnescaped: k.unescaped))
        case .exists(let path, let present):
            guard let k = try key(path, r, &scratch) else { return false }
            let operand = scratch.appendRaw(present ? "true" : "false")
            entries.append(DirectConditionEntry(key: k.bytes, kind: .exists, operand: operand, keyIsUnescaped: k.unescaped))
        case .size(let path, let term):
            guard let k = try key(path, r, &scratch) else { return false }
            let count = OperandChecks.wholeCount(try emitter.value(term, at: r))
            let start = scratch.count
            scratch.appendValue(count)
            entries.append(DirectConditionEntry(key: k.bytes, kind: .size, operand: start..<scratch.count, keyIsUnescaped: k.unescaped))
        case .regex(let path, let pattern, let options):
            // `d` (diacritics) is refused by the Value path.
            if options.utf8.contains(UInt8(ascii: "d")) { return false }
            guard let k = try key(path, r, &scratch) else { return false }
            regex(k, try emitter.string(pattern, "regexp", at: r), options, into: &entries, &scratch)
        case .like(let path, let pattern):
            guard let k = try key(path, r, &scratch) else { return false }
            // A string constant is its own value (the emitter's `string` converts nothing).
            let like: String
            if case .value(.string(let s)) = pattern { like = s } else { like = try emitter.string(pattern, "like", at: r) }
            // The regex (``LikePattern/regex(_:)``) written as the pattern is
            // read, not built as a String, where it can be.
            let start = scratch.count
            if !scratch.appendLikeRegex(like) { scratch.appendString(LikePattern.regex(like)) }
            entries.append(DirectConditionEntry(key: k.bytes, kind: .regex, operand: start..<scratch.count, keyIsUnescaped: k.unescaped))
            options(k, LikePattern.options, into: &entries, &scratch)
        case .prefix(let path, let prefix):
            guard let k = try key(path, r, &scratch) else { return false }
            if LikePattern.isPlainPrefix(prefix) {
                // Every byte plain: ``LikePattern/prefixRegex(_:)`` is `^` and the prefix.
                let start = scratch.count
                scratch.append(UInt8(ascii: "\""))
                scratch.append(UInt8(ascii: "^"))
                scratch.appendStringBody(prefix)
                scratch.append(UInt8(ascii: "\""))
                entries.append(DirectConditionEntry(key: k.bytes, kind: .regex, operand: start..<scratch.count, keyIsUnescaped: k.unescaped))
            } else {
                regex(k, LikePattern.prefixRegex(prefix), "", into: &entries, &scratch)
            }
        case .text(let path, let match, let text):
            guard let (pattern, options) = TextRegex.regex(match, text), let k = try key(path, r, &scratch) else { return false }
            regex(k, pattern, options, into: &entries, &scratch)
        case .and, .or, .not, .constant, .all, .containedBy, .elementMatch, .type, .modulo, .fullText, .select,
             .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            return false
        }
        return true
    }

    /// The emitter's key, its bytes appended to `scratch`; `nil` for the
    /// element key (an empty path), which only `$elemMatch` (not written
    /// here) may hold.
    @inline(__always)
    private func key(_ path: FieldPath, _ r: SourceRange?, _ scratch: inout JSONByteSink) throws(QueryError) -> Key? {
        // `singleComponent`, not `components`: the usual one-component path
        // keeps its String, and `components` would build an array per key.
        // A plain one is the emitter's key as it is (its fast path), checked
        // and copied in one pass.
        if let only = path.singleComponent {
            let start = scratch.count
            let form = scratch.appendKey(only)
            if form.contains(.objectId) {
                scratch.removeLast(8)
                return Key(bytes: scratch.appendRaw(emitter.table.objectIdKey), unescaped: false)
            }
            if !form.isEmpty { return Key(bytes: start..<scratch.count, unescaped: form.contains(.unescaped)) }
        }
        let k = try emitter.key(path, r)
        return k.isEmpty ? nil : Key(bytes: scratch.appendRaw(k), unescaped: false)
    }

    /// A leaf's key: its bytes in the scratch sink, and whether they need no JSON escape.
    private struct Key {
        var bytes: Range<Int>
        var unescaped: Bool
    }

    /// `{"$regex": p}` plus `"$options"` only when there are any.
    private func regex(_ key: Key, _ pattern: String, _ options: String, into entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink) {
        let start = scratch.count
        scratch.appendString(pattern)
        entries.append(DirectConditionEntry(key: key.bytes, kind: .regex, operand: start..<scratch.count, keyIsUnescaped: key.unescaped))
        if !options.isEmpty { self.options(key, options, into: &entries, &scratch) }
    }

    private func options(_ key: Key, _ options: String, into entries: inout DirectEntryBuffer, _ scratch: inout JSONByteSink) {
        let start = scratch.count
        scratch.appendString(options)
        entries.append(DirectConditionEntry(key: key.bytes, kind: .options, operand: start..<scratch.count, keyIsUnescaped: key.unescaped))
    }

    /// A constant that ``ConditionEmitter/convert(_:at:)`` returns as it is
    /// and that has no error: it needs no conversion to be written.
    static func isPlain(_ v: Value) -> Bool {
        switch v {
        case .null, .bool, .int, .string: return true
        case .double(let d): return d.isFinite
        default: return false
        }
    }

    private static func kind(of op: ComparisonOperator) -> DirectConditionEntry.Kind {
        switch op {
        case .equal: return .equality
        case .notEqual: return .ne
        case .lessThan: return .lt
        case .lessThanOrEqual: return .lte
        case .greaterThan: return .gt
        case .greaterThanOrEqual: return .gte
        }
    }
}
