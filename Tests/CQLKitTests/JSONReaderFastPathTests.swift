import CorpusSupport
import XCTest

@testable import CQLKit

/// The JSON reader's fast paths: strings scanned eight bytes at a time
/// (``JSONStringScan``) and objects built from a member stack
/// (``JSONMemberStack``). Special bytes are put at every offset around the
/// 8-byte word boundaries, and results are checked against a byte-by-byte
/// reference.
final class JSONReaderFastPathTests: XCTestCase {
    /// The reference: first index at or after `start` of a special byte.
    private func referenceEnd(_ bytes: [UInt8], _ start: Int, nonASCIIIsPlain: Bool, delIsPlain: Bool) -> Int {
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 || b == 0x5C || b < 0x20 || (b >= 0x80 && !nonASCIIIsPlain) || (b == 0x7F && !delIsPlain) { break }
            i += 1
        }
        return i
    }

    func testPlainRunEndFindsEverySpecialByteAtEveryOffset() {
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x0A, 0x1F, 0x80, 0xC3, 0xFF, 0x7F]
        // Bytes next to the special ones: must stay plain (no false positives
        // from borrows in the word tests).
        let plains: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x41, 0x01 + 0x20]
        for length in 0..<20 {
            for offset in 0..<max(length, 1) {
                for special in specials {
                    for plain in plains {
                        var bytes = [UInt8](repeating: plain, count: length)
                        if offset < length { bytes[offset] = special }
                        for start in [0, 1, 3] where start <= length {
                            for nonASCII in [false, true] {
                                for del in [false, true] {
                                    let got = bytes.withUnsafeBufferPointer {
                                        JSONStringScan.plainRunEnd($0, from: start, nonASCIIIsPlain: nonASCII, delIsPlain: del)
                                    }
                                    let want = referenceEnd(bytes, start, nonASCIIIsPlain: nonASCII, delIsPlain: del)
                                    if got != want {
                                        XCTFail("bytes \(bytes) from \(start) nonASCII \(nonASCII) del \(del): \(got), expected \(want)")
                                        return
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The line scan's UTF-8 check (`utf8RunEnd`, between ASCII runs as the
    /// scan calls it) must accept exactly what `String(validating:)` — the
    /// reader — accepts: every lead byte with second bytes at the edges of
    /// Unicode's ranges and the bytes after them, at offsets that put the
    /// sequence at every place of a word and at the end of the text.
    func testUTF8RunsAreValidatedAsTheReaderValidates() {
        let seconds: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        let laters: [UInt8] = [0x41, 0x80, 0xBF, 0xC0]
        var checked = 0
        for lead in UInt8(0x80)...0xFF {
            for b1 in seconds {
                for b2 in laters {
                    for b3 in laters {
                        for prefix in [0, 3, 5] {
                            for suffix in [[], Array("abcdefgh".utf8), [0xE4, 0xB8, 0xAD, 0x41]] {
                                let bytes = Array(repeating: UInt8(ascii: "x"), count: prefix) + [lead, b1, b2, b3] + suffix
                                let valid = String(validating: bytes, as: UTF8.self) != nil
                                XCTAssertEqual(scanAccepts(bytes), valid, "\(bytes)")
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, 128 * 11 * 16 * 9)
    }

    /// What the line scan's string loop does with a string body: ASCII
    /// skipped, each non-ASCII run validated.
    private func scanAccepts(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var j = 0
            while j < b.count {
                if b[j] < 0x80 {
                    j += 1
                    continue
                }
                guard let end = JSONStringScan.utf8RunEnd(b.baseAddress!, from: j, end: b.count) else { return false }
                XCTAssertGreaterThan(end, j)
                j = end
            }
            return true
        }
    }

    func testStringsRoundTripWithEscapesAndUnicodeAnywhere() throws {
        let pieces = ["a", "bcdefgh", "\"", "\\", "\n", "\u{1}", "é", "中文", "😀", "/", "\u{7F}", " "]
        var rng = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            var s = ""
            for _ in 0..<Int.random(in: 0..<12, using: &rng) { s += pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
            let text = JSONWriter.string(.array([.string(s), .object([s: .string(s), "k": .int(1)])]))
            XCTAssertEqual(try JSONReader.parse(text), .array([.string(s), .object([s: .string(s), "k": .int(1)])]), text)
        }
    }

    func testStringErrorsKeepTheirPositions() {
        // A control character after a plain run of every length: reported at its own byte.
        for n in 0..<20 {
            let text = "[\"" + String(repeating: "x", count: n) + "\u{1}\"]"
            XCTAssertThrowsError(try JSONReader.parse(text)) { e in
                XCTAssertEqual((e as? QueryError)?.range, SourceRange(2 + n, 3 + n), text)
                XCTAssertEqual((e as? QueryError)?.message, "invalid JSON: unescaped control character in string")
            }
        }
        // Invalid UTF-8 after ASCII and after valid non-ASCII: reported at the opening quote.
        for prefix: [UInt8] in [[], Array("abcdefghij".utf8), Array("é".utf8) + Array("abcdefgh".utf8)] {
            let bytes: [UInt8] = [0x5B, 0x22] + prefix + [0xFF, 0x22, 0x5D]
            XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try JSONReader.parse(bytes: $0) }) { e in
                XCTAssertEqual((e as? QueryError)?.range, SourceRange(1, 2))
                XCTAssertEqual((e as? QueryError)?.message, "invalid JSON: string is not valid UTF-8")
            }
        }
        XCTAssertThrowsError(try JSONReader.parse(#"["abcdefghijklmnop"#)) { e in
            XCTAssertEqual((e as? QueryError)?.message, "invalid JSON: unterminated string")
        }
    }

    func testObjectsFromTheMemberStack() throws {
        // Repeated keys keep the last value; nesting; more members than the stack's first capacity.
        XCTAssertEqual(try JSONReader.parse(#"{"a":1,"b":{"a":2,"a":3},"a":4}"#),
                       .object(["a": 4, "b": .object(["a": 3])]))
        let many = (0..<100).map { "\"k\($0)\":{\"x\":[\($0)]}" }.joined(separator: ",")
        guard case .object(let o) = try JSONReader.parse("{" + many + "}") else { return XCTFail("not an object") }
        XCTAssertEqual(o.count, 100)
        XCTAssertEqual(o["k57"], .object(["x": [57]]))
        // An error deep inside leaves members on the stack: they are freed, and the error is reported.
        XCTAssertThrowsError(try JSONReader.parse(#"{"a":"x","b":{"c":"long string value here","d":[1,}}"#))
    }

    func testTypedValuesAreDecodedOnlyForTheTypeKey() throws {
        let line = Array(#"{"at":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"},"t":{"__typ":"Date"},"u":{"__type":1}}"#.utf8)
        let v = try line.withUnsafeBufferPointer { try JSONReader.parse(bytes: $0, decodingTypedValues: true) }
        XCTAssertEqual(v["at"], .date(DateValue(millisecondsSince1970: 1_434_909_772_249)))
        XCTAssertEqual(v["t"], .object(["__typ": "Date"]))
        XCTAssertEqual(v["u"], .object(["__type": 1]))
    }
}
