import CorpusSupport
import XCTest

@testable import CQLKit

/// The fast paths of the where-JSON writer and the optimizer's feature walk
/// against the general code they stand in for, over random inputs built
/// from the bytes that matter (quotes, backslashes, controls, DEL, PCRE
/// metacharacters, LIKE wildcards and classes, commas, spaces, non-ASCII,
/// strings longer than a machine word) and over edge values.
final class DirectWriteFastPathTests: XCTestCase {
    /// Pieces random strings are made of.
    private static let pieces: [String] = [
        "a", "Z", "9", "_", "-", "%", "[", "]", "^", "$", ".", "|", "?", "*", "+", "(", ")", "{", "}", "\\", "\"",
        ",", " ", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "日本", "😀",
        "objectId", "createdAt", "updatedAt", "abcdefghij",
    ]

    private func randomString(_ rng: inout SplitMix64) -> String {
        let n = Int(rng.next() % 12)
        var s = ""
        for _ in 0..<n { s += Self.pieces[Int(rng.next() % UInt64(Self.pieces.count))] }
        return s
    }

    /// What the sink wrote, through a caller's array as the writer hands it over.
    private func written(_ body: (inout JSONByteSink) -> Void, capacity: Int = 16) -> [UInt8] {
        var sink = JSONByteSink(capacity: capacity)
        body(&sink)
        var out: [UInt8] = []
        sink.copy(to: &out)
        return out
    }

    func testStringsAreEscapedAsJSONWriterEscapesThem() {
        var rng = SplitMix64(seed: 21)
        for _ in 0..<4000 {
            let s = randomString(&rng)
            var expected: [UInt8] = []
            JSONWriter.writeString(s, &expected)
            XCTAssertEqual(written { $0.appendString(s) }, expected, s.debugDescription)
            // On the stack, overflowing into the heap mid-request.
            let onStack = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { stack -> [UInt8] in
                var sink = JSONByteSink(stack: stack)
                sink.append("0123456789")
                sink.appendString(s)
                var out: [UInt8] = []
                sink.copy(to: &out)
                return out
            }
            XCTAssertEqual(onStack, Array("0123456789".utf8) + expected, s.debugDescription)
        }
    }

