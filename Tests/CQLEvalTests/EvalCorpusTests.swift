import CQLKit
import CorpusSupport
import EvalCorpusSupport
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

    #if PCRE2
    /// The whole corpus again on the pure-Swift engine (what a build without
    /// trait `PCRE2` runs): every case gives the expected answer, or, where
    /// the case says `refused-without-pcre2`, the engine's refusal naming
    /// that construct.
    func testEvalCorpusOnTheSwiftEngine() throws {
        let root = try XCTUnwrap(EvalCorpusFixture.corpusRoot, "Corpus/eval not found")
        let cases = try EvalCorpusFixture.allCases(root: root)
        var limits = EvaluationLimits()
        limits.regexEngine = .swift
        var passed = 0
        for c in cases {
            let problems = [false, true].compactMap { fixture.failure(of: c, root: root, optimized: $0, limits: limits) }
            if problems.isEmpty {
                passed += 1
            } else {
                XCTFail("\(c) [\(c["row"] ?? "?")] on the Swift engine: " + problems.joined(separator: "\n"))
            }
        }
        let refused = cases.filter { $0["refused-without-pcre2"] != nil }.count
        print("eval corpus on the Swift regex engine: \(passed)/\(cases.count) cases passed (\(refused) of them by the expected refusal)")
        XCTAssertEqual(passed, cases.count)
    }
    #endif

    /// Whether the case passed (failures are reported with the case's file:line).
    private func check(_ c: CorpusCase, root: URL, optimized: Bool) -> Bool {
        guard let problem = fixture.failure(of: c, root: root, optimized: optimized) else { return true }
        XCTFail("\(c) [\(c["row"] ?? "?")]" + (optimized ? " (optimized)" : "") + ": " + problem)
        return false
    }
}
