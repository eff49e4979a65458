import CQLKit

/// Geo predicates resolved at plan time: points validated, distances turned
/// into central angles, boxes and polygons checked (EvaluationSemantics.md).
extension Planner {
    func planGeo(_ predicate: Predicate, _ r: SourceRange?) throws(QueryError) -> Node {
        switch predicate {
        case .near(let path, let pointTerm, let minDistance, let maxDistance):
            let center = try point(pointTerm, r)
            let minAngle = try angle(minDistance, r, what: "the minimum distance")
            let maxAngle = try angle(maxDistance, r, what: "the maximum distance")
            // An inverted range is a query error, as the binder and the
            // where-JSON reader make it (eval corpus, geo.cases [decision]);
            // a hand-built AST reaches the planner without either.
            if let minAngle, let maxAngle, minAngle > maxAngle {
                throw error(.invalidValue, "'near' needs min <= max: the minimum distance is greater than the maximum distance", r)
            }
            return .geo(Accessor(path), .near(center: center, minAngle: minAngle, maxAngle: maxAngle))
        case .withinBox(let path, let swTerm, let neTerm):
            // Corners the wrong way round are normalized (min and max of
            // each coordinate), as MongoDB's `$box` does; the front ends do
            // it too, a hand-built AST reaches the planner without them.
            let a = try point(swTerm, r), b = try point(neTerm, r)
            let sw = GeoPoint(latitude: min(a.latitude, b.latitude), longitude: min(a.longitude, b.longitude))
            let ne = GeoPoint(latitude: max(a.latitude, b.latitude), longitude: max(a.longitude, b.longitude))
            return .geo(Accessor(path), .box(southwest: sw, northeast: ne))
        case .withinPolygon(let path, let terms):
            var vertices: [GeoPoint] = []
            for t in terms { vertices.append(try point(t, r)) }
            guard vertices.count >= 3 else {
                throw error(.invalidValue, "a polygon needs at least 3 points, found \(vertices.count)", r)
            }
            return .geo(Accessor(path), .polygon(vertices))
        case .withinCenterSphere(let path, let centerTerm, let radiusTerm):
            let center = try point(centerTerm, r)
            let radius = try number(radiusTerm, r, what: "the $centerSphere radius")
            guard radius >= 0, radius.isFinite else {
                throw error(.invalidValue, "the $centerSphere radius must be a non-negative number of radians, found \(radius)", r)
            }
            return .geo(Accessor(path), .centerSphere(center: center, radius: radius))
        case .geoIntersects(let path, let pointTerm):
            return .geoIntersects(Accessor(path), try point(pointTerm, r))
        case .and, .or, .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants:
            return .constant(false)
        }
    }

    /// A GeoPoint constant: a GeoPoint, a `{latitude, longitude}` object, or
    /// `[longitude, latitude]` (MongoDB's order); in range.
    func point(_ term: Term, _ r: SourceRange?) throws(QueryError) -> GeoPoint {
        let v = try value(term, r)
        var p = Semantic.geoPoint(v)
        if p == nil, case .array(let pair) = v, pair.count == 2, let lng = pair[0].numberValue, let lat = pair[1].numberValue {
            p = GeoPoint(latitude: lat, longitude: lng)
        }
        guard let p else { throw error(.invalidValue, "expected a GeoPoint, found \(describe(v))", r) }
        guard p.isValid else {
            throw error(
                .invalidValue,
                "invalid GeoPoint values (\(p.longitude), \(p.latitude)): latitude must be in -90...90 and longitude in -180...180",
                r)
        }
        return p
    }

    /// A distance bound as a central angle in radians.
    private func angle(_ distance: Distance?, _ r: SourceRange?, what: String) throws(QueryError) -> Double? {
        guard let distance else { return nil }
        let d = try number(distance.value, r, what: what)
        guard d >= 0, !d.isNaN else { throw error(.invalidValue, "\(what) must not be negative, found \(d)", r) }
        return d / distance.unit.earthRadius
    }
}
