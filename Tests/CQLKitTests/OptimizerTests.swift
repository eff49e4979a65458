import XCTest
@testable import CQLKit

/// The optimizer's pipeline: rule lists, the fixed point and its limit, the
/// recorded steps, and the compile-time checks on hand-built ASTs (the
/// readers reject these before the optimizer sees them).
final class OptimizerTests: XCTestCase {
    private func parse(_ text: String) throws -> Query { try CQLParser.parse(text) }

    func testStepsRecordEachRuleWithBeforeAndAfter() throws {
        let q = try parse("select * from T where not (a = 1 or a = 2)")
        let result = try Optimizer().optimize(q)
        XCTAssertEqual(result.steps.map(\.rule), ["PushNegation", "InequalitiesToNotIn"])
        XCTAssertEqual(result.steps.first?.before, q)
        XCTAssertEqual(result.steps.last?.after, result.query)
        XCTAssertEqual(try CQLFormatter.format(result.query), "select * from T where a not in (1, 2)")
    }

    func testACallerCanPassItsOwnRules() throws {
        let q = try parse("select * from T where not (a = 1 or a = 2)")
        let only = try Optimizer(rules: [PushNegation()]).optimize(q)
        XCTAssertEqual(try CQLFormatter.format(only.query), "select * from T where a != 1 and a != 2")
        XCTAssertEqual(try Optimizer(rules: []).optimize(q).query, q)
    }

    /// A rule that never reaches a fixed point (it adds a conjunct each time)
    /// stops at the iteration limit.
    func testTheIterationLimitStopsARuleThatNeverSettles() throws {
        struct Grow: OptimizerRule {
            var name: String { "Grow" }
            func apply(_ query: Query) -> Query {
                var q = query
                q.condition = Condition(.and([q.condition ?? Condition(.constant(true)), Condition(.exists("x", true))]))
                return q
            }
        }
        let result = try Optimizer(rules: [Grow()], maxIterations: 5).optimize(try parse("select * from T"))
        XCTAssertEqual(result.steps.count, 5)
    }

    func testCompileTimeChecksPointAtTheCondition() {
        let range = SourceRange(22, 40)
        func check(_ p: CQLKit.Predicate, _ message: String) {
            let q = Query(className: "T", condition: Condition(.and([Condition(.exists("a", true)), Condition(p, range: range)])))
            XCTAssertThrowsError(try Optimizer().optimize(q)) { error in
                let e = error as! QueryError
                XCTAssertEqual(e.range, range)
                XCTAssertTrue(e.message.contains(message), e.message)
            }
        }
        let bad = Term.value(.geoPoint(GeoPoint(latitude: 95, longitude: 0)))
        let ok = Term.value(.geoPoint(GeoPoint(latitude: 1, longitude: 1)))
        check(.near("loc", point: bad, min: nil, max: nil), "invalid GeoPoint values")
        check(.withinBox("loc", southwest: ok, northeast: bad), "invalid GeoPoint values")
        check(.withinPolygon("loc", [ok, ok]), "a polygon needs at least 3 points")
        check(.withinCenterSphere("loc", center: ok, radius: .value(.double(-1))), "non-negative")
        check(.near("loc", point: ok, min: Distance(.value(.int(5)), .kilometers), max: Distance(.value(.int(1)), .kilometers)), "min <= max")
        // A box with its corners the wrong way round is normalized (EvaluationSemantics.md), not an error.
        let inverted = Query(className: "T", condition: Condition(.withinBox("loc", southwest: ok, northeast: .value(.geoPoint(GeoPoint(latitude: 0, longitude: 0))))))
        XCTAssertNoThrow(try Optimizer().optimize(inverted))
    }

    func testFlattenLogicFlattensHandBuiltTrees() {
        let a = Condition(.compare("a", .equal, .value(.int(1))))
        let nested = Condition(.and([a, Condition(.and([Condition(.exists("b", true)), Condition(.or([a]))]))]))
        let flat = FlattenLogic().apply(Query(className: "T", condition: nested))
        XCTAssertEqual(flat.condition, Condition(.and([a, Condition(.exists("b", true)), a])))
    }

    func testPrefixRecognition() {
        XCTAssertEqual(CanonicalPrefix.likePrefix("abc%"), "abc")
        XCTAssertEqual(CanonicalPrefix.likePrefix("[[]x%"), "[x")
        XCTAssertEqual(CanonicalPrefix.likePrefix("[]]%"), "]")
        XCTAssertEqual(CanonicalPrefix.likePrefix("a[%"), "a[")
        XCTAssertNil(CanonicalPrefix.likePrefix("a[^]%"))
        XCTAssertNil(CanonicalPrefix.likePrefix("abc"))
        XCTAssertEqual(CanonicalPrefix.regexPrefix(#"^\Qa\E.b"#), nil)
        XCTAssertEqual(CanonicalPrefix.regexPrefix(#"^\Qa.b"#), "a.b")
        XCTAssertEqual(CanonicalPrefix.regexPrefix(#"^a\-\/"#), "a-/")
        XCTAssertNil(CanonicalPrefix.regexPrefix(#"^a\w"#))
        XCTAssertNil(CanonicalPrefix.regexPrefix(#"^a\1"#))
        // The written forms read back to the same prefix.
        for prefix in ["50%_off[", "a.b", "", "ß\\E", "x]y"] {
            XCTAssertEqual(CanonicalPrefix.likePrefix(LikePattern.escaped(prefix) + "%"), prefix)
            XCTAssertEqual(CanonicalPrefix.regexPrefix(LikePattern.prefixRegex(prefix)), prefix)
        }
    }
}
