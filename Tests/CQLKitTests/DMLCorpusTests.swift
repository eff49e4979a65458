import CorpusSupport
import XCTest
@testable import CQLKit

/// Golden cases of `Corpus/dml/*.cases` (format: Corpus/dml/README.md):
/// write statements parsed, formatted, bound, emitted as REST requests and
/// read back.
final class DMLCorpusTests: XCTestCase {
    static let fields: Set<String> = ["rule", "statement", "from", "params", "cql", "rest", "roundtrip", "error"]
    /// `current_timestamp()` in the corpus: 2024-05-06T07:08:09.010Z.
    static let now = DateValue(millisecondsSince1970: 1_714_979_289_010)

    func testCorpus() throws {
        let cases = try Corpus.cases(in: "dml")
        XCTAssertGreaterThanOrEqual(cases.count, 80, "the DML corpus should not shrink")
        XCTAssertGreaterThanOrEqual(cases.filter { $0["error"] != nil }.count, 27, "a third of the DML corpus are errors")
        for c in cases { check(c) }
    }

    private func check(_ c: CorpusCase) {
        for name in c.order where !Self.fields.contains(name) { XCTFail("\(c): unknown field '\(name)'") }
        guard let text = c["statement"] else { return XCTFail("\(c): no statement") }
        if c["rule"] == nil { XCTFail("\(c): every case names the rule it covers ('rule:')") }
        let fromREST = c["from"] == "rest"
        let statement: Statement
        do throws(QueryError) {
            let parsed = fromREST ? try RESTReader.read(text) : try CQLParser.parseStatement(text)
            if !fromREST { checkFormat(c, parsed) }
            statement = try Binder.bind(parsed, parameters: try parameters(c), now: Self.now)
        } catch {
            if let expected = c["error"] {
                XCTAssertEqual(error.shortDescription, expected, "\(c)")
                XCTAssertNotNil(error.range, "\(c): error without a range")
                XCTAssertNotNil(error.source, "\(c): error without its source text")
            } else {
                XCTFail("\(c): unexpected error \(error.shortDescription)")
            }
            return
        }
        if let expected = c["error"] { return XCTFail("\(c): expected the error '\(expected)', but the statement was read and bound") }
        XCTAssertTrue(statement.isWrite, "\(c): not a write")
        if fromREST, let expected = c["cql"] {
            XCTAssertEqual(format(c, statement), expected, "\(c): CQL of the REST request")
        }
        guard let expected = c["rest"] else { return }
        let emitted: String
        do {
            emitted = JSONWriter.string(try RESTEmitter.emit(statement))
        } catch {
            return XCTAssertEqual("error: " + error.shortDescription, expected, "\(c): REST")
        }
        XCTAssertEqual(emitted, expected, "\(c): REST")
        checkRoundTrip(c, statement, emitted)
    }

    /// `cql:` is the canonical text, and it parses back to the same statement.
    private func checkFormat(_ c: CorpusCase, _ parsed: Statement) {
        let text = format(c, parsed)
        if let expected = c["cql"] { XCTAssertEqual(text, expected, "\(c): canonical CQL") }
        do {
            let again = try CQLParser.parseStatement(text)
            XCTAssertEqual(again, parsed, "\(c): parse(format(s)) != s; formatted: \(text)")
        } catch {
            XCTFail("\(c): the formatted text does not parse: \(text)\n\(error.rendered())")
        }
    }

    /// The REST request reads back into the statement (keys in code-point
    /// order, as JSON objects have no order), whose request is the same.
    private func checkRoundTrip(_ c: CorpusCase, _ statement: Statement, _ emitted: String) {
        do {
            let read = try RESTReader.read(emitted)
            XCTAssertEqual(JSONWriter.string(try RESTEmitter.emit(read)), emitted, "\(c): emit(read(rest)) != rest")
            let expected = c["roundtrip"] ?? format(c, DMLCorpusTests.sortedKeys(statement))
            XCTAssertEqual(format(c, read), expected, "\(c): read(rest)")
        } catch {
            XCTFail("\(c): the REST request does not read back: \(error.rendered())")
        }
    }

    private func format(_ c: CorpusCase, _ s: Statement) -> String {
        do { return try CQLFormatter.format(s) } catch {
            XCTFail("\(c): format failed: \(error.shortDescription)")
            return ""
        }
    }

    private func parameters(_ c: CorpusCase) throws(QueryError) -> [Value] {
        guard let text = c["params"] else { return [] }
        guard case .array(let items) = try JSONReader.parse(text) else { throw QueryError(.data, "'params' must be a JSON array") }
        return items
    }

    /// Insert columns and update keys in code-point order (values follow their keys).
    static func sortedKeys(_ s: Statement) -> Statement {
        func before(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
        switch s {
        case .insert(var i):
            let order = i.columns.indices.sorted { before(i.columns[$0].name, i.columns[$1].name) }
            i.columns = order.map { i.columns[$0] }
            i.rows = i.rows.map { row in order.map { row[$0] } }
            return .insert(i)
        case .update(var u):
            u.assignments.sort { before($0.key.name, $1.key.name) }
            return .update(u)
        default:
            return s
        }
    }
}
