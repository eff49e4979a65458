import CorpusSupport
import XCTest

@testable import CQLKit

/// ``JSONWriter`` sorts dictionary indices, writes integers digit by digit
/// and finds escape-free runs a word at a time. A straightforward reference
/// writer (the previous implementation) must produce the same bytes.
final class JSONWriterFastPathTests: XCTestCase {
    /// The reference: pairs sorted by UTF-8, `String(i)`, byte-by-byte escaping.
    private func reference(_ v: Value) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return JSONWriter.doubleText(d)
        case .string(let s): return referenceString(s)
        case .array(let items): return "[" + items.map(reference).joined(separator: ",") + "]"
        case .object(let o):
            let sorted = o.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            return "{" + sorted.map { referenceString($0.key) + ":" + reference($0.value) }.joined(separator: ",") + "}"
        default:
            return JSONWriter.string(v)
        }
    }

    private func referenceString(_ s: String) -> String {
        var out: [UInt8] = [0x22]
        for b in s.utf8 {
            switch b {
            case 0x22, 0x5C: out += [0x5C, b]
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0x08: out += Array(#"\b"#.utf8)
            case 0x0C: out += Array(#"\f"#.utf8)
            case 0..<0x20, 0x7F: out += Array(String(format: "\\u%04x", b).utf8)
            default: out.append(b)
            }
        }
        out.append(0x22)
        return String(decoding: out, as: UTF8.self)
    }

    func testSameBytesAsTheReferenceWriter() {
        let pieces = ["a", "Z", "bcdefghij", "\"", "\\", "\n", "\u{1}", "\u{7F}", "é", "中", "😀", "\t", "/", "ab", ""]
        let ints: [Int64] = [0, 1, -1, 9, 10, -10, 1234567890, .max, .min, .max - 1, .min + 1]
        var rng = SplitMix64(seed: 7)
        func text() -> String {
            (0..<Int.random(in: 0..<6, using: &rng)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined()
        }
        func value(_ depth: Int) -> Value {
            switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &rng) {
            case 0: return .int(ints[Int.random(in: 0..<ints.count, using: &rng)])
            case 1: return .string(text())
            case 2: return .double(Double(Int.random(in: -1000...1000, using: &rng)) / 8)
            case 3: return [.null, .bool(true), .bool(false)][Int.random(in: 0..<3, using: &rng)]
            case 4: return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in value(depth + 1) })
            default:
                var o: [String: Value] = [:]
                for _ in 0..<Int.random(in: 0..<8, using: &rng) { o[text()] = value(depth + 1) }
                return .object(o)
            }
        }
        for _ in 0..<3000 {
            let v = value(0)
            XCTAssertEqual(JSONWriter.string(v), reference(v))
        }
    }

    /// Long strings go through the word-at-a-time escaper, which stores
    /// whole words into a scratch buffer and finds each escaped byte from
    /// its mask: every escaped byte at every offset of a word, runs of
    /// them, and lengths around the word size must give the reference's
    /// bytes.
    func testLongStringsEscapeAsTheReferenceDoes() {
        let specials: [String] = ["\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é", "中", "😀", "'", "("]
        for length in [31, 32, 33, 40, 63, 64, 65, 200] {
            for offset in 0..<length {
                for special in specials {
                    var chars = Array(repeating: "x", count: length)
                    chars[offset] = special
                    let s = chars.joined()
                    XCTAssertEqual(JSONWriter.string(.string(s)), referenceString(s), "length \(length), offset \(offset)")
                }
            }
        }
        var rng = SplitMix64(seed: 11)
        let pieces = ["a", "bcdefgh", "t0.", "\"doc\"", "'$.\"k\"'", "\\", "\n", "\u{1}", "\u{7F}", "中文", "😀", " "]
        for _ in 0..<2000 {
            let s = (0..<Int.random(in: 0..<300, using: &rng)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined()
            XCTAssertEqual(JSONWriter.string(.string(s)), referenceString(s))
        }
    }

    /// `translate --lines --to sql` writes each translation with
    /// ``SQLTranslation/write(to:)``: the same bytes as its `json` written.
    func testSQLTranslationWritesItsJSON() throws {
        let queries = [
            "select * from GameScore where score > 80 and name = 'a\"b' limit 5",
            "select count(*), name, include player from GameScore where tags = '中' order by -score",
            "select * from T where a.b.c in (1, 2.5, null) and x like 'de%' or y regexp '^(a|b)'",
        ]
        for text in queries {
            let q = try Binder.bind(try CQLParser.parse(text), parameters: [])
            for dialect in SQLDialectName.allCases {
                let t = try SQLGenerator.pushdown(q, dialect: dialect)
                var out: [UInt8] = []
                t.write(to: &out)
                XCTAssertEqual(String(decoding: out, as: UTF8.self), JSONWriter.string(t.json), "\(dialect): \(text)")
            }
        }
    }

    func testKeysInByteOrderAndIntegerEdges() {
        let o: Value = .object(["é": 1, "a": 2, "Z": 3, "ab": 4, "": 5, "\u{7F}": .int(.min), "b": .int(.max)])
        XCTAssertEqual(JSONWriter.string(o),
                       #"{"":5,"Z":3,"a":2,"ab":4,"b":9223372036854775807,"\u007f":-9223372036854775808,"é":1}"#)
    }
}
