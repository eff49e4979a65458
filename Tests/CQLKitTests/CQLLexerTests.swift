import XCTest
@testable import CQLKit

final class CQLLexerTests: XCTestCase {
    func kinds(_ text: String) throws -> [CQLToken.Kind] { try CQLLexer.tokenize(text).map(\.kind) }

    func testTokens() throws {
        let tokens = try CQLLexer.tokenize("SELECT a.`order`, count(*) from T where x <> -1 and y<=2.5e3 -- c\n/* b */ limit ?;")
        XCTAssertEqual(tokens.map(\.kind), [
            .keyword, .identifier, .dot, .quotedIdentifier, .comma, .identifier, .leftParen, .star, .rightParen, .keyword,
            .identifier, .keyword, .identifier, .notEqual, .integer, .keyword, .identifier, .lessOrEqual, .decimal,
            .keyword, .placeholder, .semicolon, .end,
        ])
        XCTAssertEqual(tokens[0].text, "SELECT")
        XCTAssertEqual(tokens[0].range, SourceRange(0, 6))
        XCTAssertEqual(tokens[3].name, "order")
        XCTAssertEqual(tokens[14].value, .int(-1))
        XCTAssertEqual(tokens[18].value, .double(2500))
        XCTAssertEqual(tokens.last?.range, SourceRange(82, 82))
    }

    func testDocumentationExample() throws {
        let tokens = try CQLLexer.tokenize("select * from T where a = 'x'")
        XCTAssertEqual(tokens.map(\.description), [
            "keyword select 0..<6", "star * 7..<8", "keyword from 9..<13", "identifier T 14..<15", "keyword where 16..<21",
            "identifier a 22..<23", "equal = 24..<25", "string 'x' 26..<29", "end  29..<29",
        ])
        XCTAssertEqual(try kinds("limit -1"), [.keyword, .integer, .end])
        // A leading byte order mark is skipped.
        XCTAssertEqual(try kinds("\u{FEFF}select"), [.keyword, .end])
    }

    func testMinusIsASignOnlyWhereAValueStarts() throws {
        XCTAssertEqual(try kinds("order by -score"), [.keyword, .identifier, .minus, .identifier, .end])
        XCTAssertEqual(try kinds("a = -5"), [.identifier, .equal, .integer, .end])
        XCTAssertEqual(try kinds("a-5"), [.identifier, .minus, .integer, .end])
        XCTAssertEqual(try kinds("tags.0.1"), [.identifier, .dot, .integer, .dot, .integer, .end])
        XCTAssertEqual(try kinds("[1,-2]"), [.leftBracket, .integer, .comma, .integer, .rightBracket, .end])
    }

