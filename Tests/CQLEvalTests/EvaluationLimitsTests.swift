import XCTest
@testable import CQLEval
import CQLKit

/// The evaluator's limits (``EvaluationLimits``): subquery rows, the PCRE2
/// match/depth/heap limits, and the query limits checked when planning.
final class EvaluationLimitsTests: XCTestCase {
    private func failure(_ body: () throws(QueryError) -> Any) -> QueryError? {
        do { _ = try body(); return nil } catch { return error }
    }

    func testSubqueryRows() throws {
        let store = DocumentStore(["T": [["objectId": "a", "k": 1], ["objectId": "b", "k": 2]]])
        let q = try CQLParser.parse("select * from T where k in (select k from T)")
        var one = EvaluationLimits()
        one.maxSubqueryRows = 1
        let e = failure { () throws(QueryError) in try QueryPlan(q, store: store, limits: one) }
        XCTAssertEqual(e?.kind, .limit)
        XCTAssertEqual(e?.message, "the subquery yields 2 rows; the limit is 1")
        XCTAssertEqual(e?.range?.start, 22)
        one.maxSubqueryRows = 2
        XCTAssertEqual(try QueryPlan(q, store: store, limits: one).run().objects.count, 2)
        // The default: 100,000 rows.
        let many = DocumentStore(["T": (0...100_000).map { ["objectId": .string("o\($0)"), "k": .int(Int64($0))] }])
        XCTAssertEqual(failure { () throws(QueryError) in try QueryPlan(q, store: many) }?.message,
                       "the subquery yields 100001 rows; the limit is 100000")
    }

    /// `(a+)+$` over 5,000 `a`s and a `b`: the match limit ends it with
    /// "regex too expensive" (in milliseconds; the bound here is generous
    /// because the test machine is shared).
    func testCatastrophicPatternIsTooExpensive() throws {
        let store = DocumentStore(["T": [["objectId": "a", "s": .string(String(repeating: "a", count: 5_000) + "b")]]])
        let plan = try QueryPlan(CQLParser.parse("select * from T where s regexp '(a+)+$'"), store: store)
        let start = ContinuousClock.now
        let e = failure { () throws(QueryError) in try plan.run() }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
        XCTAssertEqual(e?.kind, .pattern)
        XCTAssertEqual(e?.message, "regex too expensive: '(a+)+$' exceeded its match limit")
        XCTAssertEqual(e?.range?.start, 22)
    }

    func testRegexLimitsAreOptions() throws {
        let scratch = RegexScratch()
        var limits = EvaluationLimits()
        limits.regexMatchLimit = 50
        // 12 `a`s and a `b`: a few thousand steps, within the default limit.
        let subject = String(repeating: "a", count: 12) + "b"
        XCTAssertFalse(try CompiledRegex(pattern: "(a+)+$", options: "").firstMatch(in: subject, scratch: scratch))
        let small = try CompiledRegex(pattern: "(a+)+$", options: "", limits: limits)
        XCTAssertEqual(failure { () throws(QueryError) in try small.firstMatch(in: subject, scratch: scratch) }?.message,
                       "regex too expensive: '(a+)+$' exceeded its match limit")
        XCTAssertTrue(try small.firstMatch(in: "aaa", scratch: scratch))
        #if PCRE2
        // The interpreter's depth and heap limits (JIT code has neither).
        var shallow = EvaluationLimits()
        shallow.regexDepthLimit = 10
        let deep = try CompiledRegex(pattern: "(?:(a)|b)*[0-9]", options: "", engine: .pcre2(useJIT: false), limits: shallow)
        XCTAssertEqual(failure { () throws(QueryError) in try deep.firstMatch(in: String(repeating: "a", count: 100), scratch: scratch) }?.message,
                       "regex too expensive: '(?:(a)|b)*[0-9]' exceeded its depth limit")
        var tight = EvaluationLimits()
        tight.regexHeapLimitKiB = 1
        let heavy = try CompiledRegex(pattern: "(?:(a)|b)*[0-9]", options: "", engine: .pcre2(useJIT: false), limits: tight)
        XCTAssertEqual(failure { () throws(QueryError) in try heavy.firstMatch(in: String(repeating: "a", count: 10_000), scratch: scratch) }?.message,
                       "regex too expensive: '(?:(a)|b)*[0-9]' exceeded its depth limit")
        #endif
    }

    /// Queries built in code (not parsed) meet the same limits when planned.
    func testPlanningChecksTheQueryLimits() {
        var limits = EvaluationLimits()
        limits.query.maxListLength = 2
        let q = Query(className: "T", condition: Condition(.in("a", [.value(1), .value(2), .value(3)], negated: false)))
        XCTAssertEqual(failure { () throws(QueryError) in try QueryPlan(q, limits: limits) }?.message,
                       "the 'in' list has 3 values; the limit is 2")
        limits.query.maxSubqueryDepth = 0
        let sub = Query(className: "T", condition: Condition(.inQuery("p", query: Query(className: "U"), negated: false)))
        XCTAssertEqual(failure { () throws(QueryError) in try QueryPlan(sub, limits: limits) }?.message,
                       "subqueries are nested more than 0 levels deep")
    }
}
