import XCTest
@testable import CQLKit

final class BinderTests: XCTestCase {
    func bind(_ text: String, _ params: [Value], now: DateValue? = nil) throws -> Query {
        try Binder.bind(try CQLParser.parse(text), parameters: params, now: now)
    }

    func bindError(_ text: String, _ params: [Value], now: DateValue? = nil) -> QueryError? {
        do { _ = try bind(text, params, now: now); return nil } catch { return error as? QueryError }
    }

    func testPlaceholdersAndCalls() throws {
        let q = try bind("select * from T where a = ? and b in (1, ?) and c < date(?) and d = pointer('Post', ?) and e = [?, 2] limit ?, ?",
                         ["x", 2, "2015-06-21T18:02:52.249Z", "p1", true, 5, 10])
        XCTAssertEqual(q.condition, .and([
            Condition(.compare("a", .equal, .value("x"))),
            Condition(.in("b", [.value(1), .value(2)], negated: false)),
            Condition(.compare("c", .lessThan, .value(.date(DateValue(millisecondsSince1970: 1_434_909_772_249))))),
            Condition(.compare("d", .equal, .value(.pointer(Pointer(className: "Post", objectId: "p1"))))),
            Condition(.compare("e", .equal, .value([true, 2]))),
        ]))
        XCTAssertEqual(q.skip, .value(5))
        XCTAssertEqual(q.limit, .value(10))
        XCTAssertEqual(q.placeholderCount, 0)
        XCTAssertNotNil(q.source)
    }

    func testDocumentationExample() throws {
        let q = try CQLParser.parse("select * from T where at < date(?) and loc near ? limit ?")
        let b = try Binder.bind(q, parameters: ["2015-06-21T18:02:52.249Z", [116.4, 39.9], 10])
        XCTAssertEqual(b.condition, .and([
            Condition(.compare("at", .lessThan, .value(.date(DateValue(millisecondsSince1970: 1_434_909_772_249))))),
            Condition(.near("loc", point: .value(.geoPoint(GeoPoint(latitude: 39.9, longitude: 116.4))), min: nil, max: nil)),
        ]))
        XCTAssertEqual(b.limit, .value(10))
        XCTAssertThrowsError(try Binder.bind(q, parameters: ["2015-06-21"])) { e in
            XCTAssertEqual((e as? QueryError)?.shortDescription, "1:49: no value for the 2nd '?': the query has 3 placeholders but 1 value was given")
        }
    }

    func testSubqueriesAndGeo() throws {
        let q = try bind("select * from T where a in (select b from U where c = ? limit ?) and loc near ? max ? km and box within [?, ?] and geopoint(?, ?)",
                         [1, 3, [116.4, 39.9], 2.5, 0, 0, 10, 10])
        guard case .and(let items)? = q.condition?.predicate else { return XCTFail() }
        XCTAssertEqual(items[0].predicate, .select("a", key: "b", query: Query(className: "U", condition: Condition(.compare("c", .equal, .value(1))), limit: .value(3)), negated: false))
        XCTAssertEqual(items[1].predicate, .near("loc", point: .value(.geoPoint(GeoPoint(latitude: 39.9, longitude: 116.4))), min: nil, max: Distance(.value(2.5), .kilometers)))
        XCTAssertEqual(items[2].predicate, .withinBox("box", southwest: .value(.geoPoint(GeoPoint(latitude: 0, longitude: 0))),
                                                      northeast: .value(.geoPoint(GeoPoint(latitude: 10, longitude: 10)))))
    }

