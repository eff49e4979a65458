/// Geo operators: `$nearSphere` with its distance bounds, `$within` /
/// `$geoWithin` (`$box`, `$polygon`, `$centerSphere`, GeoJSON polygon) and
/// `$geoIntersects`. Points may be REST GeoPoints, `{latitude, longitude}`
/// objects or MongoDB `[longitude, latitude]` pairs; all are range-checked.
extension WhereJSONReading {
    /// The distance bounds of `$nearSphere`: whether each is the maximum, and
    /// its unit (`nil`: `$maxDistance`, radians for a legacy point and meters
    /// for a GeoJSON one, as in MongoDB).
    static let distanceOperators: [String: (isMax: Bool, unit: DistanceUnit?)] = [
        "$maxDistance": (true, nil), "$maxDistanceInRadians": (true, .radians),
        "$maxDistanceInKilometers": (true, .kilometers), "$maxDistanceInMiles": (true, .miles),
        "$minDistance": (false, nil), "$minDistanceInRadians": (false, .radians),
        "$minDistanceInKilometers": (false, .kilometers), "$minDistanceInMiles": (false, .miles),
    ]

    /// `$nearSphere` and its companions in the operator object `o` at `path`.
    func readNear(_ field: FieldPath, _ o: [String: Value], path: String) throws(QueryError) -> Predicate {
        let np = Self.join(path, "$nearSphere")
        guard let pointValue = o["$nearSphere"] else { throw fail(.syntax, np, "missing '$nearSphere'") }
        var bounds: [(key: String, value: Value, path: String)] = []
        for (key, value) in Self.sortedMembers(o) where Self.distanceOperators[key] != nil {
            bounds.append((key, value, Self.join(path, key)))
        }
        let point: GeoPoint
        var plainUnit = DistanceUnit.radians
        if case .object(let po) = pointValue, let geometry = po["$geometry"] {
            // GeoJSON form: `{"$geometry": {...}, "$maxDistance": meters}`.
            try onlyKeys(po, ["$geometry", "$maxDistance", "$minDistance"], path: np, in: "$nearSphere")
            point = try geoJSONPoint(geometry, path: Self.join(np, "$geometry"))
            plainUnit = .meters
            for (key, value) in Self.sortedMembers(po) where key != "$geometry" {
                bounds.append((key, value, Self.join(np, key)))
            }
        } else {
            point = try geoPoint(pointValue, path: np)
        }
        var minimum: (Distance, String)?
        var maximum: (Distance, String)?
        for bound in bounds {
            guard let spec = Self.distanceOperators[bound.key] else { continue }
            let distance = Distance(.value(try nonNegativeNumber(bound.value, path: bound.path)), spec.unit ?? plainUnit)
            let previous = spec.isMax ? maximum : minimum
            if let previous {
                let which = spec.isMax ? "maximum" : "minimum"
                throw fail(.syntax, bound.path, "more than one \(which) distance ('\(previous.1)' and '\(bound.key)')")
            }
            if spec.isMax { maximum = (distance, bound.key) } else { minimum = (distance, bound.key) }
        }
        if let lo = minimum, let hi = maximum, Self.radians(lo.0) > Self.radians(hi.0) {
            throw fail(.invalidValue, path, "the minimum distance ('\(lo.1)') is greater than the maximum distance ('\(hi.1)')")
        }
        return .near(field, point: .value(.geoPoint(point)), min: minimum?.0, max: maximum?.0)
    }

    /// A distance as a central angle, to compare bounds given in different units.
    private static func radians(_ d: Distance) -> Double {
        (d.value.value?.numberValue ?? 0) / d.unit.earthRadius
    }

