// sin, cos, asin from the C library (CQLKit does not link Foundation).
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The prefilter of a `near` with a maximum distance: the latitude band and
/// longitude ranges every point within that distance lies in (the bounding
/// box an index on the coordinates can serve), and the central angle a SQL
/// haversine compares with — each widened by a margin, so that SQL's
/// floating point (another formula order, another libm) can only let more
/// rows through, never fewer. The rows are re-checked by the evaluator's own
/// haversine, so the answer stays exact while most rows never leave the
/// database.
///
/// Only stored points with valid coordinates are bounded: the haversine of a
/// latitude outside -90...90 can be smaller than its latitude difference, so
/// such points (and longitudes outside -180...180) always pass the
/// prefilter.
///
/// ```swift
/// let near = Predicate.near("loc", point: .value(.geoPoint(GeoPoint(latitude: 0, longitude: 179))),
///                           min: nil, max: Distance(.value(.int(200)), .kilometers))
/// let b = SQLNearBounds(near)!
/// b.latitude      // -1.798... ... 1.798...  (200 km is 1.7986 degrees)
/// b.longitudes    // [177.201... ... 180.0, -180.0 ... -179.201...]  (wrapped at 180)
/// ```
public struct SQLNearBounds: Sendable, Equatable {
    public var path: FieldPath
    public var center: GeoPoint
    /// The largest central angle (radians) a passing point may have, margin included.
    public var maxAngle: Double
    public var latitude: ClosedRange<Double>
    /// Empty when every longitude can be within the distance (the band
    /// reaches a pole).
    public var longitudes: [ClosedRange<Double>]

    /// The center's latitude and longitude in radians and the cosine of its
    /// latitude: the constants of the SQL haversine, computed once here.
    public var centerLatitudeRadians: Double { center.latitude * Double.pi / 180 }
    public var centerLongitudeRadians: Double { center.longitude * Double.pi / 180 }
    public var cosCenterLatitude: Double { cos(centerLatitudeRadians) }

    /// Relative and absolute margins: far above the rounding of a few
    /// trigonometric operations (1e-16 relative), far below a meter.
    static let relativeMargin = 1e-9
    static let absoluteMargin = 1e-12

    /// The bounds of `predicate`, or `nil` when it is not a `near` with a
    /// constant valid GeoPoint and a constant non-negative maximum distance.
    public init?(_ predicate: Predicate) {
        guard case .near(let path, .value(let point), _, let maximum?) = predicate,
            case .geoPoint(let center) = point, center.isValid,
            case .value(let d) = maximum.value, let distance = d.numberValue, distance.isFinite, distance >= 0
        else { return nil }
        self.path = path
        self.center = center
        let angle = distance / maximum.unit.earthRadius
        maxAngle = angle * (1 + Self.relativeMargin) + Self.absoluteMargin
        let degrees = maxAngle * 180 / Double.pi
        let lo = center.latitude - degrees - Self.absoluteMargin, hi = center.latitude + degrees + Self.absoluteMargin
        latitude = lo...hi
        longitudes = []
        guard lo > -90, hi < 90, maxAngle < Double.pi / 2 else { return }
        // The widest longitude difference at this distance (sin r / cos φ ≤ 1
        // since the band stays off the poles).
        let ratio = sin(maxAngle) / cosCenterLatitude
        guard ratio < 1 else { return }
        let spread = asin(ratio) * 180 / Double.pi * (1 + Self.relativeMargin) + Self.absoluteMargin
        guard spread < 180 else { return }
        let west = center.longitude - spread, east = center.longitude + spread
        longitudes = [max(west, -180)...min(east, 180)]
        // The haversine sees longitudes modulo 360: the band wraps at ±180.
        if west < -180 { longitudes.append((west + 360)...180) }
        if east > 180 { longitudes.append(-180...(east - 360)) }
    }
}
