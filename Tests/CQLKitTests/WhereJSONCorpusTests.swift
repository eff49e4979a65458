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
        if let expected = c["roundtrip"] { checkRoundTrip(c, text, query, expected, via: "read") }
        if let expected = c["cql"] {
            do throws(QueryError) {
                let cql = try CQLFormatter.format(query)
                XCTAssertEqual(cql, expected, "\(c)")
                // The CQL text, parsed and emitted, gives the same where-JSON.
                if let roundtrip = c["roundtrip"] {
                    checkRoundTrip(c, text, try CQLParser.parse(cql), roundtrip, via: "CQL")
                }
            } catch {
                XCTAssertEqual("error: " + error.message, expected, "\(c)")
            }
        }
        // Reading the same document as a Value gives the same AST.
        if let value = try? JSONReader.parse(text) {
            XCTAssertEqual(try? WhereJSONReader.read(value, className: c["class"] ?? ""), query, "\(c): read(Value)")
        }
    }

    /// `query` emitted gives `expected` (`same`: the input, canonically
    /// printed); a request object is compared with the whole request, a
    /// condition with its `where`.
    private func checkRoundTrip(_ c: CorpusCase, _ text: String, _ query: Query, _ expected: String, via: String) {
        guard let dialect = WhereJSONDialect(rawValue: c["dialect"] ?? "parse") else {
            return XCTFail("\(c): unknown dialect '\(c["dialect"] ?? "")'")
        }
        let emitted: Value
        do throws(QueryError) {
            emitted = try WhereJSONEmitter.emit(query, dialect: dialect)
        } catch {
            return XCTAssertEqual("error: " + error.message, expected, "\(c) (\(via))")
        }
        let expectedText = expected == "same" ? text : expected
        guard let want = try? JSONReader.parse(expectedText) else { return XCTFail("\(c): roundtrip is not JSON") }
        let isRequest = want["where"] != nil || want["className"] != nil
        let got = isRequest ? emitted : (emitted["where"] ?? .object([:]))
        XCTAssertEqual(JSONWriter.string(got), JSONWriter.string(want), "\(c) (\(via))")
    }

    /// Mutated corpus documents never crash the reader, and every error it
    /// reports points inside the text.
    func testMutatedDocumentsFailCleanly() throws {
        var rng = SplitMix64(seed: 0x5EED)
        let alphabet = Array(#"{}[]:,"$\ 0-1.5eEtrufalsn"#.utf8)
        for c in try Self.cases() {
            guard let text = c["query"] else { continue }
            let bytes = Array(text.utf8)
            for _ in 0..<20 {
                var m = bytes
                for _ in 0...Int(rng.next() % 3) {
                    let i = Int(rng.next() % UInt64(m.count + 1))
                    switch rng.next() % 3 {
                    case 0 where i < m.count: m.remove(at: i)
                    case 1 where i < m.count: m[i] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                    default: m.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: i)
                    }
                }
                let mutated = String(decoding: m, as: UTF8.self)
                do throws(QueryError) {
                    _ = try WhereJSONReader.read(mutated)
                } catch {
                    guard let r = error.range else { XCTFail("\(c): no range for \(mutated): \(error)"); continue }
                    XCTAssertLessThanOrEqual(r.end, mutated.utf8.count, "\(c): \(mutated)")
                    XCTAssertEqual(error.source, mutated)
                }
            }
        }
    }

    static func cases() throws -> [CorpusCase] { try Corpus.cases(in: "where") }
}
