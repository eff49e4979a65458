import CorpusSupport
import XCTest
@testable import CQLKit

/// Runs every positive case of `Corpus/cql/*.cases` (those without an `error`
/// field): parse, bind with `params` and a fixed `now`, emit where-JSON in each
/// dialect and compare with `where` / `where.<dialect>` (an `error: M`
/// expectation means the dialect must fail with message M, or with
/// `L:C: M` when M starts with a position); compare `cql` with the canonical
/// formatter; and check `parse(format(ast)) == ast` for every case.
final class CQLCorpusTests: XCTestCase {
    /// `current_timestamp()` in the corpus: 2024-05-06T07:08:09.010Z.
    static let now = DateValue(millisecondsSince1970: 1_714_979_289_010)

    func testNowIsTheDocumentedInstant() {
        XCTAssertEqual(ISODate.format(CQLCorpusTests.now), "2024-05-06T07:08:09.010Z")
    }

    func testPositiveCases() throws {
        let cases = try Corpus.cases(in: "cql").filter { $0["error"] == nil }
        XCTAssertGreaterThanOrEqual(cases.count, 160, "the positive corpus should not shrink")
        for c in cases { run(c) }
    }

    private func run(_ c: CorpusCase) {
        guard let text = c["query"] else { return XCTFail("\(c): a case needs a 'query' field") }
        let ast: Query
        do { ast = try CQLParser.parse(text) } catch {
            return XCTFail("\(c): parse failed: \(error.shortDescription)")
        }
        checkRoundTrip(c, ast)
        if let expected = c["cql"] {
            do {
                let formatted = try CQLFormatter.format(ast)
                XCTAssertEqual(formatted, expected, "\(c): canonical CQL")
            } catch {
                XCTFail("\(c): format failed: \(error.shortDescription)")
            }
        }
        let bound: Query
        do { bound = try Binder.bind(ast, parameters: try parameters(c), now: CQLCorpusTests.now) } catch {
            return XCTFail("\(c): bind failed: \(error.shortDescription)")
        }
        for dialect in WhereJSONDialect.allCases {
            guard let expected = c["where.\(dialect.rawValue)"] ?? c["where"] else {
                XCTFail("\(c): no 'where' or 'where.\(dialect.rawValue)' expectation")
                continue
            }
            check(c, bound, dialect, expected)
        }
    }

    private func parameters(_ c: CorpusCase) throws(QueryError) -> [Value] {
        guard let text = c["params"] else { return [] }
        guard case .array(let items) = try JSONReader.parse(text) else {
            throw QueryError(.data, "'params' must be a JSON array")
        }
        return items
    }

    private func check(_ c: CorpusCase, _ q: Query, _ d: WhereJSONDialect, _ expected: String) {
        let label = "\(c) [\(d.rawValue)]"
        if expected.hasPrefix("error: ") {
            let message = String(expected.dropFirst("error: ".count))
            do {
                let v = try WhereJSONEmitter.emit(q, dialect: d)
                XCTFail("\(label): expected the error '\(message)', got \(JSONWriter.string(v))")
            } catch {
                let positioned = message.first?.isNumber == true && message.contains(": ")
                XCTAssertEqual(positioned ? error.shortDescription : error.message, message, label)
                if positioned { XCTAssertNotNil(error.source, "\(label): the error has no source text") }
                // The direct writer fails alike and writes nothing.
                var out: [UInt8] = []
                do {
                    try WhereJSONEmitter.write(q, dialect: d, to: &out)
                    XCTFail("\(label): write: expected the error '\(message)'")
                } catch let written {
                    XCTAssertEqual(written.shortDescription, error.shortDescription, "\(label) (write)")
                    XCTAssertTrue(out.isEmpty, "\(label): write appended bytes before failing")
                }
            }
            return
        }
        let want: String
        do { want = JSONWriter.string(try JSONReader.parse(expected)) } catch {
            return XCTFail("\(label): the expectation is not JSON: \(error.shortDescription)")
        }
        do {
            let got = JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: d))
            XCTAssertEqual(got, want, label)
            // The direct writer gives the same bytes, after what is already in the buffer.
            var out = Array("x\n".utf8)
            try WhereJSONEmitter.write(q, dialect: d, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "x\n" + want, "\(label) (write)")
        } catch {
            XCTFail("\(label): emit failed: \(error.shortDescription)")
        }
    }

    private func checkRoundTrip(_ c: CorpusCase, _ ast: Query) {
        do {
            let text = try CQLFormatter.format(ast)
            do {
                let again = try CQLParser.parse(text)
                XCTAssertEqual(again, ast, "\(c): parse(format(ast)) != ast; formatted: \(text)")
            } catch {
                XCTFail("\(c): the formatted text does not parse: \(text)\n\(error.rendered())")
            }
        } catch {
            XCTFail("\(c): format failed: \(error.shortDescription)")
        }
    }
}
