import CorpusSupport
import Foundation
import XCTest
@testable import CQLKit

/// Golden cases of `Corpus/where/*.cases` (format: Corpus/where/README.md).
///
/// - `query:` where-JSON text, `class:` the className given to the reader;
/// - `error:` the read error (`LINE:COL: path: message`);
/// - `ast:` the ASTPrinter dump of what was read;
/// - `roundtrip:` / `cql:` what the emitter / CQL formatter make of it.
final class WhereJSONCorpusTests: XCTestCase {
    static let fields: Set<String> = ["query", "class", "dialect", "roundtrip", "cql", "error", "ast"]

    func testCorpus() throws {
        let cases = try Self.cases()
        XCTAssertGreaterThanOrEqual(cases.count, 90)
        XCTAssertGreaterThanOrEqual(cases.filter { $0["error"] != nil }.count, 35)
        for c in cases { check(c) }
    }

    private func check(_ c: CorpusCase) {
        for name in c.order where !Self.fields.contains(name) { XCTFail("\(c): unknown field '\(name)'") }
        guard let text = c["query"] else { return XCTFail("\(c): no query") }
        let expectations = ["error", "ast", "roundtrip", "cql"].filter { c[$0] != nil }
        if expectations.isEmpty { XCTFail("\(c): no expectation") }
        let query: Query
        do throws(QueryError) {
            query = try WhereJSONReader.read(text, className: c["class"] ?? "")
        } catch {
            if let expected = c["error"] {
                XCTAssertEqual(error.shortDescription, expected, "\(c)")
                XCTAssertNotNil(error.range, "\(c): error without a range")
            } else {
                XCTFail("\(c): unexpected error \(error.shortDescription)")
            }
            return
        }
        if let expected = c["error"] { return XCTFail("\(c): expected error '\(expected)', read \(ASTPrinter.describe(query))") }
        if let expected = c["ast"] { XCTAssertEqual(ASTPrinter.describe(query), expected, "\(c)") }
        // Reading the same document as a Value gives the same AST.
        if let value = try? JSONReader.parse(text) {
            XCTAssertEqual(try? WhereJSONReader.read(value, className: c["class"] ?? ""), query, "\(c): read(Value)")
        }
    }

    /// The cases of every `Corpus/where/*.cases`, located from this file (the
    /// shared `Corpus.root` needs `Corpus/cql`, which need not exist yet).
    static func cases() throws -> [CorpusCase] {
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { dir.deleteLastPathComponent() }
        dir.appendPathComponent("Corpus/where")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".cases") }.sorted()
        var all: [CorpusCase] = []
        for name in names {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            all += try Corpus.parse(text, file: "Corpus/where/\(name)")
        }
        return all
    }
}