    /// Keys and operands kept as bytes in the scratch sink and written
    /// later (``JSONByteSink/appendRaw(_:)``, ``JSONByteSink/appendKey(_:)``
    /// and the copies) give the bytes `appendString` gives for the String,
    /// at every length around the word-copy boundaries and across growth.
    func testScratchBytesAreWrittenAsTheirStrings() {
        var rng = SplitMix64(seed: 26)
        var samples = ["", "a", "abc", "abcd", "abcdefg", "abcdefgh", "abcdefghijklmnop", "abcdefghijklmnopq", "objectId", "objectIdx", "$a", "a.b"]
        for _ in 0..<4000 { samples.append(randomString(&rng)) }
        for s in samples {
            var expected: [UInt8] = []
            JSONWriter.writeString(s, &expected)
            var sink = JSONByteSink(capacity: 16)
            sink.append("0123456789")
            let raw = sink.appendRaw(s)
            XCTAssertEqual(Array(sink.string(raw).utf8), Array(s.utf8), s.debugDescription)
            let start = sink.count
            sink.appendString(copyOf: raw)
            let copied = sink.count
            sink.append(copyOf: raw)
            var out: [UInt8] = []
            sink.copy(start..<copied, to: &out)
            XCTAssertEqual(out, expected, s.debugDescription)
            out = []
            sink.copy(copied..<sink.count, to: &out)
            XCTAssertEqual(out, Array(s.utf8), s.debugDescription)

            // appendKey against its definition.
            let b = Array(s.utf8)
            let plain = !b.isEmpty && b[0] != UInt8(ascii: "$") && !b.contains { $0 >= 0x80 || $0 == UInt8(ascii: ".") }
            let unescaped = !b.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }
            var keys = JSONByteSink(capacity: 16)
            keys.append("xyz")
            let form = keys.appendKey(s)
            XCTAssertEqual(form.contains(.plain), plain, s.debugDescription)
            XCTAssertEqual(ConditionEmitter.plainASCIIIsObjectId(s) != nil, plain, s.debugDescription)
            guard plain else {
                XCTAssertTrue(form.isEmpty, s.debugDescription)
                XCTAssertEqual(keys.count, 3, s.debugDescription)
                continue
            }
            XCTAssertEqual(form.contains(.unescaped), unescaped, s.debugDescription)
            XCTAssertEqual(form.contains(.objectId), s == "objectId", s.debugDescription)
            XCTAssertEqual(keys.string(3..<keys.count), s, s.debugDescription)
            if unescaped {
                let at = keys.count
                keys.appendQuoted(copyOf: 3..<at)
                out = []
                keys.copy(at..<keys.count, to: &out)
                XCTAssertEqual(out, expected, s.debugDescription)
            }
        }
    }

    func testLikeRegexIsTheJSONOfLikePatternRegex() {
        var rng = SplitMix64(seed: 22)
        var direct = 0
        for _ in 0..<4000 {
            let like = randomString(&rng)
            var expected: [UInt8] = []
            JSONWriter.writeString(LikePattern.regex(like), &expected)
            var sink = JSONByteSink(capacity: 16)
            if sink.appendLikeRegex(like) {
                direct += 1
                var out: [UInt8] = []
                sink.copy(to: &out)
                XCTAssertEqual(String(decoding: out, as: UTF8.self), String(decoding: expected, as: UTF8.self), like.debugDescription)
            } else {
                XCTAssertEqual(sink.count, 0, "declined after writing: \(like.debugDescription)")
                XCTAssertTrue(like.utf8.contains(UInt8(ascii: "[")), "declined without a class: \(like.debugDescription)")
            }
        }
        XCTAssertGreaterThan(direct, 1000)
    }

    func testIntegersAndScalarsAreWrittenAsJSONWriterWritesThem() {
        var values: [Int64] = [0, 1, 9, 10, 99, 100, 999, 1000, -1, -9, -10, -1000, .max, .min, .max - 1, .min + 1]
        var rng = SplitMix64(seed: 23)
        for _ in 0..<2000 { values.append(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64)) }
        for i in values {
            var expected: [UInt8] = []
            JSONWriter.appendInteger(i, &expected)
            XCTAssertEqual(written { $0.appendInteger(i) }, expected, "\(i)")
        }
        let scalars: [Value] = [.null, .bool(true), .bool(false), .int(-5), .double(2.5), .string("a\"b"), .array([.int(1), .string("x")]),
                                .object(["b": .int(1), "a": .null]), .date(DateValue(millisecondsSince1970: 0))]
        for v in scalars { XCTAssertEqual(written { $0.appendValue(v) }, Array(JSONWriter.string(v).utf8), "\(v)") }
    }

    /// A list key written by the one-pass check is one `listItem` accepts
    /// and escapes to the same bytes; the others are left to `listItem`.
    func testPlainListItemsAreOnesListItemAccepts() {
        var rng = SplitMix64(seed: 24)
        let table = WhereJSONDialect.parse.table
        for _ in 0..<4000 {
            let key = randomString(&rng)
            for marks in ["", "-", "-+"] as [StaticString] {
                var sink = JSONByteSink(capacity: 16)
                guard sink.appendPlainListItem(key, marks: marks) else {
                    XCTAssertEqual(sink.count, 0)
                    continue
                }
                XCTAssertNoThrow(try WhereJSONEmitter.listItem(key, "keys", marks: marks.description, table, nil), key.debugDescription)
                var out: [UInt8] = []
                sink.copy(to: &out)
                var expected: [UInt8] = []
                JSONWriter.writeStringBody(key, &expected)
                XCTAssertEqual(out, expected, key.debugDescription)
            }
        }
    }

    /// The one-pass list key (a plain one-component key) is taken exactly
    /// when the emitter keeps the key as it is (not `objectId`) and the
    /// general list check takes it, with the same bytes.
    func testPlainListKeysAreOnesTheGeneralPathWritesAlike() {
        var rng = SplitMix64(seed: 27)
        var keys = ["objectId", "a", "a b", " a", "a ", "-a", "+a", "a,b", "a.b", "$a", "", "é", "a\"b", "abcdefghijklmnopqrstuvwxyz"]
        for _ in 0..<4000 { keys.append(randomString(&rng)) }
        for key in keys {
            for marks in ["", "-", "-+"] as [StaticString] {
                var fast = JSONByteSink(capacity: 16)
                fast.append("x")
                let taken = fast.appendPlainListKey(key, marks: marks)
                var general = JSONByteSink(capacity: 16)
                general.append("x")
                let expected = ConditionEmitter.plainASCIIIsObjectId(key) == false && general.appendPlainListItem(key, marks: marks)
                XCTAssertEqual(taken, expected, "\(key.debugDescription) \(marks)")
                var a: [UInt8] = [], b: [UInt8] = []
                fast.copy(to: &a)
                if taken { general.copy(to: &b) } else { b = Array("x".utf8) }
                XCTAssertEqual(a, b, "\(key.debugDescription) \(marks)")
            }
        }
    }

    func testObjectIdAndArrayFreeKeysByTheirBytes() {
        var rng = SplitMix64(seed: 25)
        var keys = ["objectId", "objectid", "objectIdx", "createdAt", "updatedAt", "createdAT", "updatedAs", "priority", "cheatMode", "$a", ".a", "a.b", ""]
        for _ in 0..<3000 { keys.append(randomString(&rng)) }
        for k in keys {
            // plainASCIIIsObjectId against its definition.
            let b = Array(k.utf8)
            let plain = !b.isEmpty && b[0] != UInt8(ascii: "$") && !b.contains { $0 >= 0x80 || $0 == UInt8(ascii: ".") }
            XCTAssertEqual(ConditionEmitter.plainASCIIIsObjectId(k), plain ? (b == Array("objectId".utf8)) : nil, k.debugDescription)
            XCTAssertEqual(PathKey.isArrayFree(FieldPath([k])), PathKey(FieldPath([k])).isArrayFree, k.debugDescription)
            XCTAssertEqual(LikePattern.isPlainPrefix(k), k.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c >= 0x80
            }, k.debugDescription)
        }
    }

    /// ExactTerm's shortcut for integers, booleans and null against the
    /// printed comparison it skips.
    func testExactTermShortcutAgreesWithPrintedForm() {
        let terms: [Term] = [.value(.int(1)), .value(.int(-1)), .value(.int(0)), .value(.bool(true)), .value(.bool(false)), .value(.null),
                             .value(.double(1)), .value(.double(-0.0)), .value(.double(0)), .value(.string("1")), .value(.string("e\u{301}")),
                             .value(.string("\u{e9}")), .array([.value(.int(1))]), .placeholder(index: 0, range: nil)]
        for a in terms {
            for b in terms {
                let printed = a == b && ASTPrinter.term(a).utf8.elementsEqual(ASTPrinter.term(b).utf8)
                XCTAssertEqual(ExactTerm(a) == ExactTerm(b), printed, "\(a) vs \(b)")
            }
        }
    }
}
