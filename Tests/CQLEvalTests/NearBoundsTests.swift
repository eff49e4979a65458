import XCTest
import CQLKit
import CorpusSupport
@testable import CQLEval

/// The SQL prefilter of `near` (SQLNearBounds) must be a superset: every
/// valid point the evaluator's haversine puts within the distance lies in
/// the box, including across the antimeridian and near the poles.
final class NearBoundsTests: XCTestCase {
    func near(_ center: GeoPoint, _ km: Double) -> CQLKit.Predicate {
        .near("loc", point: .value(.geoPoint(center)), min: nil, max: Distance(.value(.double(km)), .kilometers))
    }

    func inBox(_ b: SQLNearBounds, _ p: GeoPoint) -> Bool {
        guard b.latitude.contains(p.latitude) else { return false }
        return b.longitudes.isEmpty || b.longitudes.contains { $0.contains(p.longitude) }
    }

    func testEveryPointWithinTheDistanceIsInTheBox() {
        var rng = SplitMix64(seed: 20261123)
        var within = 0
        for _ in 0..<4000 {
            let center = GeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng))
            let km = [0.0, 0.5, 10, 200, 2000, 9000, 25000][Int.random(in: 0..<7, using: &rng)]
            guard let b = SQLNearBounds(near(center, km)) else { return XCTFail("no bounds for \(center) \(km)") }
            let maxAngle = km / DistanceUnit.kilometers.earthRadius
            for _ in 0..<50 {
                // Points near the center, on the circle's edge and at random.
                let p: GeoPoint
                switch Int.random(in: 0..<3, using: &rng) {
                case 0:
                    let d = maxAngle * 180 / .pi * Double.random(in: 0...1.2, using: &rng)
                    p = GeoPoint(latitude: max(-90, min(90, center.latitude + Double.random(in: -d...d, using: &rng))),
                                 longitude: wrap(center.longitude + Double.random(in: -3 * d...3 * d, using: &rng)))
                case 1:
                    p = GeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng))
                default:
                    // On the circle itself, at a random bearing: the
                    // westmost and eastmost points test the longitude spread.
                    p = destination(center, angle: maxAngle * (1 - 1e-12), bearing: Double.random(in: 0..<(2 * .pi), using: &rng))
                }
                if Haversine.centralAngle(center, p) <= maxAngle {
                    within += 1
                    XCTAssertTrue(inBox(b, p), "\(p) is \(Haversine.centralAngle(center, p)) rad from \(center), outside \(b)")
                }
            }
        }
        XCTAssertGreaterThan(within, 10_000)
    }

    func testTheBoxWrapsAtTheAntimeridianAndOpensAtThePoles() {
        let east = SQLNearBounds(near(GeoPoint(latitude: 0, longitude: 179), 200))!
        XCTAssertEqual(east.longitudes.count, 2)
        XCTAssertTrue(inBox(east, GeoPoint(latitude: 0, longitude: -179.5)))
        XCTAssertFalse(inBox(east, GeoPoint(latitude: 0, longitude: 170)))
        let pole = SQLNearBounds(near(GeoPoint(latitude: 89.5, longitude: 0), 200))!
        XCTAssertEqual(pole.longitudes, [])
        XCTAssertTrue(inBox(pole, GeoPoint(latitude: 89.9, longitude: 180)))
        XCTAssertNil(SQLNearBounds(CQLKit.Predicate.near("loc", point: .value(.geoPoint(GeoPoint(latitude: 0, longitude: 0))), min: nil, max: nil)))
    }

    private func destination(_ c: GeoPoint, angle d: Double, bearing t: Double) -> GeoPoint {
        let phi1 = c.latitude * .pi / 180, lambda1 = c.longitude * .pi / 180
        let phi2 = asin(sin(phi1) * cos(d) + cos(phi1) * sin(d) * cos(t))
        let lambda2 = lambda1 + atan2(sin(t) * sin(d) * cos(phi1), cos(d) - sin(phi1) * sin(phi2))
        return GeoPoint(latitude: phi2 * 180 / .pi, longitude: wrap(lambda2 * 180 / .pi))
    }

    private func wrap(_ lng: Double) -> Double {
        var x = lng
        while x > 180 { x -= 360 }
        while x < -180 { x += 360 }
        return x
    }
}
