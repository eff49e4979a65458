import CQLKit
import CorpusSupport
import XCTest

@testable import CQLEval

/// Runs every case of `Corpus/eval/*.cases`: parse the CQL `query`, bind
/// `params`, evaluate over `data` (a directory or file under `Corpus/`,
/// default `Corpus/data`) or the inline `docs`, and compare with `ids` (in
/// order), `count`, or `error` (a substring of the message). Each case runs
/// twice, as read and optimized (``Optimizer``): both must give the expected answer.
final class EvalCorpusTests: XCTestCase {
    private let fixture = EvalCorpusFixture()

    func testEvalCorpus() throws {
        let root = try XCTUnwrap(EvalCorpusFixture.corpusRoot, "Corpus/eval not found")
        let cases = try EvalCorpusFixture.allCases(root: root)
        XCTAssertFalse(cases.isEmpty, "no eval cases")
        var checked = 0
        for c in cases {
            if check(c, root: root, optimized: false) && check(c, root: root, optimized: true) { checked += 1 }
        }
        print("eval corpus: \(checked)/\(cases.count) cases passed")
        XCTAssertEqual(checked, cases.count, "\(cases.count - checked) of \(cases.count) eval cases failed")
    }

    /// Whether the case passed (failures are reported with the case's file:line).
    private func check(_ c: CorpusCase, root: URL, optimized: Bool) -> Bool {
        let label = "\(c) [\(c["row"] ?? "?")]" + (optimized ? " (optimized)" : "")
        guard let text = c["query"] else {
            XCTFail("\(label): no query")
            return false
        }
        guard c["ids"] != nil || c["count"] != nil || c["error"] != nil || c["results"] != nil else {
            XCTFail("\(label): needs ids, results, count or error")
            return false
        }
        let result: QueryResult
        do throws(QueryError) {
            let parameters = try c["params"].map(fixture.parseParams) ?? []
            var bound = try Binder.bind(try fixture.parse(c), parameters: parameters,
                                        now: DateValue(millisecondsSince1970: 1_700_000_000_000))
            if optimized { bound = try Optimizer.optimize(bound) }
            let store = try fixture.store(for: c, className: bound.className, root: root)
            result = try QueryPlan(bound, store: store, source: text).run()
        } catch {
            if let expected = c["error"], error.message.contains(expected) { return true }
            XCTFail("\(label): \(c["error"].map { "expected error containing '\($0)', got" } ?? "unexpected error:") \(error.rendered())")
            return false
        }
        if let expected = c["error"] {
            XCTFail("\(label): expected error containing '\(expected)', got \(result.objects.count) results")
            return false
        }
        var ok = true
        if let expected = c["ids"] {
            let want = expected.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let got = result.objects.map { $0["objectId"]?.stringValue ?? JSONWriter.string(.object($0)) }
            if got != want {
                XCTFail("\(label): ids\n  want: \(want.joined(separator: ", "))\n  got:  \(got.joined(separator: ", "))")
                ok = false
            }
        }
        if let expected = c["results"] {
            // Whole objects, one compact sorted-key JSON line each, in order.
            let want = expected.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let got = result.objects.map { JSONWriter.string(.object($0)) }
            if got != want {
                XCTFail("\(label): results\n  want: \(want.joined(separator: "\n        "))\n  got:  \(got.joined(separator: "\n        "))")
                ok = false
            }
        }
        if let expected = c["count"] {
            if Int(expected.trimmingCharacters(in: .whitespaces)) != result.count {
                XCTFail("\(label): count want \(expected), got \(result.count.map(String.init) ?? "none")")
                ok = false
            }
        }
        return ok
    }
}
