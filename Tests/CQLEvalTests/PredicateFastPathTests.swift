import CQLKit
import XCTest

@testable import CQLEval

/// The evaluator's fast paths (``ScalarTest``, one-step ``Accessor`` reads,
/// scalar ``MemberSet`` lookups) must mean exactly what the general path
/// means. Each test runs both over the same grid of stored values and
/// constants, edge cases included, and demands the same answer.
final class PredicateFastPathTests: XCTestCase {
    static let twoTo53 = Int64(1) << 53

    /// Stored values: every class, numbers at the edges of exactness, strings
    /// equal under Unicode equivalence but not as bytes, arrays, GeoPoint-like
    /// objects, and NaN (which only the Swift API can produce).
    static let stored: [Value] = [
        .null, .bool(false), .bool(true),
        .int(0), .int(1), .int(-1), .int(5), .int(twoTo53), .int(twoTo53 + 1), .int(.max), .int(.min),
        .double(0), .double(-0.0), .double(1), .double(1.5), .double(-1.5), .double(4.999), .double(Double(twoTo53)),
        .double(9.3e18), .double(-9.3e18), .double(9_223_372_036_854_775_808.0), .double(.infinity), .double(.nan),
        .string(""), .string("a"), .string("b"), .string("ab"), .string("10"), .string("\u{e9}"), .string("e\u{301}"),
        .string("2017-11-11T07:19:15.549Z"), .string("2011-01-01T00:00:00Z"), .string("not a date"),
        .date(DateValue(millisecondsSince1970: 0)), .date(DateValue(millisecondsSince1970: 1_510_384_755_549)),
        .array([]), .array([.int(1), .string("a")]), .array([.array([.int(1)])]), .array([.double(1.5), .null]),
        .array([.string("2017-11-11T07:19:15.549Z")]),
        .object(["latitude": .double(1), "longitude": .double(2)]), .object(["a": .int(1)]),
        .geoPoint(GeoPoint(latitude: 1, longitude: 2)), .pointer(Pointer(className: "C", objectId: "1")),
        .bytes(base64: "AA=="), .relation(className: "C"),
        .typedObject(className: "C", fields: ["objectId": .string("1")]),
    ]

    /// Constants the scalar fast path takes.
    static let constants: [Value] = [
        .int(0), .int(1), .int(-1), .int(5), .int(twoTo53), .int(twoTo53 + 1), .int(.max), .int(.min),
        .double(0), .double(-0.0), .double(1), .double(1.5), .double(Double(twoTo53)), .double(9.3e18), .double(.nan),
        .string(""), .string("a"), .string("ab"), .string("10"), .string("\u{e9}"), .string("e\u{301}"),
        .string("2017-11-11T07:19:15.549Z"),
        .bool(false), .bool(true),
        .date(DateValue(millisecondsSince1970: 0)), .date(DateValue(millisecondsSince1970: 1_510_384_755_549)),
    ]

    static let ops: [ComparisonOperator] = [.equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]

    /// Roots for a path: the value under the key, missing, inside a typed
    /// object, and (for `elementMatch`) a root that is not an object at all.
    private func roots(_ key: String, _ v: Value) -> [Value] {
        [.object([key: v]), .object(["other": v]), .typedObject(className: "C", fields: [key: v]),
         .array([.object([key: v]), .int(3)]), v]
    }

    private func general(_ path: Accessor, _ op: ComparisonOperator, _ c: Value) -> Node {
        op == .equal ? .equal(path, c)
            : .range(path, RangeTest(op: op, constant: c, constantClass: ValueOrder.rangeClass(c)))
    }

