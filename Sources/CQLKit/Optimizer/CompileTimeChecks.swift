/// The errors the optimizer finds before any rule runs: geo operands that
/// can never be evaluated. Each error points at the condition it is about.
///
/// ```
/// loc near geopoint(200, 0)                           →   error: invalid GeoPoint values: longitude must be in -180...180 ...
/// loc within [0, 0] and [0, 95]                       →   error: invalid GeoPoint values (a box corner out of range)
/// loc near geopoint(0, 0) min 5 km max 1 km           →   error: 'near' needs min <= max
/// $geoWithin: {$polygon: [[0,0],[1,1]]}               →   error: a polygon needs at least 3 points
/// $centerSphere radius -1                             →   error: the radius must be a non-negative number
/// ```
///
/// The parser and the binder raise most of these for CQL and Usergrid text
/// already; this check covers every AST (where-JSON reader, builders, hand-
/// built queries) so that no backend has to. A box with its corners the
/// wrong way round is not an error: EvaluationSemantics.md normalizes it (MongoDB's
/// `$box`), so only out-of-range corners make a box impossible.
public enum CompileTimeChecks {
    public static func check(_ query: Query) throws(QueryError) {
        if let c = query.condition { try check(c, depth: 0) }
    }

    static func check(_ c: Condition, depth: Int) throws(QueryError) {
        guard depth < 1000 else { return }
        let r = c.range
        switch c.predicate {
        case .and(let items), .or(let items):
            for x in items { try check(x, depth: depth + 1) }
        case .not(let inner), .elementMatch(_, let inner):
            try check(inner, depth: depth + 1)
        case .select(_, _, let q, _), .inQuery(_, let q, _):
            try check(q)
        case .near(_, let point, let lo, let hi):
            try geoPoint(point, "'near'", r)
            if let lo, let hi { try OperandChecks.distanceBounds(min: lo, max: hi, range: r) }
        case .withinBox(_, let sw, let ne):
            try geoPoint(sw, "'within'", r)
            try geoPoint(ne, "'within'", r)
        case .withinPolygon(_, let points):
            for p in points { try geoPoint(p, "a polygon", r) }
            if points.count < 3 {
                throw QueryError(.invalidValue, "a polygon needs at least 3 points, found \(points.count)", range: r)
            }
        case .withinCenterSphere(_, let center, let radius):
            try geoPoint(center, "'$centerSphere'", r)
            if let x = radius.value?.numberValue, !(x >= 0 && x.isFinite) {
                throw QueryError(.invalidValue, "the $centerSphere radius must be a non-negative number of radians, found \(OperandChecks.describe(radius.value!))", range: r)
            }
        case .geoIntersects(_, let point):
            try geoPoint(point, "'$geoIntersects'", r)
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .type,
             .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants:
            break
        }
    }

    /// A constant GeoPoint operand must be in range; placeholders wait for the binder.
    private static func geoPoint(_ t: Term, _ what: String, _ r: SourceRange?) throws(QueryError) {
        guard let v = t.value else { return }
        _ = try OperandChecks.geoPoint(v, what: what, range: r)
    }
}
