import CorpusSupport
import XCTest
@testable import CQLKit

/// ``ReusableCQLParser`` keeps its token buffer and state from one statement
/// to the next: it must give exactly what ``CQLParser`` gives for every
/// statement, whatever came before (a longer statement, an error half-way,
/// strings with escapes), and the scanner's integer fast path must give
/// what the general number reader gives.
final class ReusableCQLParserTests: XCTestCase {
    /// Every statement of the CQL and DML corpora (errors included).
    private func corpusStatements() throws -> [String] {
        let cql = try Corpus.cases(in: "cql").compactMap { $0["query"] }
        let dml = try Corpus.cases(in: "dml").filter { $0["from"] != "rest" }.compactMap { $0["statement"] }
        XCTAssertGreaterThan(cql.count, 200)
        XCTAssertGreaterThan(dml.count, 50)
        return cql + dml
    }

    /// Random CQL: formatted random queries (every feature CQL has).
    private func randomStatements(count: Int, seed: UInt64) -> [String] {
        var g = RandomQueries(seed: seed)
        let data = g.dataset()
        var out: [String] = []
        while out.count < count {
            if let text = try? CQLFormatter.format(g.query(data)) { out.append(text) }
        }
        return out
    }

    /// `text` damaged at random: a byte removed, a slice repeated, a
    /// character put in, or the end cut off, so that most inputs are errors
    /// at all sorts of positions.
    private func mutate(_ text: String, _ rng: inout SplitMix64) -> String {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return text }
        let i = Int(rng.next() % UInt64(bytes.count))
        switch rng.next() % 4 {
        case 0: bytes.remove(at: i)
        case 1: bytes.insert(contentsOf: bytes[i..<min(bytes.count, i + 1 + Int(rng.next() % 12))], at: i)
        case 2:
            let pieces = Array("()[]{},.'\"`-+?*=<>!;: \\0123456789eE_aZ/\n".utf8)
            bytes.insert(pieces[Int(rng.next() % UInt64(pieces.count))], at: i)
        default: bytes.removeSubrange(i...)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every range in a statement's tree (`==` ignores ranges).
    private func ranges(_ statement: Statement) -> [SourceRange?] {
        var out: [SourceRange?] = [statement.range]
        func condition(_ c: Condition?) {
            guard let c else { return }
            out.append(c.range)
            switch c.predicate {
            case .and(let items), .or(let items): items.forEach(condition)
            case .not(let inner), .elementMatch(_, let inner): condition(inner)
            case .select(_, _, let q, _), .inQuery(_, let q, _): query(q)
            case .compare(_, _, .placeholder(_, let r)): out.append(r)
            default: break
            }
        }
        func query(_ q: Query) {
            out.append(q.range)
            condition(q.condition)
        }
        switch statement {
        case .select(let q): query(q)
        case .update(let u): condition(u.condition)
        case .delete(let d): condition(d.condition)
        case .insert: break
        }
        return out
    }

    /// One input read both ways: the same statement (and ranges and source)
    /// or the same error (kind, message, range, source).
    private func assertSame(_ text: String, _ parser: ReusableCQLParser, options: CQLParser.Options = CQLParser.Options(),
                            file: StaticString = #filePath, line: UInt = #line) {
        let expected: Result<Statement, QueryError>
        do throws(QueryError) { expected = .success(try CQLParser.parseStatement(text, options: options)) } catch { expected = .failure(error) }
        let actual: Result<Statement, QueryError>
        do throws(QueryError) { actual = .success(try parser.parseStatement(text, options: options)) } catch { actual = .failure(error) }
        switch (expected, actual) {
        case (.success(let e), .success(let a)):
            XCTAssertEqual(a, e, text, file: file, line: line)
            XCTAssertEqual(ranges(a), ranges(e), text, file: file, line: line)
            if case .select(let aq) = a, case .select(let eq) = e {
                XCTAssertEqual(aq.source, eq.source, text, file: file, line: line)
                XCTAssertEqual(aq.placeholderCount, eq.placeholderCount, text, file: file, line: line)
            }
        case (.failure(let e), .failure(let a)):
            XCTAssertEqual(a.kind, e.kind, text, file: file, line: line)
            XCTAssertEqual(a.message, e.message, text, file: file, line: line)
            XCTAssertEqual(a.range, e.range, text, file: file, line: line)
            XCTAssertEqual(a.source, e.source, text, file: file, line: line)
        default:
            XCTFail("\(text): CQLParser gave \(expected), the reused parser \(actual)", file: file, line: line)
        }
    }

    /// The corpora, random statements and damaged ones, in a shuffled order
    /// through one parser: each as a new parser reads it.
    func testReusedParserReadsWhatANewParserReads() throws {
        var rng = SplitMix64(seed: 12)
        var inputs = try corpusStatements() + randomStatements(count: 300, seed: 7)
        let damaged = (0..<3000).map { _ in mutate(inputs[Int(rng.next() % UInt64(inputs.count))], &rng) }
        // A statement far longer than the others (the buffer grows, then is
        // cut back for the next), and strings with escapes (their decoded
        // values must not leak into the next statement).
        let long = "select * from T where " + (0..<3000).map { "a\($0) = \($0)" }.joined(separator: " or ")
        inputs += damaged + [long, "select * from T where a = 'x\\ty' and b = \"q\"\"r\"", "select * from T where a = 'plain'"]
        inputs.shuffle(using: &rng)
        let parser = ReusableCQLParser()
        for text in inputs { assertSame(text, parser) }
        // The same parser after all that, with the limits of other options.
        var tight = CQLParser.Options()
        tight.maxDepth = 3
        tight.maxLength = 40
        for text in ["select * from T where ((((a = 1))))", "select * from T where a = 1 and b = 2 and c = 3", "select * from T"] {
            assertSame(text, parser, options: tight)
        }
        assertSame(long, parser)
    }

    /// `parse` is `parseStatement` plus the check that the statement is a select.
    func testParseRejectsWritesLikeCQLParser() throws {
        let parser = ReusableCQLParser()
        XCTAssertEqual(try parser.parse("select * from T where a = ?"), try CQLParser.parse("select * from T where a = ?"))
        let write = "delete from T where objectId = 'x'"
        var expected: QueryError?
        do throws(QueryError) { _ = try CQLParser.parse(write) } catch { expected = error }
        do throws(QueryError) {
            _ = try parser.parse(write)
            XCTFail("a write is not a query")
        } catch {
            XCTAssertEqual(error.shortDescription, expected?.shortDescription)
            XCTAssertEqual(error.kind, .unsupported)
        }
    }

    /// The scanner sums an integer of up to 18 digits as it reads them and
    /// sends anything else to the general reader: both must give Swift's
    /// own reading of the digits, and the same overflow error past Int64.
    func testIntegerFastPathEqualsTheGeneralReader() throws {
        var rng = SplitMix64(seed: 99)
        var texts = ["0", "7", "-0", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                     "-9223372036854775809", "999999999999999999", "1000000000000000000", "000000000000000000001",
                     "-999999999999999999", "18446744073709551616"]
        for _ in 0..<3000 {
            let digits = 1 + Int(rng.next() % 22)
            var s = rng.next() % 3 == 0 ? "-" : ""
            for _ in 0..<digits { s.append(Character(UnicodeScalar(UInt8(0x30 + rng.next() % 10)))) }
            texts.append(s)
        }
        for s in texts {
            for after in ["", " ", ")", ",", ";"] {
                let text = "a = " + s + after
                let digits = Array(s.utf8)
                let expected: Value? = digits.withUnsafeBufferPointer { buffer in
                    try? NumberText.value(buffer, isInteger: true, range: SourceRange(4, 4 + buffer.count))
                }
                XCTAssertEqual(expected, Int64(s).map { .int($0) }, s)
                do {
                    let tokens = try CQLLexer.tokenize(text)
                    XCTAssertEqual(tokens[2].kind, .integer, text)
                    XCTAssertEqual(tokens[2].value, expected, text)
                    XCTAssertEqual(tokens[2].range, SourceRange(4, 4 + s.utf8.count), text)
                } catch {
                    XCTAssertNil(expected, "\(text): \(error)")
                    XCTAssertEqual(error.message, "integer \(s) does not fit in 64 bits", text)
                    XCTAssertEqual(error.range, SourceRange(4, 4 + s.utf8.count), text)
                }
            }
        }
    }
}

/// `QueryLanguage.detect` runs for every line of `--lines`: it compares the
/// first word with the four CQL verbs as one packed integer. It must judge
/// as the plain byte-by-byte comparison does, whatever the text.
final class QueryLanguageDetectTests: XCTestCase {
    /// The verbs compared as Strings, after the start of the first word
    /// (the skipping of whitespace and comments is shared).
    private func reference(_ text: String) -> QueryLanguage {
        let bytes = Array(text.utf8)
        var i = bytes.withUnsafeBufferPointer(QueryLanguage.firstWordStart)
        guard i < bytes.count else { return .cql }
        if bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[") { return .whereJSON }
        let start = i
        while i < bytes.count, (bytes[i] | 0x20) >= 0x61, (bytes[i] | 0x20) <= 0x7A { i += 1 }
        let word = String(decoding: bytes[start..<i].map { $0 | 0x20 }, as: UTF8.self)
        return ["select", "insert", "update", "delete"].contains(word) ? .cql : .usergrid
    }

    func testDetectEqualsTheByteByByteComparison() {
        var texts = ["select * from T", "SELECT x", "Insert into T(a) values (1)", "update T set a = 1", "DELETE from T",
                     "selects", "selec", "delete_x", "upDate", "  -- c\n select", "/* x */insert", "{\"a\":1}", "[1]",
                     "name = 'x'", "", "   ", "sélect", "select1", "inserts into", "Select\tx", "deletE"]
        var rng = SplitMix64(seed: 3)
        let letters = Array("selctinsrupdaSELCTINSRUPDAxz_1 (-".utf8)
        for _ in 0..<20000 {
            let n = Int(rng.next() % 9)
            texts.append(String(decoding: (0..<n).map { _ in letters[Int(rng.next() % UInt64(letters.count))] }, as: UTF8.self))
        }
        for verb in ["select", "insert", "update", "delete"] {
            for mask in 0..<64 {
                let cased = String(verb.enumerated().map { mask & (1 << $0.offset) != 0 ? Character($0.element.uppercased()) : $0.element })
                texts += [cased, cased + " x", cased + "x", String(cased.dropLast()), " " + cased + "("]
            }
        }
        for t in texts { XCTAssertEqual(QueryLanguage.detect(t), reference(t), t) }
    }
}
