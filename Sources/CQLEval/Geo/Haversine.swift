import CQLKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Great-circle distances (EvaluationSemantics.md, "Geo").
enum Haversine {
    /// The central angle between two points in radians:
    /// `2·asin(√min(1, a))` with `a = sin²(Δφ/2) + cos φ1 · cos φ2 · sin²(Δλ/2)`.
    /// The `min(1, a)` guards against rounding pushing `a` just above 1 for
    /// antipodal points (where `asin` would return NaN).
    static func centralAngle(_ p: GeoPoint, _ q: GeoPoint) -> Double {
        let radiansPerDegree = Double.pi / 180
        let phi1 = p.latitude * radiansPerDegree, phi2 = q.latitude * radiansPerDegree
        let dPhi = phi2 - phi1
        let dLambda = (q.longitude - p.longitude) * radiansPerDegree
        let s1 = sin(dPhi / 2), s2 = sin(dLambda / 2)
        let a = s1 * s1 + cos(phi1) * cos(phi2) * s2 * s2
        return 2 * asin(min(1, a).squareRoot())
    }

    /// The distance in `unit` (radians are the central angle itself).
    static func distance(_ p: GeoPoint, _ q: GeoPoint, in unit: DistanceUnit) -> Double {
        centralAngle(p, q) * unit.earthRadius
    }
}
