import CorpusSupport
import XCTest
@testable import CQLKit

/// `Binder.bind` returns a query unchanged, without the full rewrite, when
/// `UnchangedByBinding` says binding would change nothing. These tests hold
/// that claim against the full binder (`BindingContext`) over the CQL corpus,
/// random queries and hand-made edge cases.
final class BindingFastPathTests: XCTestCase {
    static let now = DateValue(millisecondsSince1970: 1_714_979_289_010)

    /// When the walk says "unchanged", the full binder (with and without `now`)
    /// gives back the same tree, ranges included, and does not throw.
    private func assertAgrees(_ q: Query, _ label: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        guard UnchangedByBinding.check(q) else { return false }
        for now in [nil, BindingFastPathTests.now] {
            do {
                let full = try BindingContext(parameters: [], now: now).bind(q)
                XCTAssertEqual(full, q, "\(label): the full binder changes the query", file: file, line: line)
                var a = "", b = ""
                dump(full, to: &a)
                dump(q, to: &b)
                XCTAssertEqual(a, b, "\(label): the full binder changes a range or a detail", file: file, line: line)
            } catch {
                XCTFail("\(label): the walk says unchanged, but the full binder throws \(error)", file: file, line: line)
            }
        }
        return true
    }

    func testAgreesOverTheCQLCorpus() throws {
        var unchanged = 0, total = 0
        for c in try Corpus.cases(in: "cql") {
            guard let text = c["query"], let q = try? CQLParser.parse(text) else { continue }
            total += 1
            if assertAgrees(q, "\(c)") { unchanged += 1 }
        }
        // Most corpus queries have nothing to bind: the fast path is taken.
        XCTAssertGreaterThan(unchanged, total / 2, "\(unchanged) of \(total)")
    }

    func testAgreesOverRandomQueries() {
        var unchanged = 0
        for seed in 0..<1000 {
            var g = RandomQueries(seed: UInt64(seed))
            let data = g.dataset()
            let q = g.query(data)
            if assertAgrees(q, "seed \(seed)") { unchanged += 1 }
        }
        XCTAssertGreaterThan(unchanged, 100)
    }

    /// What the full binder rewrites or checks is never skipped.
    func testEdgeCases() throws {
        func query(_ p: CQLKit.Predicate, limit: Term? = nil) -> Query {
            var q = Query(className: "T", condition: Condition(p))
            q.limit = limit
            return q
        }
        let unchanged: [Query] = [
            try CQLParser.parse("select * from T where a regexp '(?i)x' and b like 'y%' limit 3"),
            try CQLParser.parse("select * from T where a in (1, 2) and not (b = 'x' or c > 2.5) and size(d) = 0"),
            try CQLParser.parse("select * from T where a in (select b from U where c = 1 limit 0)"),
            query(.regex("a", pattern: .value(.string("x(?i)")), options: "imsx")),
        ]
        for (i, q) in unchanged.enumerated() {
            XCTAssertTrue(assertAgrees(q, "unchanged \(i)"), "unchanged \(i)")
        }
        let changed: [Query] = [
            try CQLParser.parse("select * from T where a = ?"),
            try CQLParser.parse("select * from T where a = date(?)"),
            try CQLParser.parse("select * from T where a < current_timestamp()"),
            try CQLParser.parse("select * from T limit ?"),
            try CQLParser.parse("select * from T where a in (select b from U where c = ?)"),
            try CQLParser.parse("select * from T where loc near geopoint(1, 2)"),
            query(.regex("a", pattern: .value(.string("(?i)x")), options: "")),
            query(.regex("a", pattern: .value(.string("x")), options: "mi")),
            query(.regex("a", pattern: .value(.string("x")), options: "ii")),
            query(.regex("a", pattern: .value(.int(1)), options: "")),
            query(.like("a", pattern: .value(.int(1)))),
            query(.constant(true), limit: .value(.double(2))),
            query(.constant(true), limit: .value(.int(-1))),
            query(.size("a", .value(.double(1)))),
            query(.compare("a", .equal, .array([.value(.int(1))]))),
            query(.compare("a", .equal, .relativeTime("2 days ago"))),
        ]
        for (i, q) in changed.enumerated() {
            XCTAssertFalse(UnchangedByBinding.check(q), "changed \(i): \(ASTPrinter.describe(q))")
        }
        // The public entry point: an unchanged query comes back as it is,
        // and a query with something to bind is still bound or rejected.
        let plain = unchanged[0]
        XCTAssertEqual(try Binder.bind(plain, parameters: []), plain)
        XCTAssertThrowsError(try Binder.bind(changed[0], parameters: []))
        let merged = try Binder.bind(changed[7], parameters: [])
        guard case .regex(_, _, let options)? = merged.condition?.predicate else { return XCTFail("not a regex") }
        XCTAssertEqual(options, "im")
    }
}
