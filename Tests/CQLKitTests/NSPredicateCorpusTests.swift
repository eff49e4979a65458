import CorpusSupport
import Foundation
import XCTest

@testable import CQLKit

/// Runs `Corpus/nspredicate/*.cases`.
///
/// Fields: `query:` (the format string); `args:` (JSON array for the
/// `%`-placeholders), `vars:` (JSON object for `$NAME`), `class:` (default
/// `T`); expectations: `error:` (`LINE:COL: message`, the parse error's
/// `shortDescription`), `where:` (the parse-dialect where-JSON request,
/// compared as JSON, or `error: message`), `nspredicate:` (the canonical
/// text, or `error: message`), `cql:` (CQL text or `error: message`).
///
/// Every parsed query must round-trip when it can be written: NSPredicate →
/// AST → NSPredicate → AST is the identity, and the canonical text formats
/// to itself.
final class NSPredicateCorpusTests: XCTestCase {
    func testCorpus() throws {
        let cases = try Corpus.cases(in: "nspredicate")
        XCTAssertGreaterThanOrEqual(cases.count, 200)
        var errors = 0, roundTrips = 0
        for c in cases {
            guard let text = c["query"] else {
                XCTFail("\(c): no query")
                continue
            }
            let query: Query
            do {
                let args = try c["args"].map { text throws -> [Value] in
                    guard case .array(let items) = try JSONReader.parse(text) else { throw CorpusError.malformed("\(c): args must be an array") }
                    return items
                } ?? []
                let vars = try c["vars"].map { text throws -> [String: Value] in
                    guard case .object(let o) = try JSONReader.parse(text) else { throw CorpusError.malformed("\(c): vars must be an object") }
                    return o
                } ?? [:]
                query = try NSPredicateParser.parse(format: text, argumentArray: args, variables: vars, className: c["class"] ?? "T")
            } catch let error as QueryError {
                if let expected = c["error"] {
                    XCTAssertEqual(error.shortDescription, expected, "\(c)")
                    XCTAssertNotNil(error.source, "\(c): error without source")
                    XCTAssertNotNil(error.range, "\(c): error without position")
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
            XCTAssert(c["where"] != nil || c["nspredicate"] != nil || c["cql"] != nil, "\(c): a good case needs an expectation")
            if let expected = c["where"] {
                check(c, "where", expected, Result { () throws(QueryError) -> String in
                    JSONWriter.string(try WhereJSONEmitter.emit(query, dialect: .parse))
                }, json: true)
            }
            if let expected = c["cql"] {
                check(c, "cql", expected, Result { () throws(QueryError) -> String in try CQLFormatter.format(query) }, json: false)
            }
            if roundTrip(c, query) { roundTrips += 1 }
        }
        print("nspredicate corpus: \(cases.count) cases, \(errors) positioned errors, \(roundTrips) round trips (NSPredicate -> AST -> NSPredicate -> AST)")
        XCTAssertGreaterThanOrEqual(errors, 60, "bad-predicate cases")
        XCTAssertGreaterThanOrEqual(roundTrips, 100, "round trips")
    }

    /// `nspredicate:` and the round trip; whether the query could be written.
    func roundTrip(_ c: CorpusCase, _ query: Query) -> Bool {
        let text: String
        do {
            text = try NSPredicateFormatter.format(query)
        } catch {
            if let expected = c["nspredicate"] {
                XCTAssertEqual("error: " + error.message, expected, "\(c)")
                XCTAssertEqual(error.kind, .unsupported, "\(c)")
            } else {
                XCTFail("\(c): format failed: \(error.message)")
            }
            return false
        }
        if let expected = c["nspredicate"] { XCTAssertEqual(text, expected, "\(c)") }
        do {
            let again = try NSPredicateParser.parse(format: text, className: query.className)
            XCTAssertEqual(again, query, "\(c): parse(format(q)) != q for \(text)")
            XCTAssertEqual(try NSPredicateFormatter.format(again), text, "\(c): not canonical")
        } catch {
            XCTFail("\(c): formatted text does not parse: \(text): \(error.rendered())")
        }
        return true
    }

    func check(_ c: CorpusCase, _ field: String, _ expected: String, _ actual: Result<String, QueryError>, json: Bool) {
        switch actual {
        case .success(let out):
            if json, !expected.hasPrefix("error: "), let e = try? JSONReader.parse(expected), let a = try? JSONReader.parse(out) {
                XCTAssertEqual(a, e, "\(c) \(field): got \(out)")
            } else {
                XCTAssertEqual(out, expected, "\(c) \(field)")
            }
        case .failure(let error):
            XCTAssertEqual("error: " + error.message, expected, "\(c) \(field)")
        }
    }

    static func hasSQLLike(_ c: Condition?) -> Bool {
        guard let c else { return false }
        switch c.predicate {
        case .like: return true
        case .and(let items), .or(let items): return items.contains { hasSQLLike($0) }
        case .not(let inner): return hasSQLLike(inner)
        default: return false
        }
    }

    /// From the other languages: every CQL, Usergrid and where-JSON corpus
    /// query's condition either becomes an NSPredicate that reads back to the
    /// same where-JSON, or fails with a named `.unsupported` error.
    func testOtherLanguagesToNSPredicate() throws {
        var written = 0, refused = 0
        for (area, language) in [("cql", QueryLanguage.cql), ("usergrid", .usergrid), ("where", .whereJSON)] {
            for c in try Corpus.cases(in: area) where c["error"] == nil {
                guard let text = c["query"] ?? c["input"] else { continue }
                guard let query = try? language.parse(text, className: c["class"] ?? "T") else { continue }
                let bound = (try? Binder.bind(query, parameters: [])) ?? query
                let predicate: String
                do {
                    predicate = try NSPredicateFormatter.format(bound, conditionOnly: true)
                } catch {
                    XCTAssertEqual(error.kind, .unsupported, "\(c): \(error.message)")
                    refused += 1
                    continue
                }
                do {
                    let back = try NSPredicateParser.parse(format: predicate, className: bound.className)
                    var conditionOnly = Query(className: bound.className, condition: bound.condition)
                    conditionOnly.source = bound.source
                    let want = try? WhereJSONEmitter.emit(conditionOnly, dialect: .parse)
                    let got = try? WhereJSONEmitter.emit(back, dialect: .parse)
                    // SQL LIKE reads back as NSPredicate's LIKE regex, spelled
                    // differently (\Q..\E runs): TranslationDifferentialTests
                    // checks that it matches the same objects.
                    if !Self.hasSQLLike(bound.condition) {
                        XCTAssertEqual(got, want, "\(c): \(text) -> \(predicate)")
                    }
                    XCTAssertEqual(try NSPredicateFormatter.format(back), predicate, "\(c): \(predicate) not canonical")
                    written += 1
                } catch {
                    XCTFail("\(c): \(text) -> \(predicate) does not parse: \(error.rendered())")
                }
            }
        }
        print("other languages -> NSPredicate: \(written) written, \(refused) refused by name")
        XCTAssertTrue(Self.hasSQLLike(try CQLParser.parse("select * from T where a = 1 and not (b like 'x%')").condition))
        XCTAssertGreaterThan(written, 50)
    }
}
