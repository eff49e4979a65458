extension Query {
    /// How many values `Binder.bind(_:parameters:now:)` needs: one more than
    /// the highest placeholder index anywhere in the query (conditions,
    /// subqueries, function arguments, `limit`/`skip`); 0 without placeholders.
    ///
    /// ```swift
    /// try CQLParser.parse("select * from T where a = ? and b in (select c from U where d > ?) limit ?").placeholderCount
    /// // 3
    /// ```
    public var placeholderCount: Int {
        var highest = -1
        PlaceholderScan.visit(self) { index, _ in highest = max(highest, index) }
        return highest + 1
    }
}

/// A walk over every placeholder of a query, in tree order.
enum PlaceholderScan {
    typealias Visitor = (Int, SourceRange?) -> Void

    /// The range of each placeholder index (the first one seen).
    static func ranges(in query: Query) -> [Int: SourceRange] {
        var out: [Int: SourceRange] = [:]
        visit(query) { i, r in
            if out[i] == nil, let r { out[i] = r }
        }
        return out
    }

    static func visit(_ q: Query, _ f: Visitor) {
        if let c = q.condition { visit(c, f) }
        if let s = q.skip { visit(s, f) }
        if let l = q.limit { visit(l, f) }
    }

    static func visit(_ t: Term, _ f: Visitor) {
        switch t {
        case .placeholder(let i, let r): f(i, r)
        case .array(let items): for x in items { visit(x, f) }
        case .call(_, let args, _): for x in args { visit(x, f) }
        case .value, .currentTimestamp, .relativeTime: break
        }
    }

    static func visit(_ c: Condition, _ f: Visitor) {
        switch c.predicate {
        case .and(let items), .or(let items): for x in items { visit(x, f) }
        case .not(let inner): visit(inner, f)
        case .elementMatch(_, let inner): visit(inner, f)
        case .constant, .exists, .text, .type, .fullText, .prefix, .aclGrants: break
        case .compare(_, _, let t), .size(_, let t), .regex(_, let t, _), .like(_, let t),
             .relatedTo(let t, _), .relationHolds(_, _, let t), .geoIntersects(_, let t):
            visit(t, f)
        case .in(_, let items, _), .all(_, let items), .containedBy(_, let items), .withinPolygon(_, let items):
            for x in items { visit(x, f) }
        case .modulo(_, let a, let b), .withinBox(_, let a, let b), .withinCenterSphere(_, let a, let b):
            visit(a, f)
            visit(b, f)
        case .select(_, _, let q, _), .inQuery(_, let q, _):
            visit(q, f)
        case .near(_, let point, let lo, let hi):
            visit(point, f)
            if let lo { visit(lo.value, f) }
            if let hi { visit(hi.value, f) }
        }
    }
}
