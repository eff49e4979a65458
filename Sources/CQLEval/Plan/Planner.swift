import CQLKit

/// Compiles a bound condition tree into ``Node``s once, raising every error a
/// query can have (bad regex, bad GeoPoint, inverted `near` range, unbound
/// placeholder) before evaluation starts. Subqueries run here, against the
/// store, so evaluation never touches other collections.
struct Planner {
    /// How deep conditions may nest (the parsers have their own, lower, limits).
    static let maxConditionDepth = 500

    let store: DocumentStore
    let source: String?
    let subqueryDepth: Int
    let limits: EvaluationLimits

    func error(_ kind: QueryError.Kind, _ message: String, _ range: SourceRange?) -> QueryError {
        QueryError(kind, message, range: range, source: source)
    }

    func plan(_ condition: Condition, depth: Int = 0) throws(QueryError) -> Node {
        guard depth < Planner.maxConditionDepth else {
            throw error(.limit, "conditions are nested more than \(Planner.maxConditionDepth) levels deep", condition.range)
        }
        let r = condition.range
        switch condition.predicate {
        case .constant(let b):
            return .constant(b)
        case .and(let items):
            var nodes: [Node] = []
            // ACL grants first: `and` stops at the first false, so no other
            // test (a regex over its budget fails the query) runs on an
            // object the caller may not read.
            for c in items where c.isACLGrant { nodes.append(try plan(c, depth: depth + 1)) }
            for c in items where !c.isACLGrant { nodes.append(try plan(c, depth: depth + 1)) }
            return Planner.and(nodes)
        case .or(let items):
            var nodes: [Node] = []
            for c in items { nodes.append(try plan(c, depth: depth + 1)) }
            return Planner.or(nodes)
        case .not(let inner):
            return Planner.not(try plan(inner, depth: depth + 1))

        case .compare(let path, let op, let term):
            let v = Semantic.canonical(try value(term, r))
            let acc = Accessor(path)
            switch op {
            case .equal: return Planner.equal(acc, v)
            case .notEqual: return .not(Planner.equal(acc, v))
            default:
                // EvaluationSemantics.md (MongoDB): against null, `<=` and `>=` match
                // exactly what `= null` matches, `<` and `>` match nothing.
                if v == .null {
                    return op == .lessThanOrEqual || op == .greaterThanOrEqual ? .isNull(acc) : .constant(false)
                }
                if let test = ScalarTest(op, v) { return .scalar(acc, test) }
                return .range(acc, RangeTest(op: op, constant: v, constantClass: ValueOrder.rangeClass(v)))
            }
        case .in(let path, let terms, let negated):
            let values = try self.values(terms, r)
            let node: Node = values.isEmpty ? .constant(false) : .member(Accessor(path), MemberSet(values))
            return negated ? Planner.not(node) : node
        case .all(let path, let terms):
            let values = try self.values(terms, r)
            // EvaluationSemantics.md: an empty list matches nothing.
            if values.isEmpty { return .constant(false) }
            let acc = Accessor(path)
            return .and(values.map { v in Planner.equal(acc, Semantic.canonical(v)) })
        case .size(let path, let term):
            let v = try value(term, r)
            guard let n = Numbers.exactInteger(v), n >= 0, n <= Int64(Int.max) else {
                throw error(.invalidValue, "size() must be compared with a non-negative integer, found \(describe(v))", r)
            }
            return .size(Accessor(path), Int(n))
        case .exists(let path, let present):
            return present ? .exists(Accessor(path)) : .not(.exists(Accessor(path)))
        case .regex(let path, let pattern, let options):
            let p = try string(pattern, r, what: "a regular expression")
            let regex = try compile(p, options, r)
            // `^abc`, `^(al|ca)`: a byte prefix test gives PCRE2's answer.
            if let prefixes = LiteralPrefixPattern.prefixes(p, options: options) { return .prefix(Accessor(path), prefixes) }
            return .regex(Accessor(path), regex)
        case .like(let path, let pattern):
            let p = try string(pattern, r, what: "a LIKE pattern")
            // The pattern ends in `\z`, so it is anchored at the true end.
            return .regex(Accessor(path), try compile(LikePattern.regex(p), LikePattern.options, r))
        case .prefix(let path, let prefix):
            return .prefix(Accessor(path), [Array(prefix.utf8)])
        case .text(let path, let match, let text):
            guard let (p, options) = TextRegex.regex(match, text) else {
                // A case-insensitive range: folded strings, compared by code point.
                return .foldedRange(Accessor(path), FoldedRangeTest(match.rangeOperator ?? .equal, text))
            }
            return .regex(Accessor(path), try compile(p, options, r))
        case .containedBy(let path, let terms):
            return .containedBy(Accessor(path), MemberSet(try values(terms, r)))
        case .elementMatch(let path, let inner):
            return .elementMatch(Accessor(path), try plan(inner, depth: depth + 1), ElementMatchForm(inner))
        case .type(let path, let name):
            guard let test = TypeTest.named(name) else {
                let known = TypeTest.allCases.map(\.rawValue).joined(separator: ", ")
                throw error(.invalidValue, "unknown type name '\(name)'; expected one of \(known)", r)
            }
            return .type(Accessor(path), test)
        case .modulo(let path, let divisorTerm, let remainderTerm):
            let d = try value(divisorTerm, r), m = try value(remainderTerm, r)
            guard let divisor = Numbers.exactInteger(d), let remainder = Numbers.exactInteger(m) else {
                throw error(.invalidValue, "$mod needs an integer divisor and remainder, found \(describe(d)) and \(describe(m))", r)
            }
            guard divisor != 0 else { throw error(.invalidValue, "$mod divisor must not be 0", r) }
            return .modulo(Accessor(path), divisor: divisor, remainder: remainder)
        case .fullText(let path, let search):
            let (positive, negative) = PatternBuilder.fullText(search.term)
            guard let positive else { return .constant(false) }
            let options = search.caseSensitive == true ? "" : "i"
            var node = Node.regex(Accessor(path), try compile(positive, options, r))
            if let negative {
                node = .and([node, .not(.regex(Accessor(path), try compile(negative, options, r)))])
            }
            return node

        case .select(let path, let key, let query, let negated):
            let results = try subqueryResults(query, r)
            let keyPath = Accessor(key)
            var values: [Value] = []
            for object in results {
                _ = keyPath.visit(.object(object), present: { values.append($0); return false }, missing: { false })
            }
            let node: Node = values.isEmpty ? .constant(false) : .member(Accessor(path), MemberSet(values))
            return negated ? Planner.not(node) : node
        case .inQuery(let path, let query, let negated):
            let results = try subqueryResults(query, r)
            var ids = Set<String>()
            for object in results { if case .string(let id)? = object["objectId"] { ids.insert(id) } }
            let node: Node = .pointerIn(Accessor(path), className: query.className, ids: ids)
            return negated ? Planner.not(node) : node
        case .relatedTo(let objectTerm, let key):
            let v = try value(objectTerm, r)
            guard case .pointer(let owner) = v else {
                throw error(.invalidValue, "related ... to expects a Pointer, found \(describe(v))", r)
            }
            return .objectIdIn(relatedIds(owner: owner, key: key))
        case .relationHolds(let key, let className, let objectTerm):
            let v = try value(objectTerm, r)
            guard case .pointer(let related) = v else {
                throw error(.invalidValue, "a relation key compares with a Pointer, found \(describe(v))", r)
            }
            return .objectIdIn(owningIds(className: className, key: key, related: related.objectId))

        case .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            return try planGeo(condition.predicate, r)
        case .aclGrants(let right, let grantees):
            return .aclGrants(right, grantees)
        }
    }

