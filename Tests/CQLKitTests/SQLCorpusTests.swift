import CorpusSupport
import Foundation
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
            if c["statement"] != nil {
                checks += writeCase(c)
                continue
            }
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
                    checks += expectError(error, expectedError, c, d)
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checks, 80)
    }

    /// A write (`statement`, with the relation tables `joins`): the SQL of
    /// its statements, one a line, and their arguments (one statement's
    /// array, or an array of arrays); now = 2024-05-06T07:08:09.010Z, new
    /// objectIds `new1`, `new2`, ... Returns the checks made.
    func writeCase(_ c: CorpusCase) -> Int {
        var checks = 0
        for dialect in SQLDialectName.allCases {
            let d = dialect.rawValue
            let expectedSQL = c[d], expectedError = c["\(d).error"]
            if expectedSQL == nil && expectedError == nil { XCTFail("\(c): no expectation for \(d)") }
            do throws(QueryError) {
                let now = DateValue(millisecondsSince1970: 1_714_979_289_010)
                let statement = try Binder.bind(try CQLParser.parseStatement(c["statement"] ?? ""), parameters: [], now: now)
                var n = 0
                let joins = (c["joins"] ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                let w = try SQLWriteGenerator.translate(statement, dialect: dialect, now: now, newObjectId: { n += 1; return "new\(n)" },
                                                        joinTables: joins)
                if let e = expectedError { XCTFail("\(c): \(d): expected error '\(e)', got \(w.statements[0].sql)") }
                let sql = w.statements.map(\.sql).joined(separator: "\n")
                let arguments: Value = w.statements.count == 1 ? .array(w.statements[0].arguments) : .array(w.statements.map { .array($0.arguments) })
                if ProcessInfo.processInfo.environment["SQL_CORPUS_PRINT"] != nil {
                    // To write a new case's expectations: check them by hand, then paste.
                    print("\(c) \(d): " + sql.replacingOccurrences(of: "\n", with: "\n| ") + "\n\(c) \(d).arguments: " + JSONWriter.string(arguments))
                }
                XCTAssertEqual(sql, expectedSQL, "\(c): \(d)")
                XCTAssertEqual(JSONWriter.string(arguments), c["\(d).arguments"], "\(c): \(d).arguments")
                for s in w.statements {
                    XCTAssertEqual(SQLCorpusTests.placeholders(s.sql, dialect), s.arguments.count, "\(c): \(d) placeholders")
                }
                checks += 1
            } catch {
                checks += expectError(error, expectedError, c, d)
            }
        }
        return checks
    }

    /// Checks an error against the case's `<dialect>.error`; 1 when expected.
    func expectError(_ error: QueryError, _ expected: String?, _ c: CorpusCase, _ d: String) -> Int {
        guard let e = expected else {
            XCTFail("\(c): \(d): unexpected error \(error.message)")
            return 0
        }
        XCTAssertTrue(error.message.contains(e), "\(c): \(d): expected error '\(e)', got '\(error.message)'")
        return 1
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
