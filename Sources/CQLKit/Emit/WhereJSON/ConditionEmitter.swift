/// Turns a condition tree into where-JSON for one dialect table. Each
/// predicate becomes a ``WhereDoc``; AND merges docs (``ConditionMerger``),
/// OR lists them, NOT is rewritten exactly (``NegationRewriter``) or handed to
/// the dialect's negation form.
struct ConditionEmitter {
    let table: WhereJSONDialectTable

    /// Deeper trees are a `.limit` error rather than a stack overflow.
    static let maxDepth = 400

    /// Where a node sits: at the top level of the query's condition (only
    /// ANDs above it), or inside a construct that some operators may not
    /// appear under (`$nearSphere` and `$relatedTo` must be top-level).
    enum Context {
        case top
        case nested(String)
    }

    func object(_ c: Condition, _ ctx: Context = .top, depth: Int = 0) throws(QueryError) -> Value {
        try render(try doc(c, ctx, depth: depth), at: c.range)
    }

    /// The JSON object of `doc`. The element key (an empty path) is only
    /// meaningful directly inside `$elemMatch`, which takes it out first.
    func render(_ doc: WhereDoc, at range: SourceRange?) throws(QueryError) -> Value {
        for entry in doc.entries {
            if case .field(let k, _) = entry, k == ConditionEmitter.elementKey {
                throw QueryError(.unsupported, "an empty key path cannot be expressed in the \(table.name) where-JSON dialect", range: range)
            }
        }
        let merged = ConditionMerger.and([doc], table: table)
        // Two `$relatedTo`s collide and would land in `$and`, where servers do not look.
        var related = 0
        var nears = 0
        for entry in merged.entries {
            switch entry {
            case .top("$relatedTo", _): related += 1
            case .field(_, .operators(let ops)) where ops.contains(where: { $0.0 == "$nearSphere" }): nears += 1
            default: break
            }
        }
        if related > 1 {
            throw QueryError(.unsupported, "two 'related to' conditions cannot be expressed in the \(table.name) where-JSON dialect", range: range)
        }
        // MongoDB allows one `$nearSphere` per query ("too many geoNear
        // expressions"), and the first one orders the results: read back in
        // key order, two would order them by the other one.
        if nears > 1 {
            throw QueryError(.unsupported, "two 'near' conditions cannot be expressed in the \(table.name) where-JSON dialect", range: range)
        }
        return ConditionMerger.object(merged, table: table)
    }