    /// `$within` / `$geoWithin`: exactly one shape.
    func readGeoWithin(_ field: FieldPath, _ value: Value, path: String) throws(QueryError) -> Predicate {
        guard case .object(let o) = value, o.count == 1, let (shape, shapeValue) = Self.sortedMembers(o).first else {
            throw fail(.syntax, path, "expected one shape: {\"$box\": [...]}, {\"$polygon\": [...]}, {\"$centerSphere\": [...]} or {\"$geometry\": ...}")
        }
        let sp = Self.join(path, shape)
        switch shape {
        case "$box":
            guard case .array(let corners) = shapeValue, corners.count == 2 else {
                throw fail(.syntax, sp, "expected two points [southwest, northeast], found \(Self.countDescription(shapeValue))")
            }
            let a = try geoPoint(corners[0], path: Self.join(sp, index: 0))
            let b = try geoPoint(corners[1], path: Self.join(sp, index: 1))
            // Corners the wrong way round are normalized, as MongoDB's `$box` does.
            let (sw, ne) = OperandChecks.box(a, b)
            return .withinBox(field, southwest: .value(.geoPoint(sw)), northeast: .value(.geoPoint(ne)))
        case "$polygon":
            guard case .array(let vertices) = shapeValue else { throw expected("an array of points", sp, found: shapeValue) }
            return .withinPolygon(field, try polygon(vertices, path: sp))
        case "$centerSphere":
            guard case .array(let parts) = shapeValue, parts.count == 2 else {
                throw fail(.syntax, sp, "expected [[longitude, latitude], radius], found \(Self.countDescription(shapeValue))")
            }
            let center = try geoPoint(parts[0], path: Self.join(sp, index: 0))
            let radius = try nonNegativeNumber(parts[1], path: Self.join(sp, index: 1))
            return .withinCenterSphere(field, center: .value(.geoPoint(center)), radius: .value(radius))
        case "$geometry":
            return .withinPolygon(field, try geoJSONPolygon(shapeValue, path: sp))
        default:
            throw fail(.syntax, sp, "unknown shape '\(shape)' (expected $box, $polygon, $centerSphere or $geometry)")
        }
    }

    /// `$geoIntersects: {"$point": <GeoPoint>}` (Parse) or `{"$geometry": <GeoJSON Point>}` (MongoDB).
    func readGeoIntersects(_ field: FieldPath, _ value: Value, path: String) throws(QueryError) -> Predicate {
        guard case .object(let o) = value, o.count == 1, let (key, pointValue) = Self.sortedMembers(o).first else {
            throw fail(.syntax, path, "expected {\"$point\": <GeoPoint>} or {\"$geometry\": {\"type\": \"Point\", ...}}")
        }
        let p = Self.join(path, key)
        switch key {
        case "$point": return .geoIntersects(field, point: .value(.geoPoint(try geoPoint(pointValue, path: p))))
        case "$geometry": return .geoIntersects(field, point: .value(.geoPoint(try geoJSONPoint(pointValue, path: p))))
        default: throw fail(.syntax, p, "unexpected '\(key)' in '$geoIntersects' (expected '$point' or '$geometry')")
        }
    }

    /// At least three vertices.
    private func polygon(_ vertices: [Value], path: String) throws(QueryError) -> [Term] {
        if vertices.count < 3 { throw fail(.invalidValue, path, "a polygon needs at least 3 points, found \(vertices.count)") }
        var points: [Term] = []
        for (i, v) in vertices.enumerated() {
            points.append(.value(.geoPoint(try geoPoint(v, path: Self.join(path, index: i)))))
        }
        return points
    }

    /// A GeoJSON `{"type": "Polygon", "coordinates": [[[lng, lat], ...]]}`
    /// with one ring; the closing vertex (equal to the first) is dropped.
    private func geoJSONPolygon(_ value: Value, path: String) throws(QueryError) -> [Term] {
        let coordinates = try geoJSON(value, type: "Polygon", path: path)
        let cp = Self.join(path, "coordinates")
        guard case .array(let rings) = coordinates, rings.count == 1, case .array(var ring) = rings[0] else {
            throw fail(.unsupported, cp, "expected exactly one ring [[[longitude, latitude], ...]] (polygons with holes are not supported)")
        }
        if ring.count > 3, ring.first == ring.last { ring.removeLast() }
        return try polygon(ring, path: Self.join(cp, index: 0))
    }

