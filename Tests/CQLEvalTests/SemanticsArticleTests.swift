import CQLEval
import CQLKit
import CorpusSupport
import Foundation
import XCTest

/// The running example of Sources/CQLKit/CQLKit.docc/EvaluationSemantics.md:
/// its data block, every row of its table (condition → matching ids, in
/// order) and its two `order by` runs, evaluated here so the article stays
/// true to the evaluator.
final class SemanticsArticleTests: XCTestCase {
    private var article: String {
        get throws {
            try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("Sources/CQLKit/CQLKit.docc/EvaluationSemantics.md"),
                       encoding: .utf8)
        }
    }

    /// The fenced blocks of the article, in order.
    private func fencedBlocks(_ text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let c = current { blocks.append(c); current = nil } else { current = [] }
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    private func store(_ text: String) throws -> DocumentStore {
        guard let data = fencedBlocks(text).first(where: { $0.first?.hasPrefix(#"{"objectId":"s1""#) == true }) else {
            XCTFail("the article has no running-example data block")
            return DocumentStore()
        }
        let objects = try data.map { line -> [String: Value] in
            guard case .object(let o) = try JSONReader.parse(line).decodingTypedValues() else { throw QueryError(.data, line) }
            return o
        }
        return DocumentStore(["S": objects])
    }

    private func ids(_ query: String, _ store: DocumentStore) throws -> [String] {
        let plan = try QueryPlan(try Binder.bind(try CQLParser.parse(query), parameters: []), store: store)
        return try plan.run().objects.map { $0["objectId"]?.stringValue ?? "?" }
    }

    func testTheTableRows() throws {
        let text = try article
        let store = try store(text)
        var rows = 0
        for line in text.split(separator: "\n").map(String.init) where line.hasPrefix("| `score") || line.hasPrefix("| `size(score)") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let condition = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let expected = cells[2] == "(none)" ? [] : cells[2].components(separatedBy: ", ")
            XCTAssertEqual(try ids("select * from S where \(condition)", store), expected, condition)
            rows += 1
        }
        XCTAssertGreaterThanOrEqual(rows, 15, "the table rows were not found")
    }

    func testTheOrderRuns() throws {
        let text = try article
        let store = try store(text)
        var runs = 0
        for block in fencedBlocks(text) {
            var query: String?
            var printed: [String] = []
            func check() throws {
                guard let q = query else { return }
                let expected = printed.compactMap { line -> String? in
                    guard case .object(let o)? = try? JSONReader.parse(line) else { return nil }
                    return o["objectId"]?.stringValue
                }
                XCTAssertEqual(try ids(q, store), expected, q)
                runs += 1
            }
            for line in block {
                if line.hasPrefix("$ cql eval --data S.ndjson ") {
                    try check()
                    query = String(line.dropFirst("$ cql eval --data S.ndjson ".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    printed = []
                } else if !line.isEmpty {
                    printed.append(line)
                }
            }
            try check()
        }
        XCTAssertEqual(runs, 2)
    }
}
