extension Predicate {
    /// How error messages name this construct: CQL's word for it where CQL
    /// has one, else the where-JSON operator (`$elemMatch`).
    var constructName: String {
        switch self {
        case .and: return "and"
        case .or: return "or"
        case .not(let inner): return "not " + inner.predicate.constructName
        case .constant(let b): return b ? "true" : "false"
        case .compare(_, let op, _): return op.rawValue
        case .in(_, _, let negated): return negated ? "not in" : "in"
        case .all: return "all"
        case .size: return "size"
        case .exists(_, let present): return present ? "is exists" : "is not exists"
        case .regex: return "regexp"
        case .like: return "like"
        case .prefix: return "like"  // how CQL writes a prefix match
        case .text(_, let match, _):
            switch match {
            case .equalsIgnoringCase: return "case-insensitive ="
            case .wildcard: return "wildcard ="
            case .word: return "contains"
            case .wordPrefix: return "contains prefix"
            case .lessThanIgnoringCase, .lessThanOrEqualIgnoringCase, .greaterThanIgnoringCase,
                .greaterThanOrEqualIgnoringCase:
                return "case-insensitive " + (match.rangeOperator?.rawValue ?? "")
            }
        case .containedBy: return "$containedBy"
        case .elementMatch: return "$elemMatch"
        case .type: return "$type"
        case .modulo: return "$mod"
        case .fullText: return "$text"
        case .select(_, _, _, let negated): return negated ? "not in (select ...)" : "in (select ...)"
        case .inQuery(_, _, let negated): return negated ? "not in (select * ...)" : "in (select * ...)"
        case .relatedTo: return "related to"
        case .relationHolds: return "relation holds"
        case .near: return "near"
        case .withinBox: return "within"
        case .withinPolygon: return "$polygon"
        case .withinCenterSphere: return "$centerSphere"
        case .geoIntersects: return "$geoIntersects"
        case .aclGrants(let right, _): return "an ACL condition (\(right.rawValue) access)"
        }
    }
}
