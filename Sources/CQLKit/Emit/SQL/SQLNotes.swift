/// Short descriptions of predicates for the "re-checked" list of `explain`
/// and the `unsupported` messages of `translate --to sql`.
enum SQLNotes {
    static func describe(_ p: Predicate) -> String {
        switch p {
        case .compare(let k, let op, _): return "\(k.dotted) \(op.rawValue) (a typed, array or object value, or a Date key)"
        case .in(let k, _, let n): return "\(k.dotted) \(n ? "not in" : "in") (a list with a non-scalar value)"
        case .all(let k, _): return "\(k.dotted) all (...)"
        case .size(let k, _): return "size(\(k.dotted))"
        case .exists(let k, _): return "\(k.dotted) exists"
        case .regex(let k, _, _): return "regex on \(k.dotted)"
        case .like(let k, _): return "like on \(k.dotted)"
        case .prefix(let k, _): return "prefix match on \(k.dotted)"
        case .text(let k, _, _): return "case-insensitive match on \(k.dotted)"
        case .containedBy(let k, _): return "\(k.dotted) containedBy"
        case .elementMatch(let k, _): return "\(k.dotted) elemMatch"
        case .type(let k, _): return "type of \(k.dotted)"
        case .modulo(let k, _, _): return "\(k.dotted) mod"
        case .fullText(let k, _): return "full-text search on \(k.dotted)"
        case .near(let k, _, _, _): return "near on \(k.dotted)"
        case .withinBox(let k, _, _): return "box on \(k.dotted)"
        case .withinPolygon(let k, _): return "polygon on \(k.dotted)"
        case .withinCenterSphere(let k, _, _): return "centerSphere on \(k.dotted)"
        case .geoIntersects(let k, _): return "geoIntersects on \(k.dotted)"
        case .select(let k, _, _, _): return "select subquery on \(k.dotted)"
        case .inQuery(let k, _, _): return "inQuery on \(k.dotted)"
        case .relatedTo: return "related to"
        case .relationHolds: return "a relation key compared with a Pointer"
        case .aclGrants(let right, _): return "ACL \(right.rawValue) access"
        case .and, .or, .not, .constant: return "logic"
        }
    }
}