    private func compile(_ pattern: String, _ options: String, _ range: SourceRange?) throws(QueryError) -> CompiledRegex {
        do {
            return try CompiledRegex(pattern: pattern, options: options, range: range, engine: limits.regexEngine, limits: limits)
        } catch {
            var e = error
            if e.source == nil { e.source = source }
            throw e
        }
    }

    // MARK: Subqueries and relations

    private func subqueryResults(_ query: Query, _ range: SourceRange?) throws(QueryError) -> [[String: Value]] {
        let maxDepth = limits.query.maxSubqueryDepth
        guard subqueryDepth < maxDepth else {
            throw error(.limit, "subqueries are nested more than \(maxDepth) levels deep", range)
        }
        let plan = try QueryPlan(query, store: store, source: source, subqueryDepth: subqueryDepth + 1, limits: limits)
        let rows = try plan.orderedMatches()
        guard rows.count <= limits.maxSubqueryRows else {
            throw error(.limit, "the subquery yields \(rows.count) rows; the limit is \(limits.maxSubqueryRows)", range)
        }
        return rows
    }

    /// `relatedId`s of the `_Join:<key>:<Owner>` rows whose `owningId` is the owner.
    private func relatedIds(owner: Pointer, key: String) -> Set<String> {
        var ids = Set<String>()
        for row in store.objects(in: "_Join:\(key):\(owner.className)") {
            guard case .string(let owning)? = row["owningId"], owning == owner.objectId,
                case .string(let related)? = row["relatedId"]
            else { continue }
            ids.insert(related)
        }
        return ids
    }

    /// `owningId`s of the `_Join:<key>:<className>` rows whose `relatedId` is `related`.
    private func owningIds(className: String, key: String, related: String) -> Set<String> {
        var ids = Set<String>()
        for row in store.objects(in: "_Join:\(key):\(className)") {
            guard case .string(let r)? = row["relatedId"], r == related, case .string(let owning)? = row["owningId"] else { continue }
            ids.insert(owning)
        }
        return ids
    }

    /// `k = v` for a canonical constant: null, a scalar (fast path), or any value.
    static func equal(_ path: Accessor, _ v: Value) -> Node {
        if v == .null { return .isNull(path) }
        if let test = ScalarTest(.equal, v) { return .scalar(path, test) }
        return .equal(path, v)
    }

    // MARK: Logic simplification (keeps every child planned, so errors surface)

    static func and(_ nodes: [Node]) -> Node {
        var kept: [Node] = []
        for n in nodes {
            switch n {
            case .constant(true): continue
            case .constant(false): return .constant(false)
            default: kept.append(n)
            }
        }
        if kept.isEmpty { return .constant(true) }
        return kept.count == 1 ? kept[0] : .and(kept)
    }

    static func or(_ nodes: [Node]) -> Node {
        var kept: [Node] = []
        for n in nodes {
            switch n {
            case .constant(false): continue
            case .constant(true): return .constant(true)
            default: kept.append(n)
            }
        }
        if kept.isEmpty { return .constant(false) }
        return kept.count == 1 ? kept[0] : .or(kept)
    }

    static func not(_ node: Node) -> Node {
        switch node {
        case .constant(let b): return .constant(!b)
        case .not(let inner): return inner
        default: return .not(node)
        }
    }
}