    func doc(_ c: Condition, _ ctx: Context, depth: Int) throws(QueryError) -> WhereDoc {
        guard depth < ConditionEmitter.maxDepth else {
            throw QueryError(.limit, "the condition is nested more than \(ConditionEmitter.maxDepth) levels deep", range: c.range)
        }
        let d = depth + 1
        let r = c.range
        switch c.predicate {
        case .and(let items):
            var docs: [WhereDoc] = []
            for item in items { docs.append(try doc(item, ctx, depth: d)) }
            return ConditionMerger.and(docs, table: table)
        case .or(let items):
            if items.isEmpty { return .matchesNothing }
            if items.count == 1 { return try doc(items[0], ctx, depth: d) }
            var list: [Value] = []
            for item in items {
                // An `$or` inside an `$or` (De Morgan under a `not`) is spliced
                // in, as the reader flattens it: the output is canonical.
                let o = try object(item, .nested("or"), depth: d)
                if case .object(let members) = o, members.count == 1, case .array(let inner)? = members["$or"] {
                    list += inner
                } else {
                    list.append(o)
                }
            }
            return WhereDoc([.top("$or", .array(list))])
        case .not(let inner):
            return try negation(of: inner, range: r, ctx, depth: d)
        case .constant(let b):
            return b ? WhereDoc() : .matchesNothing
        case .compare(let path, let op, let term):
            return try compare(path, op, term, range: r)
        case .relationHolds:
            return try doc(c.writtenAsComparison, ctx, depth: depth)
        case .in(let path, let terms, let negated):
            try literalOperands(terms, negated ? "not in" : "in", at: r)
            return .op(try key(path, r), negated ? "$nin" : "$in", try list(terms, at: r))
        case .all(let path, let terms):
            try literalOperands(terms, "all", at: r)
            return .op(try key(path, r), "$all", try list(terms, at: r))
        case .size(let path, let term):
            return .op(try key(path, r), "$size", OperandChecks.wholeCount(try value(term, at: r)))
        case .exists(let path, let present):
            return .op(try key(path, r), "$exists", .bool(present))
        case .regex(let path, let pattern, let options):
            if options.contains("d") {
                // MongoDB's regexes have no diacritic folding; `$text`'s is a different (word) search.
                throw QueryError(.unsupported, "diacritic-insensitive matching (NSPredicate's [d]) cannot be expressed in the \(table.name) where-JSON dialect", range: r)
            }
            return regexDoc(try key(path, r), try string(pattern, "regexp", at: r), options)
        case .like(let path, let pattern):
            let like = try string(pattern, "like", at: r)
            return regexDoc(try key(path, r), LikePattern.regex(like), LikePattern.options)
        case .prefix(let path, let prefix):
            return regexDoc(try key(path, r), LikePattern.prefixRegex(prefix), "")
        case .text(let path, let match, let text):
            guard let (pattern, options) = TextRegex.regex(match, text) else {
                throw TextRegex.rangeUnsupported(path, match, text, target: "the \(table.name) where-JSON dialect", range: r)
            }
            return regexDoc(try key(path, r), pattern, options)
        case .containedBy(let path, let terms):
            try require(.containedBy, c)
            try literalOperands(terms, "$containedBy", at: r)
            return .op(try key(path, r), "$containedBy", try list(terms, at: r))
        case .elementMatch(let path, let inner):
            try require(.elemMatch, c)
            return .op(try key(path, r), "$elemMatch", try elementMatch(inner, depth: d))
        case .type(let path, let name):
            try require(.type, c)
            return .op(try key(path, r), "$type", .string(name))
        case .modulo(let path, let divisor, let remainder):
            try require(.mod, c)
            return .op(try key(path, r), "$mod", .array([try value(divisor, at: r), try value(remainder, at: r)]))
        case .fullText(let path, let search):
            try require(.fullText, c)
            return .op(try key(path, r), "$text", fullText(search))
        case .select(let path, let key, let query, let negated):
            try require(.subqueries, c)
            let sub = try subquery(query, depth: d)
            let body: Value = .object(["query": sub, "key": .string(try self.key(key, r))])
            return .op(try self.key(path, r), negated ? "$dontSelect" : "$select", body)
        case .inQuery(let path, let query, let negated):
            try require(.subqueries, c)
            return .op(try key(path, r), negated ? "$notInQuery" : "$inQuery", try subquery(query, depth: d))
        case .relatedTo(let object, let relationKey):
            try require(.relatedTo, c)
            try topLevelOnly(c, ctx)
            let v = try value(object, at: r)
            guard case .pointer = v else {
                throw QueryError(.invalidValue, "'related to' needs a Pointer, found \(v.typeDescription)", range: r)
            }
            return WhereDoc([.top("$relatedTo", .object(["object": v, "key": .string(relationKey)]))])
        case .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            return try geo(c, ctx)
        case .aclGrants:
            // Exactly "grants" (an object entry whose right is `true`) has no
            // where-JSON form: `ACL.u1.read` would also match arrays.
            throw table.unsupported(c.predicate.constructName, range: r)
        }
    }

    /// `{"$regex": p}` plus `"$options"` only when there are any.
    private func regexDoc(_ key: String, _ pattern: String, _ options: String) -> WhereDoc {
        var ops: [(String, Value)] = [("$regex", .string(pattern))]
        if !options.isEmpty { ops.append(("$options", .string(options))) }
        return .field(key, .operators(ops))
    }

    private func compare(_ path: FieldPath, _ op: ComparisonOperator, _ term: Term, range r: SourceRange?) throws(QueryError) -> WhereDoc {
        let k = try key(path, r)
        let isRange = op != .equal && op != .notEqual
        let v = try value(term, at: r, allowRelativeTime: isRange)
        switch op {
        case .equal:
            // An object with `$` keys as a bare value would read as operators
            // (checked before conversion: Mongo's own `{"$date":...}` is a value);
            // `$eq` takes its operand literally.
            if case .value(.object(let o)) = term, o.keys.contains(where: { $0.hasPrefix("$") }) {
                guard table.supports(.eq) else {
                    throw QueryError(.unsupported, "equality with an object whose keys start with '$' cannot be expressed in the \(table.name) where-JSON dialect", range: r)
                }
                return .op(k, "$eq", v)
            }
            return .field(k, .equals(v))
        default:
            try literalOperands([term], op.rawValue, at: r)
        }
        switch op {
        case .equal: return .field(k, .equals(v))
        case .notEqual: return .op(k, "$ne", v)
        case .lessThan: return .op(k, "$lt", v)
        case .lessThanOrEqual: return .op(k, "$lte", v)
        case .greaterThan: return .op(k, "$gt", v)
        case .greaterThanOrEqual: return .op(k, "$gte", v)
        }
    }

