/// Geo predicates other than `near` in PostgreSQL: `within box` exact as a
/// JSON path test; `$centerSphere` and `$polygon` as bounding-box
/// prefilters whose rows the evaluator re-checks.
///
/// What the evaluator reads as a stored point (EvaluationSemantics.md, "Values"): a
/// typed `{"__type":"GeoPoint",...}` (which `cql load` has checked has number
/// coordinates in range, and writes with exactly those members), or a plain
/// object with exactly the two number members `latitude` and `longitude`.
/// The value a path reaches is tested, or (one level) its array elements:
/// the lax-mode filter unwraps one array level, and `@.type() == "object"`
/// turns away a nested array; `.type()` does not unwrap, so an array-valued
/// coordinate (`"latitude": [1]`) is not a number.
extension PostgreSQLDialect {
    /// A JSON path filter: `@` is a value the evaluator reads as a GeoPoint.
    /// "Exactly two members" is "no member other than the two": jsonb keeps
    /// one member per key.
    static let isGeoPoint = "@.type() == \"object\" && @.\"latitude\".type() == \"number\" && @.\"longitude\".type() == \"number\" && "
        + "((@.\"__type\".type() == \"string\" && @.\"__type\" == \"GeoPoint\") "
        + "|| !exists(@.keyvalue() ? (@.key != \"latitude\" && @.key != \"longitude\")))"

    /// A constant GeoPoint term as the evaluator's planner reads it (a
    /// GeoPoint, a `{latitude, longitude}` object, or `[longitude, latitude]`),
    /// and only when valid: an invalid one is the evaluator's query error,
    /// which the re-check raises.
    static func constantPoint(_ term: Term) -> GeoPoint? {
        var p: GeoPoint?
        switch term.value {
        case .geoPoint(let g)?:
            p = g
        case .object(let o)? where o.count == 2:
            if let lat = o["latitude"]?.numberValue, let lng = o["longitude"]?.numberValue {
                p = GeoPoint(latitude: lat, longitude: lng)
            }
        case .array(let pair)? where pair.count == 2:
            if let lng = pair[0].numberValue, let lat = pair[1].numberValue { p = GeoPoint(latitude: lat, longitude: lng) }
        default:
            break
        }
        guard let p, p.isValid else { return nil }
        return p
    }

    /// `@.<member> >= lo && @.<member> <= hi` over JSON path number literals.
    private static func between(_ member: String, _ lo: Double, _ hi: Double) -> String? {
        guard let l = literal(.number(.double(lo))), let h = literal(.number(.double(hi))) else { return nil }
        return "@.\"\(member)\" >= \(l) && @.\"\(member)\" <= \(h)"
    }

    /// `within box`: inclusive on every edge, corners normalized (min and
    /// max of each coordinate), as the evaluator plans it. Exact: stored
    /// numbers are the shortest text of a double (`cql load` writes them),
    /// and jsonb compares those decimals in the doubles' order.
    ///
    /// ```swift
    /// // where loc within [0, 0] and [10, 10]   →  t0."doc" @? $1::jsonpath
    /// // $1 = lax $."loc" ? (<isGeoPoint> && @."latitude" >= 0 && @."latitude" <= 10 && @."longitude" >= 0 && @."longitude" <= 10)
    /// ```
    static func withinBox(_ path: FieldPath, _ southwest: Term, _ northeast: Term, _ ctx: inout SQLContext) -> String? {
        guard !SQLTerms.coercesDates(path), let a = constantPoint(southwest), let b = constantPoint(northeast),
            let lat = between("latitude", min(a.latitude, b.latitude), max(a.latitude, b.latitude)),
            let lng = between("longitude", min(a.longitude, b.longitude), max(a.longitude, b.longitude))
        else { return nil }
        return test(path, "\(isGeoPoint) && \(lat) && \(lng)", &ctx)
    }

    /// `$centerSphere`: the central angle to the center is at most the
    /// radius, which is `near` with a maximum distance in radians; the same
    /// prefilter (``SQLNearBounds``: a bounding box and a widened SQL
    /// haversine), re-checked.
    static func withinCenterSphere(_ path: FieldPath, _ center: Term, _ radius: Term, _ ctx: inout SQLContext) -> String? {
        guard !SQLTerms.coercesDates(path), let c = constantPoint(center), let r = radius.value?.numberValue, r >= 0, r.isFinite,
            let bounds = SQLNearBounds(.near(path, point: .value(.geoPoint(c)), min: nil, max: Distance(.value(.double(r)), .radians)))
        else { return nil }
        return near(bounds, &ctx)
    }

    /// Absolute widening of a polygon's bounding box, in degrees: the
    /// evaluator's even-odd crossing abscissa is computed in doubles, whose
    /// rounding (a few ulps of 360, about 1e-13) could put it just outside
    /// the vertices' range; a point farther out than this is outside.
    static let polygonMargin = 1e-9

    /// `$geoWithin $polygon`: inside or on the edge (the evaluator's
    /// ``Polygon`` test in degree space) implies inside the vertices'
    /// bounding box: an edge test needs the point within its segment's box,
    /// and a point left, right, above or below every vertex crosses the
    /// polygon's edges an even number of times. The box (widened by
    /// ``polygonMargin``) is the prefilter; the rows are re-checked.
    static func withinPolygon(_ path: FieldPath, _ vertices: [Term], _ ctx: inout SQLContext) -> String? {
        guard !SQLTerms.coercesDates(path), vertices.count >= 3 else { return nil }
        var points: [GeoPoint] = []
        for v in vertices {
            guard let p = constantPoint(v) else { return nil }
            points.append(p)
        }
        let lats = points.map(\.latitude), lngs = points.map(\.longitude)
        guard let latLo = lats.min(), let latHi = lats.max(), let lngLo = lngs.min(), let lngHi = lngs.max(),
            let lat = between("latitude", latLo - polygonMargin, latHi + polygonMargin),
            let lng = between("longitude", lngLo - polygonMargin, lngHi + polygonMargin)
        else { return nil }
        return test(path, "\(isGeoPoint) && \(lat) && \(lng)", &ctx)
    }

    /// The dispatch of `leaf` for the geo predicates other than `near`.
    func geoLeaf(_ predicate: Predicate, _ ctx: inout SQLContext) -> SQLFragment {
        switch predicate {
        case .withinBox(let path, let sw, let ne):
            if let sql = PostgreSQLDialect.withinBox(path, sw, ne, &ctx) { return .exact(sql) }
        case .withinCenterSphere(let path, let center, let radius):
            ctx.note(SQLNotes.describe(predicate))
            return .superset(PostgreSQLDialect.withinCenterSphere(path, center, radius, &ctx))
        case .withinPolygon(let path, let vertices):
            ctx.note(SQLNotes.describe(predicate))
            return .superset(PostgreSQLDialect.withinPolygon(path, vertices, &ctx))
        case .and, .or, .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near,
             .geoIntersects:
            break
        }
        return notPushed(predicate, &ctx)
    }
}
