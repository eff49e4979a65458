import CorpusSupport
import XCTest
@testable import CQLKit

/// Golden cases of `Corpus/sql/*.cases` (format: Corpus/sql/README.md): the
/// SQL text and arguments per dialect, or the named error.
final class SQLCorpusTests: XCTestCase {
    func testCorpus() throws {
        let cases = try Corpus.cases(in: "sql")
        XCTAssertGreaterThanOrEqual(cases.count, 40)
        var checks = 0
        for c in cases {
            guard let text = c["query"] else {
                XCTFail("\(c): no query")
                continue
            }
            for dialect in SQLDialectName.allCases {
                let d = dialect.rawValue
                let expectedSQL = c[d], expectedError = c["\(d).error"]
                if expectedSQL == nil && expectedError == nil { XCTFail("\(c): no expectation for \(d)") }
                do throws(QueryError) {
                    let parsed = c["from"] == "where" ? try WhereJSONReader.read(text, className: c["class"] ?? "T") : try CQLParser.parse(text)
                    let query = try Binder.bind(parsed, parameters: [])
                    let t = try SQLGenerator.translate(query, dialect: dialect)
                    guard case .object(let o) = t.json else { return XCTFail("\(c): translate output is not an object") }
                    if let e = expectedError { XCTFail("\(c): \(d): expected error '\(e)', got \(t.select.sql)") }
                    XCTAssertEqual(t.select.sql, expectedSQL, "\(c): \(d)")
                    XCTAssertEqual(JSONWriter.string(.array(t.select.arguments)), c["\(d).arguments"], "\(c): \(d).arguments")
                    for extra in ["count", "keys", "include"] {
                        XCTAssertEqual(o[extra].map { JSONWriter.string($0) }, c["\(d).\(extra)"], "\(c): \(d).\(extra)")
                    }
                    // Values never enter the SQL text: every placeholder has an argument.
                    XCTAssertEqual(SQLCorpusTests.placeholders(t.select.sql, dialect), t.select.arguments.count, "\(c): \(d) placeholders")
                    checks += 1
                } catch {
                    if let e = expectedError {
                        XCTAssertTrue(error.message.contains(e), "\(c): \(d): expected error '\(e)', got '\(error.message)'")
                        checks += 1
                    } else {
                        XCTFail("\(c): \(d): unexpected error \(error.message)")
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checks, 80)
    }

    /// The highest placeholder number in `sql` (`?n` / `$n`).
    static func placeholders(_ sql: String, _ dialect: SQLDialectName) -> Int {
        let mark: Character = dialect == .sqlite ? "?" : "$"
        var highest = 0
        var chars = Array(sql)
        chars.append(" ")
        var i = 0
        while i < chars.count {
            if chars[i] == mark {
                var j = i + 1
                var n = 0
                while j < chars.count, let d = chars[j].wholeNumberValue { n = n * 10 + d; j += 1 }
                if j > i + 1 { highest = max(highest, n) }
                i = j
            } else {
                i += 1
            }
        }
        return highest
    }
}