    /// A GeoJSON `{"type": "Point", "coordinates": [lng, lat]}`.
    private func geoJSONPoint(_ value: Value, path: String) throws(QueryError) -> GeoPoint {
        let coordinates = try geoJSON(value, type: "Point", path: path)
        guard case .array(let pair) = coordinates, pair.count == 2 else {
            throw fail(.syntax, Self.join(path, "coordinates"), "expected [longitude, latitude], found \(Self.countDescription(coordinates))")
        }
        return try geoPoint(coordinates, path: Self.join(path, "coordinates"))
    }

    /// The `coordinates` of a GeoJSON object of the given `type`.
    private func geoJSON(_ value: Value, type: String, path: String) throws(QueryError) -> Value {
        guard case .object(let o) = value else { throw expected("a GeoJSON \(type) object", path, found: value) }
        try onlyKeys(o, ["type", "coordinates"], path: path, in: "$geometry")
        guard case .string(type)? = o["type"] else {
            throw fail(.syntax, o["type"] == nil ? path : Self.join(path, "type"), "expected a GeoJSON geometry of type '\(type)'")
        }
        guard let coordinates = o["coordinates"] else { throw fail(.syntax, path, "GeoJSON \(type) needs 'coordinates'") }
        return coordinates
    }

    /// A point: `{"__type":"GeoPoint",...}`, `{"latitude":..,"longitude":..}`,
    /// `[longitude, latitude]`, or a typed `.geoPoint`; checked for range.
    func geoPoint(_ value: Value, path: String) throws(QueryError) -> GeoPoint {
        switch value {
        case .array(let pair) where pair.count == 2:
            let lngPath = Self.join(path, index: 0), latPath = Self.join(path, index: 1)
            guard let lng = pair[0].numberValue else { throw expected("a longitude number", lngPath, found: pair[0]) }
            guard let lat = pair[1].numberValue else { throw expected("a latitude number", latPath, found: pair[1]) }
            return try checked(GeoPoint(latitude: lat, longitude: lng), latPath: latPath, lngPath: lngPath)
        case .object(let o) where o["__type"] != nil:
            guard case .geoPoint(let g) = try decodeValue(value, path: path) else {
                throw expected("a GeoPoint", path, found: try decodeValue(value, path: path))
            }
            return g
        case .object(let o) where o.count == 2:
            let latPath = Self.join(path, "latitude"), lngPath = Self.join(path, "longitude")
            guard let lat = o["latitude"]?.numberValue, let lng = o["longitude"]?.numberValue else { break }
            return try checked(GeoPoint(latitude: lat, longitude: lng), latPath: latPath, lngPath: lngPath)
        case .geoPoint(let g):
            return try checked(g, latPath: path, lngPath: path)
        default:
            break
        }
        throw fail(.syntax, path, "expected a GeoPoint ({\"__type\":\"GeoPoint\",\"latitude\":..,\"longitude\":..} or [longitude, latitude]), found \(Self.countDescription(value))")
    }

    func checkGeoPoint(_ g: GeoPoint, path: String) throws(QueryError) {
        _ = try checked(g, latPath: path, lngPath: path)
    }

    private func checked(_ g: GeoPoint, latPath: String, lngPath: String) throws(QueryError) -> GeoPoint {
        guard (-90.0...90.0).contains(g.latitude) else {
            throw fail(.invalidValue, latPath, "latitude \(g.latitude) is out of range -90...90")
        }
        guard (-180.0...180.0).contains(g.longitude) else {
            throw fail(.invalidValue, lngPath, "longitude \(g.longitude) is out of range -180...180")
        }
        return g
    }

    /// "an array of 3 elements", "a string", for shape errors.
    static func countDescription(_ v: Value) -> String {
        if case .array(let a) = v { return "an array of \(a.count) element\(a.count == 1 ? "" : "s")" }
        return v.typeDescription
    }
}