    func testRawRESTParametersAreDecoded() throws {
        let raw = try JSONReader.parse(#"[{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"},{"__type":"GeoPoint","latitude":1,"longitude":2}]"#)
        guard case .array(let params) = raw else { return XCTFail() }
        let q = try bind("select * from T where a > ? and loc near ?", params)
        XCTAssertEqual(q.condition, .and([
            Condition(.compare("a", .greaterThan, .value(.date(DateValue(millisecondsSince1970: 1_434_909_772_249))))),
            Condition(.near("loc", point: .value(.geoPoint(GeoPoint(latitude: 1, longitude: 2))), min: nil, max: nil)),
        ]))
    }

    func testRegexOptionsFromParameters() throws {
        let q = try bind("select * from T where a regexp ?", ["(?mi)^x"])
        XCTAssertEqual(q.condition?.predicate, .regex("a", pattern: .value("^x"), options: "im"))
    }

    func testNow() throws {
        let now = DateValue(millisecondsSince1970: 1_000_000_000_000)
        let q = try CQLParser.parse("select * from T where a < current_timestamp()")
        XCTAssertEqual(try Binder.bind(q, parameters: []).condition?.predicate, .compare("a", .lessThan, .currentTimestamp))
        XCTAssertEqual(try Binder.bind(q, parameters: [], now: now).condition?.predicate, .compare("a", .lessThan, .value(.date(now))))

        func relative(_ text: String) throws -> Term? {
            let q = Query(className: "T", condition: Condition(.compare("a", .lessThan, .relativeTime(text))))
            guard case .compare(_, _, let t)? = try Binder.bind(q, parameters: [], now: now).condition?.predicate else { return nil }
            return t
        }
        func at(_ deltaSeconds: Int64) -> Term { .value(.date(DateValue(millisecondsSince1970: now.millisecondsSince1970 + deltaSeconds * 1000))) }
        XCTAssertEqual(try relative("now"), at(0))
        XCTAssertEqual(try relative("in 2 days"), at(2 * 86_400))
        XCTAssertEqual(try relative("3 hours ago"), at(-3 * 3600))
        XCTAssertEqual(try relative("In 1 Year 2 weeks 5 mins 1 sec"), at(31_536_000 + 2 * 604_800 + 300 + 1))
        XCTAssertEqual(try relative("1 month ago"), at(-30 * 86_400))
        for bad in ["", "2 days", "in 2 days ago", "in 2", "in two days", "in 2 fortnights", "in 1.5 days", "in", "in 99999999999999999 years"] {
            XCTAssertThrowsError(try relative(bad), bad) { e in XCTAssertEqual((e as? QueryError)?.kind, .invalidValue, bad) }
        }
        // Without `now`, relative times are still checked but stay unresolved.
        let unresolved = Query(className: "T", condition: Condition(.compare("a", .lessThan, .relativeTime("in 2 days"))))
        XCTAssertEqual(try Binder.bind(unresolved, parameters: []), unresolved)
        let broken = Query(className: "T", condition: Condition(.compare("a", .lessThan, .relativeTime("soon"))))
        XCTAssertThrowsError(try Binder.bind(broken, parameters: []))
    }

    func testErrors() {
        XCTAssertEqual(bindError("select * from T where a = ? and b = ?", [1])?.shortDescription,
                       "1:37: no value for the 2nd '?': the query has 2 placeholders but 1 value was given")
        XCTAssertEqual(bindError("select * from T where a = ?", [1, 2])?.kind, .binding)
        XCTAssertEqual(bindError("select * from T where loc near ? max ?", [[1, 2], -1])?.shortDescription,
                       "1:38: a distance must be a non-negative number, found -1")
        XCTAssertEqual(bindError("select * from T where loc near ?", [[200, 2]])?.kind, .invalidValue)
        XCTAssertEqual(bindError("select * from T where related r to ?", ["x"])?.kind, .invalidValue)
        // Box corners the wrong way round are normalized (MongoDB's $box), not an error.
        XCTAssertEqual(try Binder.bind(try CQLParser.parse("select * from T where loc within ? and ?"), parameters: [[1, 0], [0, 1]]).condition?.predicate,
                       .withinBox("loc", southwest: .value(.geoPoint(GeoPoint(latitude: 0, longitude: 0))),
                                  northeast: .value(.geoPoint(GeoPoint(latitude: 1, longitude: 1)))))
        XCTAssertEqual(bindError("select * from T where a = base64(?)", ["not base64!"])?.kind, .invalidValue)
        XCTAssertEqual(bindError("select * from T limit ?", [1.5])?.shortDescription, "1:23: limit must be a non-negative integer, found 1.5")
        // A whole double is the integer (as the where-JSON reader and the evaluator read it).
        XCTAssertEqual(try Binder.bind(try CQLParser.parse("select * from T limit ?"), parameters: [1.0]).limit, .value(.int(1)))
    }
}
