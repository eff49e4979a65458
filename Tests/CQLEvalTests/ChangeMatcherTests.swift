import CQLKit
import XCTest

@testable import CQLEval

final class ChangeMatcherTests: XCTestCase {
    private let highScores = Query(className: "GameScore", condition: T.cmp("score", .greaterThan, 80))

    func testEvents() throws {
        let m = try ChangeMatcher(highScores)
        XCTAssertEqual(try m.event(before: nil, after: ["score": 90]), .create)
        XCTAssertNil(try m.event(before: nil, after: ["score": 10]))
        XCTAssertEqual(try m.event(before: ["score": 90], after: ["score": 95]), .update)
        XCTAssertEqual(try m.event(before: ["score": 70], after: ["score": 95]), .enter)
        XCTAssertEqual(try m.event(before: ["score": 95], after: ["score": 70]), .leave)
        XCTAssertNil(try m.event(before: ["score": 5], after: ["score": 7]))
        XCTAssertEqual(try m.event(before: ["score": 95], after: nil), .delete)
        XCTAssertNil(try m.event(before: ["score": 5], after: nil))
        XCTAssertNil(try m.event(before: nil, after: nil))
    }

    func testMissingKeysAndTypeBracketing() throws {
        let m = try ChangeMatcher(highScores)
        // A string "90" is not > 80; removing the key leaves.
        XCTAssertEqual(try m.event(before: ["score": 90], after: ["score": "90"]), .leave)
        XCTAssertEqual(try m.event(before: ["score": 90], after: [:]), .leave)
        let nulls = try ChangeMatcher(Query(className: "T", condition: T.eq("k", nil)))
        XCTAssertEqual(try nulls.event(before: ["k": 1], after: [:]), .enter)
    }

    func testSubqueriesUseTheStoreSnapshot() throws {
        let store = DocumentStore(["Post": [["objectId": "p1", "hot": true], ["objectId": "p2"]]])
        let hot = Query(className: "Post", condition: T.eq("hot", true))
        let m = try ChangeMatcher(Query(className: "Comment", condition: T.c(.inQuery("post", query: hot, negated: false))), store: store)
        XCTAssertEqual(try m.event(before: nil, after: ["post": .pointer(Pointer(className: "Post", objectId: "p1"))]), .create)
        XCTAssertEqual(try m.event(before: ["post": .pointer(Pointer(className: "Post", objectId: "p1"))],
                                   after: ["post": .pointer(Pointer(className: "Post", objectId: "p2"))]), .leave)
    }

    func testPlanErrorsSurfaceAtInit() {
        XCTAssertThrowsError(try ChangeMatcher(Query(className: "T", condition: Condition(.regex("k", pattern: .value("("), options: ""))))) {
            XCTAssertEqual(($0 as? QueryError)?.kind, .pattern)
        }
    }
}
