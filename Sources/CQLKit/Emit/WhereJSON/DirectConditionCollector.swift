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
    /// `or()` and `false`: `{"objectId": {"$in": []}}`, as ``WhereDoc/matchesNothing``.
    static let matchesNothing = DirectConditionEntry(key: "objectId", kind: .in, .plainList([]))

    func collect(_ c: Condition, _ ctx: ConditionEmitter.Context, depth: Int, into entries: inout DirectEntryBuffer) throws(QueryError) -> Bool {
        guard depth < ConditionEmitter.maxDepth else { return false }
        let d = depth + 1
        switch c.predicate {
        case .and(let items):
            for item in items where !(try collect(item, ctx, depth: d, into: &entries)) { return false }
            return true
        case .or(let items):
            if items.isEmpty { entries.append(Self.matchesNothing); return true }
            if items.count == 1 { return try collect(items[0], ctx, depth: d, into: &entries) }
            entries.append(DirectConditionEntry(key: "$or", kind: .or, .branches(items, depth: d)))
            return true
        case .not(let inner):
            if let rewritten = NegationRewriter.rewrite(not: inner, range: c.range) {
                return try collect(rewritten, ctx, depth: d, into: &entries)
            }
            return try negation(of: inner, depth: d, into: &entries)
        case .constant(let b):
            if !b { entries.append(Self.matchesNothing) }
            return true
        default:
            return try leaf(c, into: &entries)
        }
    }

    /// `not inner` without an exact rewrite (so `inner` is a leaf): MongoDB's
    /// field `$not` of the leaf's operator object, else one `$nor` item.
    /// The operands are small Values here: this form is rare.
    private func negation(of inner: Condition, depth: Int, into entries: inout DirectEntryBuffer) throws(QueryError) -> Bool {
        let table = emitter.table
        guard depth < ConditionEmitter.maxDepth, table.supports(.nor) || table.supports(.fieldNot) else { return false }
        // The leaf's operators, appended and taken back off the shared buffer.
        let start = entries.count
        guard try leaf(inner, into: &entries) else { return false }
        let key = entries[start].key
        var body = [String: Value](minimumCapacity: entries.count - start)
        for i in start..<entries.count { body[entries[i].kind.name.description] = try value(of: entries[i].operand) }
        entries.removeAll(from: start)
        if table.supports(.fieldNot) {
            entries.append(DirectConditionEntry(key: key, kind: .not, .value(.object(body))))
        } else {
            entries.append(DirectConditionEntry(key: "$nor", kind: .nor, .value(.object([key: .object(body)]))))
        }
        return true
    }

    /// A predicate on one key, as its operator entries (`$regex` with its
    /// `$options`). Every leaf this handles yields operators on one key
    /// (equality only for `=`, which a `not` has always rewritten away).
    private func leaf(_ c: Condition, into entries: inout DirectEntryBuffer) throws(QueryError) -> Bool {
        try leafEntries(c, into: &entries, start: entries.count)
    }

    private func leafEntries(_ c: Condition, into entries: inout DirectEntryBuffer, start: Int) throws(QueryError) -> Bool {
        let r = c.range
        var ascii = false
        defer {
            // Every key this leaf appended is its path's, ASCII or not alike.
            if ascii { for i in start..<entries.count { entries[i].keyIsASCII = true } }
        }
        switch c.predicate {
        case .compare(let path, let op, let term):
            // `$`-keyed objects take `$eq` or are refused: the Value path decides.
            if case .value(.object) = term { return false }
            guard let k = try key(path, r, &ascii) else { return false }
            let v: Value
            if case .value(let plain) = term, Self.isPlain(plain) {
                v = plain
            } else {
                v = try emitter.value(term, at: r, allowRelativeTime: op != .equal && op != .notEqual)
            }
            entries.append(DirectConditionEntry(key: k, kind: Self.kind(of: op), .value(v)))
        case .in(let path, let terms, let negated):
            for case .value(.object) in terms { return false }
            guard let k = try key(path, r, &ascii) else { return false }
            let plain = terms.allSatisfy { if case .value(let v) = $0 { return Self.isPlain(v) } else { return false } }
            let list: DirectConditionEntry.Operand = plain ? .plainList(terms) : .value(try emitter.list(terms, at: r))
            entries.append(DirectConditionEntry(key: k, kind: negated ? .nin : .in, list))
        case .exists(let path, let present):
            guard let k = try key(path, r, &ascii) else { return false }
            entries.append(DirectConditionEntry(key: k, kind: .exists, .value(.bool(present))))
        case .size(let path, let term):
            guard let k = try key(path, r, &ascii) else { return false }
            entries.append(DirectConditionEntry(key: k, kind: .size, .value(OperandChecks.wholeCount(try emitter.value(term, at: r)))))
        case .regex(let path, let pattern, let options):
            // `d` (diacritics) is refused by the Value path.
            if options.utf8.contains(UInt8(ascii: "d")) { return false }
            guard let k = try key(path, r, &ascii) else { return false }
            regex(k, try emitter.string(pattern, "regexp", at: r), options, into: &entries)
        case .like(let path, let pattern):
            guard let k = try key(path, r, &ascii) else { return false }
            // A string constant is its own value (the emitter's `string` converts nothing).
            let like: String
            if case .value(.string(let s)) = pattern { like = s } else { like = try emitter.string(pattern, "like", at: r) }
            entries.append(DirectConditionEntry(key: k, kind: .regex, .likeRegex(like)))
            entries.append(DirectConditionEntry(key: k, kind: .options, .value(.string(LikePattern.options))))
        case .prefix(let path, let prefix):
            guard let k = try key(path, r, &ascii) else { return false }
            if LikePattern.isPlainPrefix(prefix) {
                entries.append(DirectConditionEntry(key: k, kind: .regex, .plainPrefixRegex(prefix)))
            } else {
                regex(k, LikePattern.prefixRegex(prefix), "", into: &entries)
            }
        case .text(let path, let match, let text):
            guard let (pattern, options) = TextRegex.regex(match, text), let k = try key(path, r, &ascii) else { return false }
            regex(k, pattern, options, into: &entries)
        default:
            return false
        }
        return true
    }

    /// The emitter's key, `nil` for the element key (an empty path), which
    /// only `$elemMatch` (not written here) may hold.
    /// `ascii` is set when the key is a plain one-component ASCII key
    /// (the emitter's own fast path, repeated here to learn that).
    private func key(_ path: FieldPath, _ r: SourceRange?, _ ascii: inout Bool) throws(QueryError) -> String? {
        // `singleComponent`, not `components`: the usual one-component path
        // keeps its String, and `components` would build an array per key.
        if let only = path.singleComponent, let isObjectId = ConditionEmitter.plainASCIIIsObjectId(only) {
            let k = isObjectId ? emitter.table.objectIdKey : only
            ascii = isObjectId ? Self.isASCII(k) : true
            return k
        }
        let k = try emitter.key(path, r)
        return k.isEmpty ? nil : k
    }

    private static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }

    /// `{"$regex": p}` plus `"$options"` only when there are any.
    private func regex(_ key: String, _ pattern: String, _ options: String, into entries: inout DirectEntryBuffer) {
        entries.append(DirectConditionEntry(key: key, kind: .regex, .value(.string(pattern))))
        if !options.isEmpty { entries.append(DirectConditionEntry(key: key, kind: .options, .value(.string(options)))) }
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

    /// An operand as the Value the emitter would have made (for the rare
    /// forms that build one).
    func value(of operand: DirectConditionEntry.Operand) throws(QueryError) -> Value {
        switch operand {
        case .value(let v): return v
        case .plainList(let terms): return try emitter.list(terms, at: nil)
        case .branches: return .null  // not an operator's operand
        case .likeRegex(let like): return .string(LikePattern.regex(like))
        case .plainPrefixRegex(let prefix): return .string(LikePattern.prefixRegex(prefix))
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
