import CorpusSupport
import Foundation
import XCTest
@testable import CQLKit

/// Golden cases of `Corpus/optimizer/*.cases` (format: Corpus/optimizer/README.md),
/// in the style of sqlglot's optimizer fixtures: a query, and what the
/// optimizer makes of it.
///
/// - `query:` CQL or where-JSON text (`class:` names the class of a bare
///   where-JSON condition);
/// - `optimized:` the optimized query as canonical CQL; `same` means no rule
///   may change it (the canonical CQL of the query as read);
/// - `where:` the optimized query's `where` in the parse dialect (compact);
/// - `rules:` the rules that fired, in order (`none`);
/// - `error:` the optimizer's error, `LINE:COL: message`.
final class OptimizerCorpusTests: XCTestCase {
    static let fields: Set<String> = ["query", "class", "optimized", "where", "rules", "error"]

    func testCorpus() throws {
        let cases = try Corpus.cases(in: "optimizer")
        XCTAssertGreaterThanOrEqual(cases.count, 120)
        // A third of the cases are tempting rewrites that must not fire.
        XCTAssertGreaterThanOrEqual(cases.filter { $0["optimized"] == "same" }.count, cases.count / 3)
        for c in cases { check(c) }
    }

    private func check(_ c: CorpusCase) {
        for name in c.order where !Self.fields.contains(name) { XCTFail("\(c): unknown field '\(name)'") }
        guard let text = c["query"] else { return XCTFail("\(c): no query") }
        if ["optimized", "where", "rules", "error"].allSatisfy({ c[$0] == nil }) { XCTFail("\(c): no expectation") }
        let query: Query
        do throws(QueryError) {
            let language = QueryLanguage.detect(text)
            query = try language.parse(text, className: c["class"] ?? "", literal: false, limit: nil, cursor: nil)
        } catch {
            return XCTFail("\(c): the query does not parse: \(error.shortDescription)")
        }
        let result: Optimizer.Result
        do throws(QueryError) {
            result = try Optimizer().optimize(query)
        } catch {
            var e = error
            if e.source == nil { e.source = text }
            if let expected = c["error"] {
                XCTAssertEqual(e.shortDescription, expected, "\(c)")
                XCTAssertNotNil(e.range, "\(c): error without a range")
            } else {
                XCTFail("\(c): unexpected error \(e.shortDescription)")
            }
            return
        }
        if let expected = c["error"] { return XCTFail("\(c): expected error '\(expected)'") }
        if ProcessInfo.processInfo.environment["OPT_CORPUS_SHOW"] != nil {
            // For writing cases: what the optimizer makes of each query (never asserted).
            let w = (try? WhereJSONEmitter.emit(result.query, dialect: .parse)).map { JSONWriter.string($0["where"] ?? .object([:])) } ?? "-"
            print("\(c)\n  optimized: \(format(result.query))\n  where: \(w)\n  rules: \(result.steps.map(\.rule).joined(separator: ", "))")
        }
        if let expected = c["optimized"] {
            let wanted = expected == "same" ? format(query) : expected
            XCTAssertEqual(format(result.query), wanted, "\(c)")
        }
        if let expected = c["rules"] {
            let fired = result.steps.map(\.rule).joined(separator: ", ")
            XCTAssertEqual(fired.isEmpty ? "none" : fired, expected, "\(c)")
        }
        if let expected = c["where"] {
            do throws(QueryError) {
                let request = try WhereJSONEmitter.emit(result.query, dialect: .parse)
                XCTAssertEqual(JSONWriter.string(request["where"] ?? .object([:])), expected, "\(c)")
            } catch {
                XCTFail("\(c): emit failed: \(error.message)")
            }
        }
        // The optimizer is idempotent: its output is a fixed point.
        if let again = try? Optimizer().optimize(result.query) {
            XCTAssertEqual(again.steps.map(\.rule), [], "\(c): optimizing the output again changes it")
        }
    }

    private func format(_ q: Query) -> String {
        do throws(QueryError) { return try CQLFormatter.format(q) } catch { return "error: " + error.message }
    }
}
