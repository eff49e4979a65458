import CQLKit

/// A test of one stored point, with its bounds resolved at plan time.
enum GeoTest: Sendable {
    /// `near`: the central angle to `center` is within `[min, max]` radians
    /// (both inclusive; `nil` = unbounded).
    case near(center: GeoPoint, minAngle: Double?, maxAngle: Double?)
    /// `within box`: inclusive on every edge.
    case box(southwest: GeoPoint, northeast: GeoPoint)
    /// `$geoWithin $polygon`: inside or on the edge (even-odd rule, degrees).
    case polygon([GeoPoint])
    /// `$centerSphere`: central angle to `center` ≤ `radius` radians.
    case centerSphere(center: GeoPoint, radius: Double)

    func passes(_ p: GeoPoint) -> Bool {
        switch self {
        case .near(let center, let minAngle, let maxAngle):
            let d = Haversine.centralAngle(center, p)
            if let minAngle, d < minAngle { return false }
            if let maxAngle, d > maxAngle { return false }
            return true
        case .box(let sw, let ne):
            return sw.latitude <= p.latitude && p.latitude <= ne.latitude
                && sw.longitude <= p.longitude && p.longitude <= ne.longitude
        case .polygon(let vertices):
            return Polygon.contains(vertices, p)
        case .centerSphere(let center, let radius):
            return Haversine.centralAngle(center, p) <= radius
        }
    }
}
