import CQLKit
import XCTest

@testable import CQLEval

/// The evaluator behind each front end: CQL text, Usergrid `ql`, REST
/// where-JSON — the same data, the same answers.
final class FrontEndTests: XCTestCase {
    private let store = DocumentStore(["dogs": [
        ["objectId": "1", "name": "Fido", "bio": "A blue-eyed dog", "location": .object(["latitude": 39.9, "longitude": 116.4])],
        ["objectId": "2", "name": "FIDO the second", "bio": "Bluebird chaser", "location": .object(["latitude": 39.95, "longitude": 116.4])],
        ["objectId": "3", "name": "rex", "bio": "blue", "location": .object(["latitude": 39.901, "longitude": 116.4])],
    ]])

    private func ids(_ q: Query) throws -> [String] {
        try QueryPlan(q, store: store).run().objects.compactMap { $0["objectId"]?.stringValue }
    }

    func testCQLErrorsRenderWithTheQueryText() throws {
        let text = "select * from dogs where name regexp 'a(b'"
        let q = try CQLParser.parse(text)
        XCTAssertThrowsError(try QueryPlan(q, store: store)) { error in
            let e = error as? QueryError
            XCTAssertEqual(e?.kind, .pattern)
            XCTAssertEqual(e?.rendered().split(separator: "\n").first.map(String.init),
                           "<input>:1:26: invalid regular expression 'a(b' at offset 3: missing closing parenthesis")
        }
    }

    func testMatchTimeErrorsPointAtThePredicate() throws {
        let text = "select * from dogs where objectId = '1' or\n  name regexp '(a+)+$'"
        let big = DocumentStore(["dogs": [["name": .string(String(repeating: "a", count: 40) + "b")]]])
        let plan = try QueryPlan(try CQLParser.parse(text), store: big)
        XCTAssertThrowsError(try plan.run()) { error in
            XCTAssertEqual((error as? QueryError)?.rendered(), """
                <input>:2:3: regex too expensive: '(a+)+$' exceeded its match limit
                  name regexp '(a+)+$'
                  ^~~~~~~~~~~~~~~~~~~~
                """)
        }
    }

    func testCQLWithParameters() throws {
        let q = try Binder.bind(try CQLParser.parse("select * from dogs where name like ? or bio regexp ? order by -objectId"),
                                parameters: ["F%", "(?i)^BLUE$"])
        XCTAssertEqual(try ids(q), ["3", "2", "1"])
    }

    func testUsergridTextMatchesAndWithin() throws {
        let opts = UsergridOptions(className: "dogs")
        XCTAssertEqual(try ids(try UsergridParser.parse("name = 'fido'", options: opts)), ["1"])
        XCTAssertEqual(try ids(try UsergridParser.parse("name = 'fido*'", options: opts)), ["1", "2"])
        XCTAssertEqual(try ids(try UsergridParser.parse("bio contains 'blue'", options: opts)), ["1", "3"])
        XCTAssertEqual(try ids(try UsergridParser.parse("bio contains 'blue*'", options: opts)), ["1", "2", "3"])
        XCTAssertEqual(try ids(try UsergridParser.parse("name = 'fido'", options: UsergridOptions(className: "dogs", literal: true))), [])
        // within: meters, latitude first; nearest first without an order.
        XCTAssertEqual(try ids(try UsergridParser.parse("location within 200 of 39.9, 116.4", options: opts)), ["1", "3"])
        XCTAssertEqual(try ids(try UsergridParser.parse("location within 10000 of 39.96, 116.4", options: opts)), ["2", "3", "1"])
    }

    func testUsergridCursorPaging() throws {
        var options = UsergridOptions(className: "dogs", limit: 2)
        var seen: [String] = []
        var pages = 0
        while pages < 5 {
            let result = try QueryPlan(try UsergridParser.parse("order by name", options: options), store: store).run()
            seen += result.objects.compactMap { $0["objectId"]?.stringValue }
            pages += 1
            guard let next = result.nextCursor else { break }
            options.cursor = next
        }
        XCTAssertEqual(pages, 2)
        XCTAssertEqual(seen, ["2", "1", "3"])
    }

    func testWhereJSON() throws {
        let q = try WhereJSONReader.read(#"{"where":{"name":{"$regex":"^f","$options":"i"},"objectId":{"$ne":"2"}},"keys":"name"}"#,
                                         className: "dogs")
        let result = try QueryPlan(q, store: store).run()
        XCTAssertEqual(result.objects, [["objectId": "1", "name": "Fido"]])
        let near = try WhereJSONReader.read(
            #"{"where":{"location":{"$nearSphere":{"__type":"GeoPoint","latitude":39.96,"longitude":116.4},"$maxDistanceInKilometers":6.65}}}"#,
            className: "dogs")
        XCTAssertEqual(try ids(near), ["2", "3"])
    }
}
