import CQLKit

/// Point-in-polygon in degree space (longitude = x, latitude = y), the way
/// Parse Server's `$geoWithin $polygon` and `$geoIntersects` treat it.
enum Polygon {
    /// Inside by the even-odd rule, or exactly on an edge or vertex.
    static func contains(_ vertices: [GeoPoint], _ p: GeoPoint) -> Bool {
        guard vertices.count >= 3 else { return false }
        let x = p.longitude, y = p.latitude
        var inside = false
        var j = vertices.count - 1
        for i in 0..<vertices.count {
            let xi = vertices[i].longitude, yi = vertices[i].latitude
            let xj = vertices[j].longitude, yj = vertices[j].latitude
            if onSegment(x, y, xi, yi, xj, yj) { return true }
            // Half-open rule on y so a ray through a vertex counts once.
            if (yi > y) != (yj > y) {
                let crossX = xi + (y - yi) * (xj - xi) / (yj - yi)
                if x < crossX { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    private static func onSegment(_ x: Double, _ y: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Bool {
        guard x >= min(x1, x2), x <= max(x1, x2), y >= min(y1, y2), y <= max(y1, y2) else { return false }
        let cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
        // Tolerance scaled to the segment so that points computed on an edge
        // in degrees (rounding in the last bits) still count as on it.
        let scale = max(abs(x2 - x1), abs(y2 - y1), 1)
        return abs(cross) <= 1e-12 * scale * scale
    }

    /// The vertices of a stored polygon: Parse's
    /// `{"__type":"Polygon","coordinates":[[lat, lng], ...]}`, or an array of
    /// GeoPoints. `nil` when the value is not a polygon.
    static func vertices(of value: Value) -> [GeoPoint]? {
        switch value {
        case .object(let o):
            guard case .string("Polygon")? = o["__type"], case .array(let coords)? = o["coordinates"] else { return nil }
            var out: [GeoPoint] = []
            for c in coords {
                guard case .array(let pair) = c, pair.count == 2,
                    let lat = pair[0].numberValue, let lng = pair[1].numberValue
                else { return nil }
                out.append(GeoPoint(latitude: lat, longitude: lng))
            }
            return out.count >= 3 ? out : nil
        case .array(let items):
            var out: [GeoPoint] = []
            for item in items {
                guard let p = Semantic.geoPoint(item) else { return nil }
                out.append(p)
            }
            return out.count >= 3 ? out : nil
        default:
            return nil
        }
    }
}