    func testScalarTestAgreesWithGeneralComparison() throws {
        let context = EvalContext()
        var checked = 0
        for key in ["k", "createdAt"] {
            for pathText in [key, "a.\(key)"] {
                let path = Accessor(FieldPath(pathText.split(separator: ".").map(String.init)))
                for op in Self.ops {
                    for c in Self.constants {
                        let fast = Node.scalar(path, try XCTUnwrap(ScalarTest(op, c)))
                        let slow = general(path, op, c)
                        for v in Self.stored {
                            for inner in roots(key, v) {
                                let root: Value = pathText.contains(".") ? .object(["a": inner]) : inner
                                let f = fast.matches(root, context), s = slow.matches(root, context)
                                checked += 1
                                if f != s {
                                    XCTFail("\(pathText) \(op) \(c) on \(root): fast \(f), general \(s)")
                                }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 50_000)
    }

    func testScalarTestTakesOnlyScalarsAndComparisons() {
        XCTAssertNil(ScalarTest(.notEqual, .int(1)))
        XCTAssertNil(ScalarTest(.equal, .null))
        XCTAssertNil(ScalarTest(.equal, .array([.int(1)])))
        XCTAssertNil(ScalarTest(.lessThan, .geoPoint(GeoPoint(latitude: 1, longitude: 2))))
        XCTAssertNotNil(ScalarTest(.greaterThanOrEqual, .date(DateValue(millisecondsSince1970: 1))))
    }

    func testPlannerUsesTheFastPathForScalarConstants() throws {
        let plan = try QueryPlan(Binder.bind(CQLParser.parse("select * from T where a > 1 and b = 'x' and c != 2.5"), parameters: []))
        guard case .and(let nodes) = plan.condition, nodes.count == 3,
            case .scalar = nodes[0], case .scalar = nodes[1], case .not(.scalar) = nodes[2]
        else { return XCTFail("expected scalar nodes, got \(plan.condition)") }
    }

    /// Edge cases spelled out, through whole queries.
    func testEdgeCasesThroughQueries() {
        let d = docs(#"{"objectId":"i","n":1}"#, #"{"objectId":"d","n":1.0}"#,
                     #"{"objectId":"big","n":9007199254740993}"#, #"{"objectId":"dbl","n":9007199254740992.0}"#,
                     #"{"objectId":"s","n":"1"}"#, #"{"objectId":"a","n":[0,2]}"#, #"{"objectId":"nul","n":null}"#,
                     #"{"objectId":"m"}"#, #"{"objectId":"geo","n":{"latitude":1,"longitude":2}}"#)
        XCTAssertEqual(ids(T.eq("n", 1.0), d), ["i", "d"])
        XCTAssertEqual(ids(T.eq("n", .int(9_007_199_254_740_993)), d), ["big"])
        XCTAssertEqual(ids(T.cmp("n", .greaterThan, .int(9_007_199_254_740_992)), d), ["big"])
        XCTAssertEqual(ids(T.cmp("n", .greaterThanOrEqual, .double(9_007_199_254_740_992)), d), ["big", "dbl"])
        XCTAssertEqual(ids(T.cmp("n", .lessThan, 1), d), ["a"])
        XCTAssertEqual(ids(T.cmp("n", .greaterThan, "0"), d), ["s"])
        XCTAssertEqual(ids(T.cmp("n", .notEqual, 1), d), ["big", "dbl", "s", "a", "nul", "m", "geo"])
    }

    // MARK: in-lists

    func testScalarMembersAgreeWithSemanticKeys() throws {
        let scalars = Self.constants.filter { if case .date = $0 { return false } else { return true } }
        let lists: [[Value]] = [
            [.int(1)], [.double(1)], [.double(-0.0)], [.int(0), .string("0")], [.int(Self.twoTo53 + 1)],
            [.double(Double(Self.twoTo53))], [.double(1.5), .double(.nan), .double(9.3e18)], [.int(.max), .int(.min)],
            [.double(9_223_372_036_854_775_808.0), .double(-9_223_372_036_854_775_808.0)],
            [.string("\u{e9}"), .string("a"), .string("")], [.string("e\u{301}")], [.bool(true)], [.bool(false), .null],
            [.null], scalars, scalars + [.null],
        ]
        for list in lists {
            let fast = try XCTUnwrap(ScalarMembers(list), "\(list)")
            let keys = Set(list.map(SemanticKey.init))
            for v in Self.stored {
                XCTAssertEqual(fast.contains(v), keys.contains(SemanticKey(v)), "\(v) in \(list)")
            }
        }
        // Lists past ScalarMembers.scanLimit are hashed, not scanned: the same answers.
        let many = (0..<20).map { Value.int(Int64($0) - 10) } + (0..<20).map { Value.string("s\($0)") }
        for list in [many, many + scalars, many.map { v in if case .int(let i) = v { return .double(Double(i)) } else { return v } }] {
            let fast = try XCTUnwrap(ScalarMembers(list))
            let keys = Set(list.map(SemanticKey.init))
            for v in Self.stored + many + [.double(-3), .string("s1\u{301}")] {
                XCTAssertEqual(fast.contains(v), keys.contains(SemanticKey(v)), "\(v) in a list of \(list.count)")
            }
        }
        XCTAssertNil(ScalarMembers([.int(1), .array([.int(1)])]))
        XCTAssertNil(ScalarMembers([.object(["latitude": 1, "longitude": 2])]))
        XCTAssertNil(ScalarMembers([.date(DateValue(millisecondsSince1970: 0))]))
    }

    // MARK: One-step paths

    func testOneStepAccessorReadsObjectsTypedObjectsAndFansOutOverArrays() {
        let path = Accessor(FieldPath(["k"]))
        XCTAssertEqual(path.singleKey, "k")
        XCTAssertEqual(path.collect(.object(["k": 1])).values, [1])
        XCTAssertEqual(path.collect(.typedObject(className: "C", fields: ["k": 2])).values, [2])
        let fanned = path.collect(.array([.object(["k": 3]), .int(4), .object([:])]))
        XCTAssertEqual(fanned.values, [3])
        XCTAssertTrue(fanned.sawMissing)
        XCTAssertTrue(path.collect(.object(["j": 1])).sawMissing)
        XCTAssertTrue(path.collect(.string("k")).sawMissing)
        // Elements that are not objects contribute nothing, not a missing branch.
        XCTAssertFalse(path.collect(.array([.int(4), .null])).sawMissing)
        // Keys match by bytes on the one-step read too: the Kelvin sign is not K.
        let kelvin = Accessor(FieldPath(["K"])).collect(.object(["\u{212A}": 1]))
        XCTAssertEqual(kelvin.values, [])
        XCTAssertTrue(kelvin.sawMissing)
        // createdAt strings are Dates on the one-step read too.
        let created = Accessor(FieldPath(["createdAt"])).collect(.object(["createdAt": "2011-01-01T00:00:00Z"]))
        XCTAssertEqual(created.values, [.date(ISODate.parse("2011-01-01T00:00:00Z")!)])
    }
}
