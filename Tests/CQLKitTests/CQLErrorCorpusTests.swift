import CorpusSupport
import XCTest
@testable import CQLKit

/// Runs every case of `Corpus/cql/*.cases` that has an `error` field: the
/// query is parsed, then bound with `params` (default `[]`); the first
/// failure's `shortDescription` must equal `error`, and success fails the case.
final class CQLErrorCorpusTests: XCTestCase {
    func testErrorCases() throws {
        let cases = try Corpus.cases(in: "cql").filter { $0["error"] != nil }
        XCTAssertGreaterThanOrEqual(cases.count, 45, "the error corpus should not shrink")
        for c in cases {
            guard let query = c["query"], let expected = c["error"] else {
                XCTFail("\(c): an error case needs a 'query' field")
                continue
            }
            var parameters: [Value] = []
            if let params = c["params"] {
                guard case .array(let items) = try JSONReader.parse(params) else {
                    XCTFail("\(c): 'params' must be a JSON array")
                    continue
                }
                parameters = items
            }
            do {
                let parsed = try CQLParser.parse(query)
                _ = try Binder.bind(parsed, parameters: parameters)
                XCTFail("\(c): expected the error '\(expected)', but the query parsed and bound")
            } catch {
                XCTAssertEqual(error.shortDescription, expected, "\(c)")
                XCTAssertNotNil(error.source, "\(c): errors must carry their source text")
                XCTAssertNotNil(error.range, "\(c): errors must be positioned")
            }
        }
    }
}
