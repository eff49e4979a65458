/// Geo predicates in each dialect's form (WhereJSON.md, "Dialects"): REST GeoPoints and
/// unit-named distances for LeanCloud/Parse; `[lng, lat]` and radians for Mongo.
extension ConditionEmitter {
    func geo(_ c: Condition, _ ctx: Context) throws(QueryError) -> WhereDoc {
        let r = c.range
        switch c.predicate {
        case .near(let path, let point, let min, let max):
            try topLevelOnly(c, ctx)
            let k = try key(path, r)
            let p = try geoPoint(point, at: r)
            var ops: [(String, Value)] = [("$nearSphere", pointValue(p))]
            if let min { ops.append(try distance(min, bound: "min", at: r)) }
            if let max { ops.append(try distance(max, bound: "max", at: r)) }
            return .field(k, .operators(ops))
        case .withinBox(let path, let sw, let ne):
            let box: Value = .array([pointValue(try geoPoint(sw, at: r)), pointValue(try geoPoint(ne, at: r))])
            return .op(try key(path, r), table.boxOperator, .object(["$box": box]))
        case .withinPolygon(let path, let terms):
            try require(.polygon, c)
            guard terms.count >= 3 else {
                throw QueryError(.invalidValue, "'$polygon' needs at least 3 points, found \(terms.count)", range: r)
            }
            var points: [Value] = []
            for t in terms { points.append(pointValue(try geoPoint(t, at: r))) }
            return .op(try key(path, r), "$geoWithin", .object(["$polygon": .array(points)]))
        case .withinCenterSphere(let path, let center, let radius):
            try require(.centerSphere, c)
            let p = try geoPoint(center, at: r)
            let body: Value = .array([lngLat(p), try number(radius, "$centerSphere", at: r)])
            return .op(try key(path, r), "$geoWithin", .object(["$centerSphere": body]))
        case .geoIntersects(let path, let point):
            try require(.geoIntersects, c)
            let p = try geoPoint(point, at: r)
            let body: Value
            switch table.points {
            case .geoPoint: body = .object(["$point": .geoPoint(p)])
            case .lngLatArray: body = .object(["$geometry": .object(["type": "Point", "coordinates": lngLat(p)])])
            }
            return .op(try key(path, r), "$geoIntersects", body)
        case .and, .or, .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants:
            throw table.unsupported(c.predicate.constructName, range: r)
        }
    }

    private func geoPoint(_ t: Term, at range: SourceRange?) throws(QueryError) -> GeoPoint {
        let v = try value(t, at: range)
        guard case .geoPoint(let p) = v else {
            throw QueryError(.invalidValue, "expected a GeoPoint, found \(v.typeDescription)", range: range)
        }
        return p
    }

    private func lngLat(_ p: GeoPoint) -> Value { .array([.double(p.longitude), .double(p.latitude)]) }

    private func pointValue(_ p: GeoPoint) -> Value {
        switch table.points {
        case .geoPoint: return .geoPoint(p)
        case .lngLatArray: return lngLat(p)
        }
    }

    /// `$maxDistanceInKilometers: 1` (meters become kilometers) or, in
    /// radians form, `$maxDistance: d / earthRadius(unit)`.
    private func distance(_ d: Distance, bound: String, at range: SourceRange?) throws(QueryError) -> (String, Value) {
        let v = try number(d.value, bound, at: range)
        let x = v.numberValue ?? 0
        switch table.distances {
        case .unitKeys:
            switch d.unit {
            case .kilometers: return ("$\(bound)DistanceInKilometers", v)
            case .miles: return ("$\(bound)DistanceInMiles", v)
            case .radians: return ("$\(bound)DistanceInRadians", v)
            case .meters: return ("$\(bound)DistanceInKilometers", .double(x / 1000))
            }
        case .radians:
            return ("$\(bound)Distance", d.unit == .radians ? v : .double(x / d.unit.earthRadius))
        }
    }
}