    func testNumbers() throws {
        XCTAssertEqual(try CQLLexer.tokenize("9223372036854775807")[0].value, .int(Int64.max))
        XCTAssertEqual(try CQLLexer.tokenize("-9223372036854775808")[0].value, .int(Int64.min))
        XCTAssertEqual(try CQLLexer.tokenize("1E-2")[0].value, .double(0.01))
        XCTAssertEqual(try CQLLexer.tokenize("1.0")[0].value, .double(1))
        XCTAssertThrowsError(try CQLLexer.tokenize("9223372036854775808")) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .invalidValue)
        }
    }

    func testErrorsArePositionedInScalars() {
        XCTAssertThrowsError(try CQLLexer.tokenize("'été' ，")) { e in
            XCTAssertEqual((e as? QueryError)?.shortDescription, "1:7: unexpected character '，'")
            XCTAssertEqual((e as? QueryError)?.range, SourceRange(8, 11))
        }
        XCTAssertThrowsError(try CQLLexer.tokenize("a\u{7}")) { e in
            XCTAssertEqual((e as? QueryError)?.shortDescription, "1:2: unexpected character U+0007")
        }
    }

    /// The lexer tests keywords with a switch over packed bytes; it must
    /// agree with `CQLToken.reservedWords` on the words themselves (any case)
    /// and on every word one edit away from one.
    func testKeywordTestAgreesWithReservedWords() throws {
        var words: Set<String> = ["a", "ab", "abcdefgh", "abcdefghi", "selects", "_in", "in_", "in0", "IN", "Include"]
        for w in CQLToken.reservedWords {
            words.insert(w)
            words.insert(w.uppercased())
            words.insert(w.prefix(1).uppercased() + w.dropFirst())
            let chars = Array(w)
            for i in chars.indices {
                var dropped = chars
                dropped.remove(at: i)
                words.insert(String(dropped))
                for c in ["x", "_", "0", "Z"] {
                    var changed = chars
                    changed[i] = Character(c)
                    words.insert(String(changed))
                    var added = chars
                    added.insert(Character(c), at: i)
                    words.insert(String(added))
                }
            }
        }
        for w in words where w.first.map({ $0.isLetter || $0 == "_" }) ?? false {
            let token = try CQLLexer.tokenize(w)[0]
            let expected: CQLToken.Kind = CQLToken.reservedWords.contains(w.lowercased()) ? .keyword : .identifier
            XCTAssertEqual(token.kind, expected, w)
            XCTAssertEqual(token.text, w)
            XCTAssertEqual(token.word, w.lowercased())
        }
    }

    func testStringFastPathAndEscapes() throws {
        let cases: [(String, String)] = [("'abc'", "abc"), ("'it''s'", "it's"), (#"'a\nb'"#, "a\nb"), ("''", ""),
                                         (#""q\"x""#, "q\"x"), ("'é中'", "é中")]
        for (text, value) in cases {
            XCTAssertEqual(try CQLLexer.tokenize(text)[0].value, .string(value), text)
            XCTAssertEqual(try CQLLexer.tokenize(text)[0].text, text)
        }
        // A doubled quote at the end leaves the string open.
        XCTAssertThrowsError(try CQLLexer.tokenize("'a''"))
    }

    /// The parser classifies words by packed bytes; every CQLWord in any
    /// case, and nothing else, must come back.
    func testWordClassification() {
        func classify(_ s: String) -> CQLWord {
            let b = Array(s.utf8)
            return b.withUnsafeBufferPointer { CQLWord.classify($0, 0, b.count) }
        }
        for w in CQLWord.allCases where w != .none {
            XCTAssertEqual(classify(w.rawValue), w)
            XCTAssertEqual(classify(w.rawValue.uppercased()), w)
            XCTAssertEqual(classify(w.rawValue + "s"), CQLWord(rawValue: w.rawValue + "s") ?? .none)
            XCTAssertEqual(classify(String(w.rawValue.dropLast())), CQLWord(rawValue: String(w.rawValue.dropLast())) ?? .none)
        }
        for other in ["", "x", "_", "selected", "kms", "in_", "IN0", "abcdefghijk", "orde"] {
            XCTAssertEqual(classify(other), .none, other)
        }
    }

    /// The scanner packs a word's bytes with one 8-byte load where the text
    /// allows (and tests word bytes with a bit set): its words must be what
    /// `classify` says of the same bytes, and end where the word bytes
    /// `[0-9A-Z_a-z]` end.
    func testScannerWordsMatchClassification() throws {
        var words = CQLWord.allCases.filter { $0 != .none }.flatMap { [$0.rawValue, $0.rawValue.uppercased(), $0.rawValue + "_9"] }
        words += ["x", "_", "selected", "kms", "abcdefgh", "abcdefghi", "Order", "wHeRe"]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")
        for _ in 0..<2000 {
            let n = Int.random(in: 1...10, using: &generator)
            words.append(String([alphabet[Int.random(in: 0..<52, using: &generator)]]
                + (1..<n).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }))
        }
        // A word with fewer than 8 bytes of text from its start is packed
        // byte by byte, any other is read 8 bytes at once: both must agree.
        for w in words {
            for after in ["", "(", "( and more text after"] {
                let bytes = Array((w + after).utf8)
                let scanned = try bytes.withUnsafeBufferPointer { buffer throws(QueryError) in
                    var scanner = CQLScanner(buffer)
                    return Array(try scanner.run().tokens)
                }
                let expected = bytes.withUnsafeBufferPointer { CQLWord.classify($0, 0, w.utf8.count) }
                XCTAssertEqual(scanned.first?.word, expected, w + after)
                XCTAssertEqual(scanned.first?.end, w.utf8.count, w + after)
                XCTAssertEqual(scanned.first?.kind, expected.isReserved ? .keyword : .identifier, w + after)
            }
        }
        // The scanner finds a word's end eight bytes at a time: every byte
        // value, at every place among the eight, must be judged as
        // isWordByte judges it.
        for b in 0...255 {
            for place in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: 8)
                bytes[place] = UInt8(b)
                let x = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                var expected: UInt64 = 0
                for (i, c) in bytes.enumerated() where !CQLScanner.isWordByte(c) { expected |= 0x80 << UInt64(8 * i) }
                XCTAssertEqual(CQLScanner.nonWordBytes(x), expected, "byte \(b) at \(place)")
            }
        }
        // Every byte value: word bytes are exactly [0-9A-Z_a-z].
        for b in 0...255 {
            let c = UInt8(b)
            let expected = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || c == 0x5F || (c >= 0x61 && c <= 0x7A)
            XCTAssertEqual(CQLScanner.isWordByte(c), expected, "byte \(b)")
        }
    }
}
