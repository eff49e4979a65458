import CorpusSupport
import Foundation
import XCTest

@testable import CQLKit

/// The byte-level rewrite of an NDJSON line must equal reading the line
/// (typed values decoded) and writing it with JSONWriter, whenever it does
/// not refuse; and it must not refuse plain lines, or it saves nothing.
final class JSONCanonicalCopyTests: XCTestCase {
    private func check(_ line: String, copies: Bool? = nil, file: StaticString = #filePath, lineNumber: UInt = #line) {
        var bytes = Array(line.utf8)
        bytes.withUnsafeBufferPointer { buf in
            var out: [UInt8] = [0x41]
            let copied = JSONCanonicalCopy.write(buf, to: &out)
            if let copies { XCTAssertEqual(copied, copies, line, file: file, line: lineNumber) }
            guard let value = try? JSONReader.parse(bytes: buf, decodingTypedValues: true) else {
                XCTAssertFalse(copied, "copied a line the reader rejects: \(line)", file: file, line: lineNumber)
                return
            }
            if copied {
                XCTAssertEqual("A" + JSONWriter.string(value), String(decoding: out, as: UTF8.self), line, file: file, line: lineNumber)
            } else {
                XCTAssertEqual(out, [0x41], "a refusal left bytes behind", file: file, line: lineNumber)
            }
        }
        bytes.removeAll()
    }

    func testPlainLinesAreRewrittenInKeyOrder() {
        check(#"{"objectId":"o1","name":"frank","score":970,"cheatMode":true,"tags":[],"player":{"rank":6,"country":"br"}}"#, copies: true)
        check(#" { "b" : [ 1 , true , null , "x\ty\"\\" ] , "a" : { } , "ab":-12 } "#, copies: true)
        check(#"{"a":"hé ✓","B":"\n\r\b\f"}"#, copies: true)
        check(#"{"d":{"y":1,"x":[{"q":2,"p":1},{}]},"a":[[],[[]]]}"#, copies: true)
        check("{}", copies: true)
        check(#"{"title":"北京 旅行 日记","tags":["美食","😀 astral 𝄞"],"meta":{"source":"小程序","lang":"zh-CN"},"s":"Ω \"中\" \\ \n"}"#, copies: true)
    }

    func testRefusesWhatItCannotCopyExactly() {
        check(#"{"a":1.5}"#, copies: false)
        check(#"{"a":1e3}"#, copies: false)
        check(#"{"a":-0}"#, copies: false)
        check(#"{"a":1234567890123456789}"#, copies: false)
        check(#"{"a":"\u00e9"}"#, copies: false)
        check(#"{"a":"\/"}"#, copies: false)
        check("{\"a\":\"\u{7F}\"}", copies: false)
        check(#"{"é":1}"#, copies: false)
        check(#"{"a":1,"a":2}"#, copies: false)
        check(#"{"d":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"}}"#, copies: false)
        check(#"{"a":"\u4e2d"}"#, copies: false)
        check(#"{"a":[1,]}"#, copies: false)
        check(#"{"a":1} x"#, copies: false)
        check(String(repeating: "[", count: 100) + String(repeating: "]", count: 100), copies: false)
    }

    /// A typed value the caller proved to be the writer's text up to
    /// whitespace (`.proved`, as the line scan does) is copied without the
    /// whitespace and in its own key order; by default it is refused.
    func testProvedTypedValuesAreCopiedWithoutTheirSpaces() {
        let line = #"{"z": 1, "d": { "__type" : "Date",\#t"iso": "2024-03-05T08:09:10.123Z" }, "g": [{"__type": "GeoPoint", "latitude": 39.9, "longitude": 116.4}], "s": "a \"b\": c"}"#
        let expected = #"{"d":{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"},"g":[{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}],"s":"a \"b\": c","z":1}"#
        Array(line.utf8).withUnsafeBufferPointer { buf in
            var out: [UInt8] = []
            XCTAssertTrue(JSONCanonicalCopy.write(buf, to: &out, typedValues: .proved))
            XCTAssertEqual(String(decoding: out, as: UTF8.self), expected)
            out = [0x41]
            XCTAssertFalse(JSONCanonicalCopy.write(buf, to: &out))
            XCTAssertEqual(out, [0x41])
        }
    }

    func testCorpusDataAndRandomValues() throws {
        let lines = try Corpus.dataLines()
        for line in lines { check(line) }
        XCTAssertGreaterThan(lines.count, 20)
        var rng = SplitMix64(seed: 12)
        for _ in 0..<500 {
            var members: [String] = []
            for k in 0..<rng.below(6) {
                let value: String
                switch rng.below(4) {
                case 0: value = String(rng.pick(RandomPools.ints))
                case 1: value = JSONWriter.string(.double(rng.pick(RandomPools.doubles)))
                case 2: value = JSONWriter.string(.string(rng.pick(RandomPools.strings)))
                default: value = "[" + String(rng.pick(RandomPools.ints)) + "," + JSONWriter.string(.string(rng.pick(RandomPools.strings))) + "]"
                }
                members.append("\"k\(5 - k)\":" + value)
            }
            check("{" + members.joined(separator: ",") + "}")
        }
    }
}
