import CQLKit
import XCTest

@testable import CQLEval

final class GeoTests: XCTestCase {
    private let beijing = GeoPoint(latitude: 39.9, longitude: 116.4)

    private func p(_ lat: Double, _ lng: Double) -> Term { .value(T.geo(lat, lng)) }

    private func near(_ center: Term, min: Distance? = nil, max: Distance? = nil) -> Condition {
        Condition(.near("loc", point: center, min: min, max: max), range: SourceRange(0, 4))
    }

    /// Points due north of Beijing, `km` away (1° of latitude = 6371·π/180 km).
    private func north(_ id: String, km: Double) -> [String: Value] {
        let degrees = km / (6371.0 * .pi / 180)
        return ["objectId": .string(id), "loc": T.geo(39.9 + degrees, 116.4)]
    }

    func testHaversine() {
        let shanghai = GeoPoint(latitude: 31.2304, longitude: 121.4737)
        XCTAssertEqual(Haversine.distance(beijing, shanghai, in: .kilometers), 1067.3, accuracy: 1)
        XCTAssertEqual(Haversine.distance(beijing, shanghai, in: .miles), 663.2, accuracy: 1)
        XCTAssertEqual(Haversine.distance(beijing, beijing, in: .meters), 0)
        // Antipodes: a rounds to ≥ 1; min(1, a) keeps asin defined.
        let antipode = GeoPoint(latitude: -39.9, longitude: -63.6)
        XCTAssertEqual(Haversine.centralAngle(beijing, antipode), .pi, accuracy: 1e-9)
        XCTAssertEqual(Haversine.distance(GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 1, longitude: 0), in: .kilometers),
                       6371.0 * .pi / 180, accuracy: 1e-9)
    }

    func testNearWithBoundsAndUnits() {
        let d = [north("a", km: 0.3), north("b", km: 0.7), north("c", km: 5), north("far", km: 50),
                 ["objectId": "none"], ["objectId": "str", "loc": "here"]]
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing)), max: Distance(.value(1), .kilometers)), d), ["a", "b"])
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing)), min: Distance(.value(0.5), .kilometers),
                                max: Distance(.value(1), .kilometers)), d), ["b"])
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing)), max: Distance(.value(4), .miles)), d), ["a", "b", "c"])
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing)), max: Distance(.value(600), .meters)), d), ["a"])
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing)), max: Distance(.value(.double(1.0 / 6371)), .radians)), d), ["a", "b"])
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing))), d), ["a", "b", "c", "far"])
        // max 0 is 0, not unlimited (Parse LiveQuery's mistake).
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing)), max: Distance(.value(0), .kilometers)), d), [])
    }

    func testUsergridLocationObjectsAreGeoPoints() {
        let d = docs(#"{"objectId":"u","loc":{"latitude":39.9,"longitude":116.4}}"#,
                     #"{"objectId":"x","loc":{"latitude":39.9,"longitude":116.4,"name":"z"}}"#)
        XCTAssertEqual(ids(near(.value(.geoPoint(beijing)), max: Distance(.value(10), .meters)), d), ["u"])
    }

    func testNearSortsNearestFirstUnlessOrdered() throws {
        let objects = [north("c", km: 5), north("a", km: 0.3), ["objectId": "none"], north("b", km: 0.7)]
        let store = DocumentStore(["T": objects])
        let plain = try QueryPlan(T.query(near(.value(.geoPoint(beijing)))), store: store)
        XCTAssertEqual(try plain.run().objects.compactMap { $0["objectId"]?.stringValue }, ["a", "b", "c"])
        let limited = try QueryPlan(T.query(near(.value(.geoPoint(beijing))), skip: 1, limit: 1), store: store)
        XCTAssertEqual(try limited.run().objects.compactMap { $0["objectId"]?.stringValue }, ["b"])
        let ordered = try QueryPlan(T.query(near(.value(.geoPoint(beijing))), order: [OrderKey("objectId", descending: true)]), store: store)
        XCTAssertEqual(try ordered.run().objects.compactMap { $0["objectId"]?.stringValue }, ["c", "b", "a"])
        // Inside an AND too.
        let both = Condition.and([T.c(.exists("loc", true)), near(.value(.geoPoint(beijing)))])
        XCTAssertEqual(try QueryPlan(T.query(both), store: store).run().objects.compactMap { $0["objectId"]?.stringValue }, ["a", "b", "c"])
    }

    func testNearErrors() {
        XCTAssertEqual(planError(near(p(91, 0)))?.kind, .invalidValue)
        XCTAssertEqual(planError(near(p(0, 180.5)))?.kind, .invalidValue)
        XCTAssertEqual(planError(near(.value("x")))?.kind, .invalidValue)
        let e = planError(near(.value(.geoPoint(beijing)), max: Distance(.value(-1), .kilometers)))
        XCTAssertEqual(e?.kind, .invalidValue)
        XCTAssertEqual(e?.range, SourceRange(0, 4))
        // An inverted distance range, compared as central angles (1 mile > 1.5 km),
        // as the binder and the where-JSON reader reject it. Found by RandomDifferentialTests.
        let inverted = planError(near(.value(.geoPoint(beijing)), min: Distance(.value(1), .miles), max: Distance(.value(1.5), .kilometers)))
        XCTAssertEqual(inverted?.kind, .invalidValue)
        XCTAssertTrue(inverted?.message.contains("min <= max") ?? false)
        // Equal bounds are fine.
        XCTAssertNoThrow(try QueryPlan(T.query(near(.value(.geoPoint(beijing)), min: Distance(.value(1), .kilometers),
                                                     max: Distance(.value(1), .kilometers)))))
    }

    func testBoxIsInclusive() {
        let d = docs(#"{"objectId":"in","loc":{"__type":"GeoPoint","latitude":39.98,"longitude":116.35}}"#,
                     #"{"objectId":"sw","loc":{"__type":"GeoPoint","latitude":39.97,"longitude":116.33}}"#,
                     #"{"objectId":"ne","loc":{"__type":"GeoPoint","latitude":39.99,"longitude":116.37}}"#,
                     #"{"objectId":"edge","loc":{"__type":"GeoPoint","latitude":39.99,"longitude":116.34}}"#,
                     #"{"objectId":"out","loc":{"__type":"GeoPoint","latitude":40.0,"longitude":116.35}}"#,
                     #"{"objectId":"arr","loc":[{"__type":"GeoPoint","latitude":0,"longitude":0},{"__type":"GeoPoint","latitude":39.98,"longitude":116.36}]}"#)
        let box = T.c(.withinBox("loc", southwest: p(39.97, 116.33), northeast: p(39.99, 116.37)))
        XCTAssertEqual(ids(box, d), ["in", "sw", "ne", "edge", "arr"])
    }

    func testInvertedBoxIsNormalized() {
        // EvaluationSemantics.md: corners the wrong way round are normalized, as MongoDB's $box does.
        let d = docs(#"{"objectId":"in","loc":{"__type":"GeoPoint","latitude":39.98,"longitude":116.35}}"#,
                     #"{"objectId":"out","loc":{"__type":"GeoPoint","latitude":40.5,"longitude":116.35}}"#)
        XCTAssertEqual(ids(T.c(.withinBox("loc", southwest: p(39.99, 116.33), northeast: p(39.97, 116.37))), d), ["in"])
        XCTAssertEqual(ids(T.c(.withinBox("loc", southwest: p(39.99, 116.37), northeast: p(39.97, 116.33))), d), ["in"])
    }

    func testPolygon() {
        // A concave "C" shape: x 0..4, y 0..4 with the notch x 2..4, y 1..3 removed.
        let c: [Term] = [p(0, 0), p(0, 4), p(1, 4), p(1, 2), p(3, 2), p(3, 4), p(4, 4), p(4, 0)]
        let d = [
            ("inside", 0.5, 0.5), ("notch", 2.0, 3.0), ("vertex", 1.0, 2.0), ("edge", 2.0, 2.0),
            ("bottomEdge", 0.0, 3.0), ("outside", 5.0, 1.0), ("left", 2.0, -0.1),
        ].map { ["objectId": Value.string($0.0), "loc": T.geo($0.1, $0.2)] }
        XCTAssertEqual(ids(T.c(.withinPolygon("loc", c)), d), ["inside", "vertex", "edge", "bottomEdge"])
        XCTAssertEqual(planError(T.c(.withinPolygon("loc", [p(0, 0), p(1, 1)])))?.kind, .invalidValue)
        XCTAssertEqual(planError(T.c(.withinPolygon("loc", [p(0, 0), p(1, 1), p(100, 1)])))?.kind, .invalidValue)
    }

    func testPolygonDiagonalEdge() {
        let triangle: [Term] = [p(0, 0), p(2, 2), p(0, 2)]
        let d = [("onDiagonal", 1.0, 1.0), ("below", 0.5, 1.0), ("above", 1.5, 1.0)].map {
            ["objectId": Value.string($0.0), "loc": T.geo($0.1, $0.2)]
        }
        XCTAssertEqual(ids(T.c(.withinPolygon("loc", triangle)), d), ["onDiagonal", "below"])
    }

    func testCenterSphere() {
        let d = [north("a", km: 10), north("b", km: 30)]
        let c = T.c(.withinCenterSphere("loc", center: .value(.geoPoint(beijing)), radius: .value(.double(20.0 / 6371))))
        XCTAssertEqual(ids(c, d), ["a"])
        XCTAssertEqual(planError(T.c(.withinCenterSphere("loc", center: .value(.geoPoint(beijing)), radius: .value(-1))))?.kind, .invalidValue)
    }

    func testGeoIntersects() {
        let d = docs(#"{"objectId":"poly","area":{"__type":"Polygon","coordinates":[[0,0],[0,10],[10,10],[10,0]]}}"#,
                     #"{"objectId":"pts","area":[{"__type":"GeoPoint","latitude":0,"longitude":0},{"__type":"GeoPoint","latitude":0,"longitude":1},{"__type":"GeoPoint","latitude":1,"longitude":1}]}"#,
                     #"{"objectId":"far","area":{"__type":"Polygon","coordinates":[[20,20],[20,30],[30,30]]}}"#,
                     #"{"objectId":"none","area":"x"}"#)
        XCTAssertEqual(ids(T.c(.geoIntersects("area", point: p(5, 5))), d), ["poly"])
        XCTAssertEqual(ids(T.c(.geoIntersects("area", point: p(0, 0.5))), d), ["poly", "pts"])
        XCTAssertEqual(planError(T.c(.geoIntersects("area", point: p(-95, 0))))?.kind, .invalidValue)
    }

    func testLngLatArrayConstantsAreMongoOrder() {
        let d = [north("a", km: 0.3)]
        XCTAssertEqual(ids(near(.value([116.4, 39.9]), max: Distance(.value(1), .kilometers)), d), ["a"])
    }
}
