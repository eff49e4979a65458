import CorpusSupport
import Foundation
import XCTest

@testable import CQLKit

/// Runs `Corpus/usergrid/*.cases`.
///
/// Fields: `query:`; `options:` (space-separated `literal`, `class=Dog`,
/// `limit=5`, `cursor=...`); expectations: `error:` (`LINE:COL: message`,
/// the parse error's `shortDescription`), `usergrid:` (canonical text, or
/// `error: message` when formatting fails), `where:` (the leancloud request
/// object, compared as JSON, or `error: message`), `cql:` (CQL text or
/// `error: message`). Every parsed query must also round-trip:
/// `parse(format(q)) == q`, and formatting the canonical text again gives it
/// back unchanged.
final class UsergridCorpusTests: XCTestCase {
    static func cases() throws -> [CorpusCase] { try Corpus.cases(in: "usergrid") }

    static func options(_ text: String?) throws -> UsergridOptions {
        var o = UsergridOptions()
        for word in (text ?? "").split(separator: " ") {
            if word == "literal" {
                o.literal = true
            } else if word.hasPrefix("class=") {
                o.className = String(word.dropFirst(6))
            } else if word.hasPrefix("limit="), let n = Int(word.dropFirst(6)) {
                o.limit = n
            } else if word.hasPrefix("cursor=") {
                o.cursor = String(word.dropFirst(7))
            } else {
                throw CorpusError.malformed("unknown option '\(word)'")
            }
        }
        return o
    }

    func testCorpus() throws {
        let cases = try Self.cases()
        XCTAssertGreaterThanOrEqual(cases.count, 130)
        var errors = 0
        for c in cases {
            guard let text = c["query"] else {
                XCTFail("\(c): no query")
                continue
            }
            let options = try Self.options(c["options"])
            let query: Query
            do {
                query = try UsergridParser.parse(text, options: options)
            } catch {
                if let expected = c["error"] {
                    XCTAssertEqual(error.shortDescription, expected, "\(c)")
                    XCTAssertNotNil(error.source, "\(c): error without source")
                    errors += 1
                } else {
                    XCTFail("\(c): unexpected error \(error.rendered())")
                }
                continue
            }
            if let expected = c["error"] {
                XCTFail("\(c): expected error '\(expected)', parsed \(query)")
                continue
            }
            XCTAssert(
                c["usergrid"] != nil || c["where"] != nil || c["cql"] != nil, "\(c): a good case needs an expectation")
            checkFormat(c, query, options)
            if let expected = c["where"], let actual = Self.emitWhere(query) {
                check(c, "where", expected, actual, json: true)
            }
            if let expected = c["cql"], let actual = Self.formatCQL(query) {
                check(c, "cql", expected, actual, json: false)
            }
        }
        XCTAssertGreaterThanOrEqual(errors, 40, "bad-query cases")
    }

    /// `usergrid:` and the round trip.
    func checkFormat(_ c: CorpusCase, _ query: Query, _ options: UsergridOptions) {
        let text: String
        do {
            text = try UsergridFormatter.format(query, literal: options.literal)
        } catch {
            if let expected = c["usergrid"] {
                XCTAssertEqual("error: " + error.message, expected, "\(c)")
                XCTAssertEqual(error.kind, .unsupported, "\(c)")
            } else {
                XCTFail("\(c): format failed: \(error.message)")
            }
            return
        }
        if let expected = c["usergrid"] { XCTAssertEqual(text, expected, "\(c)") }
        do {
            let again = try UsergridParser.parse(text, options: options)
            XCTAssertEqual(again, query, "\(c): parse(format(q)) != q for \(text)")
            XCTAssertEqual(try UsergridFormatter.format(again, literal: options.literal), text, "\(c): not canonical")
        } catch {
            XCTFail("\(c): formatted text does not parse: \(text): \(error.rendered())")
        }
    }

    func check(_ c: CorpusCase, _ field: String, _ expected: String, _ actual: Result<String, QueryError>, json: Bool) {
        switch actual {
        case .success(let out):
            if json, !expected.hasPrefix("error: "),
                let e = try? JSONReader.parse(expected), let a = try? JSONReader.parse(out)
            {
                XCTAssertEqual(a, e, "\(c) \(field): got \(out)")
            } else {
                XCTAssertEqual(out, expected, "\(c) \(field)")
            }
        case .failure(let error):
            XCTAssertEqual("error: " + error.message, expected, "\(c) \(field)")
        }
    }

    /// The leancloud where-JSON request object (compact, sorted keys).
    static func emitWhere(_ query: Query) -> Result<String, QueryError>? {
        do throws(QueryError) {
            return .success(JSONWriter.string(try WhereJSONEmitter.emit(query, dialect: .leancloud)))
        } catch {
            return .failure(error)
        }
    }

    /// The canonical CQL text.
    static func formatCQL(_ query: Query) -> Result<String, QueryError>? {
        do throws(QueryError) {
            return .success(try CQLFormatter.format(query))
        } catch {
            return .failure(error)
        }
    }
}