    /// Operands of operators other than equality are read back as operators
    /// when they are objects with `$` keys (MongoDB even rejects them in
    /// `$in`): such constants cannot be written there.
    func literalOperands(_ terms: [Term], _ construct: String, at range: SourceRange?) throws(QueryError) {
        for case .value(.object(let o)) in terms where o["__type"] == nil && o.keys.contains(where: { $0.hasPrefix("$") }) {
            throw QueryError(.unsupported, "'\(construct)' with an object whose keys start with '$' cannot be expressed in the \(table.name) where-JSON dialect", range: range)
        }
    }

    /// `not inner`: an exact rewrite when there is one, else the dialect's
    /// negation (`$not` for a single-field operator object, `$nor`), else an error.
    private func negation(of inner: Condition, range: SourceRange?, _ ctx: Context, depth: Int) throws(QueryError) -> WhereDoc {
        if let rewritten = NegationRewriter.rewrite(not: inner, range: range) {
            return try doc(rewritten, ctx, depth: depth)
        }
        guard table.supports(.nor) || table.supports(.fieldNot) else {
            if case .text = inner.predicate {
                // Usergrid's four text matches read as one construct to their users.
                throw QueryError(.unsupported, "'not' of a case-insensitive match cannot be expressed in the \(table.name) where-JSON dialect",
                                 range: range ?? inner.range)
            }
            throw table.unsupported("not " + inner.predicate.constructName, range: range ?? inner.range)
        }
        let x = ConditionMerger.and([try doc(inner, .nested("not"), depth: depth)], table: table)
        if table.supports(.fieldNot), x.entries.count == 1, case .field(let k, .operators(let ops)) = x.entries[0] {
            return .op(k, "$not", ConditionMerger.render(.operators(ops)))
        }
        guard table.supports(.nor) else {
            throw table.unsupported("not " + inner.predicate.constructName, range: range ?? inner.range)
        }
        return WhereDoc([.top("$nor", .array([try render(x, at: inner.range)]))])
    }

    func require(_ feature: WhereJSONDialectTable.Feature, _ c: Condition) throws(QueryError) {
        guard table.supports(feature) else { throw table.unsupported(c.predicate.constructName, range: c.range) }
    }

    /// `$nearSphere` and `$relatedTo` are only understood at the top level
    /// (MongoDB rejects `$nearSphere` under `$or`/`$nor`/`$not`).
    func topLevelOnly(_ c: Condition, _ ctx: Context) throws(QueryError) {
        if case .nested(let outer) = ctx {
            throw table.unsupported("\(c.predicate.constructName)' inside '\(outer)", range: c.range)
        }
    }

    /// `$elemMatch`'s body: conditions on the element itself (empty path)
    /// become the body's own operators; others are relative key paths.
    private func elementMatch(_ inner: Condition, depth: Int) throws(QueryError) -> Value {
        let x = ConditionMerger.and([try doc(inner, .nested("$elemMatch"), depth: depth)], table: table)
        var selfOps: [(String, Value)] = []
        var rest = WhereDoc()
        for entry in x.entries {
            if case .field(let k, let v) = entry, k == ConditionEmitter.elementKey {
                let ops: [(String, Value)]
                switch v {
                case .equals(let e): ops = [("$eq", e)]
                case .operators(let o): ops = o
                }
                // Fragments that did not merge repeat an operator, which one
                // operator object cannot hold.
                for (name, _) in ops where selfOps.contains(where: { $0.0 == name }) {
                    throw QueryError(.unsupported, "'$elemMatch' with two '\(name)' on the element cannot be expressed in the \(table.name) where-JSON dialect", range: inner.range)
                }
                selfOps += ops
            } else {
                rest.entries.append(entry)
            }
        }
        if selfOps.isEmpty { return try render(rest, at: inner.range) }
        guard rest.entries.isEmpty else {
            throw QueryError(.unsupported, "'$elemMatch' cannot mix conditions on the element with conditions on its keys in the \(table.name) where-JSON dialect", range: inner.range)
        }
        return ConditionMerger.render(.operators(selfOps))
    }

    private func fullText(_ s: FullTextSearch) -> Value {
        var search: [String: Value] = ["$term": .string(s.term)]
        if let l = s.language { search["$language"] = .string(l) }
        if let c = s.caseSensitive { search["$caseSensitive"] = .bool(c) }
        if let d = s.diacriticSensitive { search["$diacriticSensitive"] = .bool(d) }
        return .object(["$search": .object(search)])
    }

    /// `{"className": C, "where": {...}, "order": ..., "skip": n, "limit": n}`
    private func subquery(_ q: Query, depth: Int) throws(QueryError) -> Value {
        var o: [String: Value] = [:]
        if !q.className.isEmpty { o["className"] = .string(q.className) }
        if let c = q.condition, let w = WhereJSONEmitter.whereObject(try object(c, .top, depth: depth)) { o["where"] = w }
        try WhereJSONEmitter.addPaging(q, to: &o, table: table)
        return .object(o)
    }
}
