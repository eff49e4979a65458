import CorpusSupport
import Foundation
import XCTest

@testable import CQLKit

/// The structural scan must never accept a line the reader rejects; on a
/// line it accepts, the kept members it builds must equal the reader's
/// (`keepingOnly`), and a sorted write must equal reading the line and
/// writing it with JSONWriter. Lines: the corpus data, random text with
/// hostile parts (escapes, surrogates, deep nesting, duplicate keys,
/// non-ASCII, numbers at the edges of Int64 and Double, whitespace), and
/// those lines cut and with a byte changed.
final class JSONLineScanTests: XCTestCase {
    private let scan = JSONLineScan()
    private let parser = JSONLineParser(decodingTypedValues: true)
    private let filters: [JSONKeyFilter] = [
        JSONKeyFilter(["a"]), JSONKeyFilter(["a", "b", "score"]), JSONKeyFilter(["name", "objectId", "k", ""]),
        JSONKeyFilter(["K", "a b", "tags"]),
        // The typed-value tests' keys: a Date or a Pointer is built from its bytes.
        JSONKeyFilter(["v", "d", "p", "g"]),
    ]
    private var accepted = 0
    private var written = 0

    /// Checks one line; returns whether the scan accepted it.
    @discardableResult
    private func check(_ line: [UInt8], file: StaticString = #filePath, lineNumber: UInt = #line) -> Bool {
        line.withUnsafeBufferPointer { buf in
            let text = String(decoding: buf, as: UTF8.self)
            let scanned = scan.scan(buf)
            guard scanned else { return false }
            accepted += 1
            guard case .object? = try? JSONReader.parse(bytes: buf, decodingTypedValues: true) else {
                XCTFail("scanned a line the reader rejects or that is no object: \(text)", file: file, line: lineNumber)
                return true
            }
            for filter in filters {
                let expected = try? JSONReader.parse(bytes: buf, decodingTypedValues: true, keepingOnly: filter)
                let kept = scan.object(keepingOnly: filter, parser: parser)
                XCTAssertEqual(kept.map(Value.object), expected, "\(filter.keys.sorted()): \(text)", file: file, line: lineNumber)
            }
            var out: [UInt8] = [0x41]
            if scan.writeSorted(to: &out) {
                written += 1
                let whole = (try? JSONReader.parse(bytes: buf, decodingTypedValues: true)) ?? .null
                XCTAssertEqual(String(decoding: out, as: UTF8.self), "A" + JSONWriter.string(whole), text, file: file, line: lineNumber)
            } else {
                XCTAssertEqual(out, [0x41], "a refusal left bytes behind: \(text)", file: file, line: lineNumber)
            }
            return true
        }
    }

    private func check(_ line: String, scans: Bool? = nil, writes: Bool? = nil, file: StaticString = #filePath, lineNumber: UInt = #line) {
        let before = written
        let scanned = check(Array(line.utf8), file: file, lineNumber: lineNumber)
        if let scans { XCTAssertEqual(scanned, scans, "scanned: \(line)", file: file, line: lineNumber) }
        if let writes { XCTAssertEqual(written > before, writes, "written: \(line)", file: file, line: lineNumber) }
    }

    func testPlainLinesAreScannedAndWrittenSorted() {
        check(#"{"objectId":"o1","name":"frank","score":970,"cheatMode":true,"level":0,"tags":[],"player":{"country":"br","rank":6}}"#,
              scans: true, writes: true)
        check(#"{"b":[1,true,null,"x\ty\"\\"],"a":{},"ab":-12,"c":1.5}"#, scans: true, writes: false)
        // A member with spaces or a nested object out of key order is re-copied alone.
        check(#" { "b" : [ 1 , 2 ] , "a" : 3 } "#, scans: true, writes: true)
        check(#" { "b" : 1 , "a" : "x" } "#, scans: true, writes: true)
        check(#"{"a":1,"a":2,"b":"\u00e9\/"}"#, scans: true, writes: false)
        check(#"{"d":{"y":1,"x":2}}"#, scans: true, writes: true)
        check(#"{"z":"中","d":{"y":{"b":[{"d":1,"c":2}],"a":"文"},"x":2},"a":1}"#, scans: true, writes: true)
        check(#"{"d":{"y":1.5,"x":2}}"#, scans: true, writes: false)
        // A typed value in it is copied as the scan proved it (the writer's, spaces aside).
        check(#"{"d":{"y":{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"},"x":2}}"#, scans: true, writes: true)
        check(#"{"d":{"y":{"__type":"GeoPoint","latitude":40,"longitude":116},"x":2}}"#, scans: true, writes: false)
        check(#"{"d":{"y":"a\/b","x":2}}"#, scans: true, writes: false)
        check(#"{"d":{"x":1,"x":2}}"#, scans: true, writes: false)
        check("{\"a\":\"\u{7F}\"}", scans: true, writes: false)
        check(#"{"a":-0,"b":123456789012345678,"c":-123456789012345678}"#, scans: true, writes: false)
        check("{}", scans: true, writes: true)
    }

    func testLeavesTheRestToTheReader() {
        for line in [
            #"[1]"#, #""x""#, #"{"a":1e3}"#, #"{"a":1234567890123456789}"#, #"{"é":1}"#, #"{"a\"":1}"#,
            #"{"a":"\ud83d\ude00"}"#, #"{"a":"\ud800"}"#, #"{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"}"#,
            #"{"a":[1,]}"#, #"{"a":1} x"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#,
            "{\"a\":\"\t\"}", #"{"a":1"#, #"{"a" 1}"#, #"{a:1}"#, "",
            "{\"a\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        ] {
            check(line, scans: false)
        }
    }

    func testUTF8TextIsScannedAndWrittenAsItIs() {
        check(#"{"title":"中文标题","tags":["旅行","美食"],"note":"mixed 混合 text ✓ ok","a":"é"}"#, scans: true, writes: true)
        check(#"{"e":"😀🚀 astral 𝄞","z":"Ω≈ç√∫","k":"\u4e2d文"}"#, scans: true, writes: false)
        check(#"{"s":"长长长长长长长长长长长长长长长长 with \"quotes\" and \\ 和 \n newline"}"#, scans: true, writes: true)
        check("{\"a\":\"中\u{7F}文\"}", scans: true, writes: false)
        // Every length of a sequence at every offset of a word, and at the end of the line.
        for prefix in 0..<9 {
            for text in ["é", "中", "😀", "é中😀", "\u{10FFFF}", "\u{800}", "\u{FFFF}", "\u{80}"] {
                check("{\"a\":\"" + String(repeating: "x", count: prefix) + text + "\"}", scans: true, writes: true)
                check("{\"a\":\"" + String(repeating: "x", count: prefix) + text + "y\",\"b\":1}", scans: true, writes: true)
            }
        }
    }

    func testInvalidUTF8IsTheReaders() {
        let bad: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],  // overlong
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],  // surrogates
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],  // beyond U+10FFFF
            [0xE4, 0xB8], [0xF0, 0x9F, 0x98], [0xC3], [0x80], [0xBF, 0x80], [0xE4, 0x41, 0x80], [0xC3, 0xC3, 0xA9],  // cut, stray
        ]
        for sequence in bad {
            for prefix in 0..<9 {
                for suffix in [[], Array("中".utf8), Array("abcdefgh".utf8)] {
                    let text = Array(repeating: UInt8(ascii: "x"), count: prefix) + sequence + suffix
                    let line = Array(#"{"a":""#.utf8) + text + Array(#"","b":1}"#.utf8)
                    XCTAssertFalse(check(line), "\(sequence) after \(prefix)")
                    XCTAssertNil(line.withUnsafeBufferPointer { try? JSONReader.parse(bytes: $0, decodingTypedValues: true) })
                    // Cut inside the string: no closing quote either way.
                    XCTAssertFalse(check(Array(#"{"a":""#.utf8) + text))
                }
            }
            // After Chinese text, which is checked two characters at a time.
            for prefix in ["中", "中文", "中文字", "x中文", "xx中文字"] {
                for suffix in [[], Array("中文".utf8), Array("abcdefgh".utf8)] {
                    let line = Array(#"{"a":""#.utf8) + Array(prefix.utf8) + sequence + suffix + Array(#"","b":1}"#.utf8)
                    XCTAssertFalse(check(line), "\(sequence) after \(prefix)")
                }
            }
        }
        // Well-formed three-byte sequences at the edges of the pairs' test.
        for text in ["\u{800}\u{800}", "\u{FFFF}\u{E000}", "\u{D7FF}\u{1000}", "中\u{D7FF}文", "\u{E000}中文字", "中文字符串的测试"] {
            XCTAssertTrue(check(Array(#"{"a":""#.utf8) + Array(text.utf8) + Array(#""}"#.utf8)), text)
        }
    }

    func testTypedValuesAreScannedAndCheckedWhenWritten() {
        let date = #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"}"#
        let pointer = #"{"__type":"Pointer","className":"_User","objectId":"5f1a2b"}"#
        let geo = #"{"__type":"GeoPoint","latitude":39.9042,"longitude":116.4074}"#
        check(#"{"d":\#(date),"p":\#(pointer),"g":\#(geo),"t":"中文"}"#, scans: true, writes: true)
        check(#"{"list":[\#(date),{"inner":\#(pointer)}],"meta":{"at":\#(geo)}}"#, scans: true, writes: true)
        // A LeanCloud export's line: typed values, Chinese text, a nested object out of key order.
        check(#"{"title":"北京 旅行 3 日记","dueDate":\#(date),"author":\#(pointer),"location":\#(geo),"meta":{"source":"ios","version":3,"device":{"os":"13.1","lang":"zh-CN"}},"ACL":{"*":{"read":true}}}"#,
              scans: true, writes: true)
        // Decodes, but the writer spells it otherwise.
        for typed in [
            #"{"iso":"2024-03-05T08:09:10.123Z","__type":"Date"}"#, #"{"__type":"Date","iso":"2024-03-05T16:09:10.123+08:00"}"#,
            #"{"__type":"Date","iso":"2024-03-05"}"#, #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z","x":1}"#,
            #"{"__type":"Date","iso":"2016-12-31T23:59:60.000Z"}"#,
            #"{"__type":"GeoPoint","latitude":40,"longitude":116}"#,
            #"{"__type":"Pointer","className":"A","objectId":"x\/y"}"#,
            #"{"__type":"Date","iso":"2024-03-05T08:09:10.123\u005a"}"#, #"{"__type":"Date","iso":"1999-01-01T00:00:00.000Z","iso":"2024-03-05T08:09:10.123Z"}"#,
            #"{"className":"B","__type":"Pointer","objectId":"q","className":"A"}"#,
            "{\"__type\":\"Pointer\",\"className\":\"A\",\"objectId\":\"a\u{7F}\"}", #"{"__type":"GeoPoint","latitude":39.90420,"longitude":116.4074}"#, #"{"__type":"Pointer","className":"A","objectId":"1","objectId":"2"}"#,
        ] {
            check(#"{"v":\#(typed)}"#, scans: true, writes: false)
        }
        // Decodes and is written as it is.
        for typed in [
            #"{"__type":"File","id":"f1","name":"图片.png","url":"http://x/y.png"}"#, #"{"__type":"Bytes","base64":"AAEC"}"#,
            #"{"__type":"Relation","className":"Post"}"#, #"{"__type":"Polygon","coordinates":[[1,2]]}"#,
            #"{"__type":"Object","className":"Post","objectId":"p1","when":{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"}}"#,
            #"{"__type":"Date" ,"iso":"2024-03-05T08:09:10.123Z"}"#, #"{ "__type" : "Pointer" , "className":"A","objectId":"x" }"#,
            #"{"__type":"GeoPoint","latitude":-89.5,"longitude":-179.25}"#, #"{"__type":"GeoPoint","latitude":-90.0,"longitude":180.0}"#, #"{"__type":"Pointer","className":"帖子","objectId":"中"}"#,
        ] {
            check(#"{"v":\#(typed)}"#, scans: true, writes: true)
        }
        // Malformed: the reader's error.
        for typed in [
            #"{"__type":"Date"}"#, #"{"__type":"Date","iso":"2024-02-30"}"#, #"{"__type":"Date","iso":1}"#,
            #"{"__type":"Pointer","className":"A"}"#, #"{"__type":"GeoPoint","latitude":91,"longitude":0}"#,
            #"{"__type":"GeoPoint","latitude":90.5,"longitude":0}"#, #"{"__type":"GeoPoint","latitude":"1","longitude":0}"#,
            #"{"__type":"File","url":"u"}"#, #"{"__type":"Bytes"}"#, #"{"__type":"Relation"}"#, #"{"__type":"Object"}"#,
            #"{"__type":"Da\u0074e","iso":"x"}"#, #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z","__type":"Pointer"}"#,
        ] {
            check(#"{"v":\#(typed)}"#, scans: false)
            check(#"{"v":[1,{"w":\#(typed)}]}"#, scans: false)
        }
        check(#"{"v":{"__type":"Da\u0074e","iso":"2024-03-05T08:09:10.123Z"}}"#, scans: true, writes: false)
        check(#"{"v":{"__type":1,"iso":"x"}}"#, scans: true, writes: true)
        check(#"{"v":{"__type":"Date","iso":"2024-03-05T08:09:10.123Z","__type":"Date"}}"#, scans: true, writes: false)
    }

    /// Typed values near the edges of the writer's spelling, which the scan
    /// decides from their layout (`writersTypedAhead`) or leaves to the long way:
    /// each must scan, build and write exactly as the reader reads it.
    func testTypedValuesAtTheEdgesOfTheWritersSpelling() {
        for typed in [
            #"{"__type":"Date","iso":"2024-02-29T00:00:00.000Z"}"#, #"{"__type":"Date","iso":"2023-02-29T00:00:00.000Z"}"#,
            #"{"__type":"Date","iso":"2024-03-05T24:00:00.000Z"}"#, #"{"__type":"Date","iso":"2024-03-05T23:60:00.000Z"}"#,
            #"{"__type":"Date","iso":"2024-03-05T08:09:10.123z"}"#, #"{"__type":"Date","iso":"0000-01-01T00:00:00.000Z"}"#,
            #"{"__type":"Date","iso":"9999-12-31T23:59:59.999Z"}"#, #"{"__type":"Date","iso":"2024-00-05T08:09:10.123Z"}"#,
            #"{"__type":"Date","iso":"2024-03-05T08:09:10.1234Z"}"#, #"{"__type":"Date","iso":"2024-03-05T08:09:10.12Z"}"#,
            #"{"__type":"Date","iso":"2024-03-05 08:09:10.123Z"}"#, #"{"__type":"Date","iso":"2024-03-05T08:09:1O.123Z"}"#,
            #"{"__type":"Pointer","className":"A\"B","objectId":"x"}"#, #"{"__type":"Pointer","className":"","objectId":""}"#,
            #"{"__type":"Pointer","className":"A","objectId":"x","extra":1}"#, #"{"__type":"Pointer","className":"A","objectId":7}"#,
            #"{"__type":"GeoPoint","latitude":90,"longitude":-180}"#, #"{"__type":"GeoPoint","latitude":90.0,"longitude":0}"#,
            #"{"__type":"GeoPoint","latitude":-90.5,"longitude":0}"#, #"{"__type":"GeoPoint","latitude":0,"longitude":181}"#,
            #"{"__type":"GeoPoint","latitude":0,"longitude":179.99999}"#, #"{"__type":"GeoPoint","latitude":-0,"longitude":-0.0}"#,
            #"{"__type":"GeoPoint","latitude":1,"longitude":2,"x":3}"#, #"{"__type":"GeoPointy","latitude":1,"longitude":2}"#,
            #"{"__type":"Dat","iso":"2024-03-05T08:09:10.123Z"}"#, #"{"__type":"D"}"#, #"{"__type":""}"#,
            // What the one-pass read (`writersTypedAhead`) must check itself.
            #"{"__type":"GeoPoint","latitude":1e1,"longitude":2}"#, #"{"__type":"GeoPoint","latitude":01.5,"longitude":2}"#,
            #"{"__type":"GeoPoint","latitude":-,"longitude":2}"#, #"{"__type":"GeoPoint","latitude":1.,"longitude":2}"#,
            #"{"__type":"GeoPoint","latitude":1,"longitude":1234567890123456789}"#, #"{"__type":"GeoPoint","latitude":-0.5,"longitude":-180}"#,
            #"{"__type":"GeoPoint","latitude":1.5,"longitude":180.0001}"#, #"{"__type":"GeoPoint","latitude":1,"longitude":2 }"#,
            #"{"__type":"GeoPoint","latitude":1,"longitude":+2}"#, #"{"__type":"GeoPoint","latitude":.5,"longitude":2}"#,
            "{\"__type\":\"Pointer\",\"className\":\"A\u{1}\",\"objectId\":\"x\"}", #"{"__type":"Pointer","className":"A","objectId":"x\u0041"}"#,
            #"{"__type":"Pointer","className":"A","objectId":"x"} "#, #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z" }"#,
            #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"]"#, #"{"__type":"Pointer","className":"A","objectId":"x"]"#,
        ] {
            check(#"{"v":\#(typed)}"#)
            check(#"{"v":[\#(typed)],"w":{"x":\#(typed)}}"#)
            // Cut at every byte: a typed value that ends with the line.
            let line = Array(#"{"v":\#(typed)"#.utf8)
            for end in 0..<line.count { check(Array(line[..<end])) }
        }
        // Bytes that are not UTF-8 in a Pointer's strings, and a typed value
        // at the deepest nesting the scan takes and one beyond.
        for bad: [UInt8] in [[0xE4, 0xB8], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0xE4, 0xB8, 0xAD, 0x80]] {
            let pointer = Array(#"{"v":{"__type":"Pointer","className":"A"#.utf8) + bad + Array(#"","objectId":"x"}}"#.utf8)
            XCTAssertFalse(check(pointer))
            let id = Array(#"{"v":{"__type":"Pointer","className":"A","objectId":""#.utf8) + bad + Array(#""}}"#.utf8)
            XCTAssertFalse(check(id))
        }
        for depth in [29, 30, 31, 32] {
            let typed = #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"}"#
            check(String(repeating: #"{"a":"#, count: depth) + typed + String(repeating: "}", count: depth))
        }
    }

    /// The writer's date layout read by words (`writtenDate`) gives what
    /// `ISODate.parse` gives for every text in that exact layout with its
    /// fields in range, and nothing for any other 24 bytes.
    func testWrittenDatesAreReadAsTheReaderReadsThem() {
        var rng = SplitMix64(seed: 23)
        let layout = Array("dddd-dd-ddTdd:dd:dd.dddZ".utf8)
        let noise = Array("0123456789-:.TZtz /\u{7F}".utf8) + [0x80, 0xC3, 0x2F, 0x3A, 0x00]
        var read = 0
        for n in 0..<60_000 {
            var bytes = layout.map { $0 == UInt8(ascii: "d") ? UInt8(ascii: "0") + UInt8(rng.below(10)) : $0 }
            // Mostly plausible dates, some with one or two bytes changed.
            if n % 2 == 0 {
                bytes.replaceSubrange(0..<4, with: Array(String(1970 + rng.below(80)).utf8))
                bytes.replaceSubrange(5..<7, with: Array(String(format: "%02d", 1 + rng.below(12)).utf8))
                bytes.replaceSubrange(8..<10, with: Array(String(format: "%02d", 1 + rng.below(31)).utf8))
                bytes.replaceSubrange(11..<13, with: Array(String(format: "%02d", rng.below(25)).utf8))
            }
            for _ in 0..<(n % 3 == 0 ? rng.below(3) : 0) { bytes[rng.below(24)] = rng.pick(noise) }
            let got = bytes.withUnsafeBufferPointer { JSONLineScan.Cursor.writtenDate($0.baseAddress!) }
            let inLayout = zip(bytes, layout).allSatisfy { b, l in l == UInt8(ascii: "d") ? (b >= 0x30 && b <= 0x39) : b == l }
            let second = Int(bytes[17] &- 48) * 10 + Int(bytes[18] &- 48)
            let expected = inLayout && second <= 59
                ? bytes.withUnsafeBufferPointer { ISODate.parse(bytes: $0) }?.millisecondsSince1970 : nil
            XCTAssertEqual(got, expected, String(decoding: bytes, as: UTF8.self))
            if got != nil { read += 1 }
        }
        XCTAssertGreaterThan(read, 5_000)
    }

    /// A number `shortestDecimal` proves to be in the writer's form is in
    /// it: checked against writing its double, on the texts doubles are
    /// written as (which it should mostly prove) and on those texts changed
    /// (a digit more or less, a trailing zero, a neighbour) and random
    /// decimals.
    func testShortestDecimalsAreTheWritersText() {
        var rng = SplitMix64(seed: 53)
        var proved = 0
        func check(_ text: String) {
            let fast = Array(text.utf8).withUnsafeBufferPointer { JSONLineScan.Cursor.shortestDecimal($0.baseAddress!, $0.count) }
            guard fast else { return }
            proved += 1
            XCTAssertEqual(Double(text).map(JSONWriter.doubleText), text, text)
        }
        for n in 0..<100_000 {
            let scale = [1.0, 90, 180, 1e-1, 1e3, 1e9, 1e15][n % 7]
            var d = (Double(rng.below(1 << 53)) / Double(1 << 53)) * scale * (rng.chance(0.5) ? -1 : 1)
            if n % 5 == 0 { d = (d * 10_000).rounded() / 10_000 }  // four decimals, as exports have
            let text = JSONWriter.doubleText(d)
            check(text)
            let digits = Array(text)
            check(text + "0")
            check(String(digits.dropLast()))
            if let last = digits.last, let v = last.wholeNumberValue {
                check(String(digits.dropLast()) + String((v + 1) % 10))
                check(String(digits.dropLast()) + String((v + 9) % 10))
            }
            check(String(rng.below(1000)) + "." + String(rng.below(1_000_000_000)))
        }
        for text in ["0.1", "0.5", "1.0", "35.0", "-0.0", "0.0", "00.5", "1.", ".5", "1e5", "0.09", "9007199254740993.0",
                     "0.30000000000000004", "0.3", "123456789012345.6", "1.7976931348623157"] {
            check(text)
        }
        XCTAssertGreaterThan(proved, 100_000)
        // Sixteen and seventeen digits, as a device's coordinates have: each
        // of the writer's texts from 1 up is proved (exactly, `place`),
        // and its neighbours on the grid are not.
        var long = 0
        for _ in 0..<20_000 {
            let d = 1 + (Double(rng.below(1 << 53)) / Double(1 << 53)) * 179
            let text = JSONWriter.doubleText(d)
            guard text.filter(\.isNumber).count >= 16 else { continue }
            long += 1
            let before = proved
            check(text)
            XCTAssertEqual(proved, before + 1, "not proved: \(text)")
            var digits = Array(text)
            let last = digits.removeLast().wholeNumberValue!
            for next in [(last + 1) % 10, (last + 9) % 10] { check(String(digits) + String(next)) }
        }
        XCTAssertGreaterThan(long, 10_000)
        // Ties and the power-of-two edges, decided exactly.
        typealias C = JSONLineScan.Cursor
        XCTAssertEqual(C.place(9_007_199_254_740_993, 0, of: 9_007_199_254_740_992), .midpoint)  // reads as it: a tie, to even
        XCTAssertNil(C.nearestDouble(9_007_199_254_740_993, 0))  // on a midpoint: not decided here
        XCTAssertEqual(C.nearestDouble(9_007_199_254_740_994, 0), 9_007_199_254_740_994)
        XCTAssertEqual(C.place(9_007_199_254_740_995, 0, of: 9_007_199_254_740_994), .midpoint)
        XCTAssertEqual(C.place(9_007_199_254_740_997, 0, of: 9_007_199_254_740_992), .outside)
        for k in 0...17 {
            for m: UInt64 in [1, 5, 9_999_999_999_999_999, 12_345_678_901_234_567, 1 << 56, 4_503_599_627_370_497] where k >= 3 || m < 1 << 53 {
                let x = Double("\(m)e-\(k)")!
                XCTAssertEqual(C.nearestDouble(m, k), x, "\(m)e-\(k)")
                XCTAssertNotEqual(C.place(m, k, of: x.nextUp), .inside)
                XCTAssertNotEqual(C.place(m, k, of: x.nextDown), .inside)
            }
        }
    }

    /// Arrays of plain strings, integers and literals, and typed Dates,
    /// Pointers and GeoPoints are built from their bytes: each must equal
    /// what the reader builds (``check(_:file:lineNumber:)`` compares every
    /// kept member, `v` among them).
    func testFlatArraysAndTypedValuesAreBuiltAsTheReaderBuildsThem() {
        for array in [
            "[]", "[ ]", #"["旅行","美食"]"#, #"[ "a" , 1 , true , false , null ]"#, "[-12,0,123456789012345678]",
            #"["a\n"]"#, "[1.5]", "[[1]]", #"[{"a":1}]"#, #"["x",{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"}]"#, "[-0]",
        ] {
            check(#"{"v":\#(array)}"#, scans: true)
            check(#"{"v":\#(array),"v":[1]}"#, scans: true)
        }
        for typed in [
            #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"}"#, #"{"__type":"Date","iso":"2024-03-05T16:09:10+08:00","x":[1]}"#,
            #"{"iso":"2024-03-05","__type":"Date"}"#, #"{"__type":"Pointer","className":"_User","objectId":"中文"}"#,
            #"{"__type":"GeoPoint","latitude":-33.5,"longitude":151}"#, #"{"__type":"GeoPoint","latitude":0.1,"longitude":-0.30000000000000004}"#,
            #"{"__type":"GeoPoint","latitude":1,"longitude":2,"latitude":3.25}"#,
        ] {
            check(#"{"v":\#(typed),"d":[\#(typed)]}"#, scans: true)
            check(#"{"v":{"w":1},"v":\#(typed)}"#, scans: true)
        }
    }

    /// Whitespace between tokens, as Python's `json.dumps` writes by default
    /// (`{"a": 1, "b": {"__type": "Date", "iso": ...}}`) or anywhere JSON
    /// allows it (tabs, several spaces): a line the scan takes and writes in
    /// its compact layout it takes and writes in any layout, typed values
    /// included, with the bytes the reader and writer give.
    func testSpacedLinesAreScannedAndWrittenAsCompactOnes() {
        let date = #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"}"#
        let pointer = #"{"__type":"Pointer","className":"_User","objectId":"5f1a2b"}"#
        let geo = #"{"__type":"GeoPoint","latitude":39.9042,"longitude":116.4074}"#
        let lines = [
            #"{"d":\#(date),"p":\#(pointer),"g":\#(geo),"t":"中文"}"#,
            #"{"list":[\#(date),{"inner":\#(pointer)}],"meta":{"at":\#(geo)}}"#,
            #"{"title":"北京 旅行 3 日记","priority":4,"done":false,"tags":["旅行","美食"],"dueDate":\#(date),"author":\#(pointer),"location":\#(geo),"meta":{"source":"ios","version":3,"device":{"os":"13.1","lang":"zh-CN"}},"ACL":{"*":{"read":true}},"objectId":"a1","createdAt":"2024-10-13T23:56:02.737Z"}"#,
            #"{"v":{"__type":"File","id":"f1","name":"图片.png","url":"http://x/y.png"}}"#,
            #"{"v":{"__type":"Object","className":"Post","objectId":"p1","when":\#(date)}}"#,
            #"{"v":{"__type":"GeoPoint","latitude":-90.0,"longitude":180.0}}"#,
            #"{"v":{"__type":"Pointer","className":"帖子","objectId":"中 \" x"}}"#,
        ]
        // Python's default layout.
        let python = [#"{"a": 1, "b": "x, y: z", "c": {"__type": "Date", "iso": "2024-03-05T08:09:10.123Z"}}"#,
                      #"{"g": {"__type": "GeoPoint", "latitude": 39.9042, "longitude": 116.4074}, "p": [{"__type": "Pointer", "className": "A", "objectId": "x"}]}"#]
        for line in python { check(line, scans: true, writes: true) }
        var rng = SplitMix64(seed: 44)
        for line in lines {
            check(line, scans: true, writes: true)
            for _ in 0..<40 { check(Self.respaced(line, &rng), scans: true, writes: true) }
        }
        // What the compact layout leaves to the reader stays the reader's when spaced.
        for typed in [#"{"__type":"Date","iso":"2024-03-05T16:09:10.123+08:00"}"#, #"{"__type":"GeoPoint","latitude":40,"longitude":116}"#,
                      #"{"__type":"GeoPoint","latitude":39.90420,"longitude":116.4074}"#] {
            for _ in 0..<10 { check(Self.respaced(#"{"v":\#(typed)}"#, &rng), scans: true, writes: false) }
        }
        for typed in [#"{"__type":"Date","iso":"2024-02-30T00:00:00.000Z"}"#, #"{"__type":"GeoPoint","latitude":91,"longitude":0}"#,
                      #"{"__type":"Pointer","className":"A"}"#] {
            for _ in 0..<10 { check(Self.respaced(#"{"v":\#(typed)}"#, &rng), scans: false) }
        }
    }

    /// `line` (JSON) with random whitespace (spaces, tabs, a CR LF inside
    /// the line is not NDJSON, so none) before and after each structural
    /// token, none inside strings.
    private static func respaced(_ line: String, _ rng: inout SplitMix64) -> String {
        var out = ""
        var inString = false, escaped = false
        func space() -> String { rng.chance(0.5) ? rng.pick([" ", "\t", "  ", " \t "]) : "" }
        for c in line {
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            switch c {
            case "\"": inString = true; out += space() + "\""
            case "{", "[", ",", ":": out += space() + String(c) + space()
            case "}", "]": out += space() + String(c)
            default: out.append(c)
            }
        }
        return out + space()
    }

    func testCorpusData() throws {
        let lines = try Corpus.dataLines()
        for line in lines { check(line) }
        XCTAssertGreaterThan(lines.count, 20)
    }

    func testRandomAndDamagedLines() {
        var rng = SplitMix64(seed: 2026)
        var lines = 0
        for _ in 0..<4000 {
            var text = RandomJSONText(rng: rng)
            let line = text.object(depth: 0)
            rng = text.rng
            let bytes = Array(line.utf8)
            check(bytes)
            lines += 1
            // Cut, and with one byte changed.
            check(Array(bytes.prefix(rng.below(bytes.count + 1))))
            var changed = bytes
            if !changed.isEmpty {
                changed[rng.below(changed.count)] = rng.pick(Array(#"{}[]":,\"0-.eE9 tfnu"#.utf8) + [0x7F, 0xC3, 0x01, 0x80, 0xE4, 0xED, 0xF4, 0xFF])
                check(changed)
            }
        }
        XCTAssertEqual(lines, 4000)
        // The subset must not be so small that the scan saves nothing.
        XCTAssertGreaterThan(accepted, 1000, "accepted")
        XCTAssertGreaterThan(written, 1000, "written \(written)")
    }
}

/// Random JSON-like text, mostly valid, with the forms a scanner gets wrong.
private struct RandomJSONText {
    var rng: SplitMix64

    private static let keys = [
        "a", "b", "score", "name", "objectId", "tags", "k", "", "K", "a b", "ab", "__type", "é", #"x\"y"#, "\u{7F}", #"\u0061"#,
    ]
    /// Typed values, well formed or not, and their usual neighbours.
    private static let typed = [
        #"{"__type":"Date","iso":"2024-03-05T08:09:10.123Z"}"#, #"{"__type":"Date","iso":"2024-03-05T16:09:10+08:00"}"#,
        #"{"__type":"Date","iso":"2024-13-05"}"#, #"{"__type":"Pointer","className":"_User","objectId":"u1"}"#,
        #"{"__type":"Pointer","className":"_User"}"#, #"{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}"#,
        #"{"__type":"GeoPoint","latitude":90,"longitude":180}"#, #"{"__type":"GeoPoint","latitude":90.01,"longitude":0}"#,
        #"{"__type":"File","name":"a.png"}"#, #"{"__type":"Bytes","base64":"AA=="}"#, #"{"__type":"Nope","x":1}"#,
        #"{"*":{"read":true},"u1":{"read":true,"write":true}}"#,
    ]
    private static let strings = [
        "plain", "", #"x\ny"#, #"\u00e9"#, #"\/"#, #"\ud83d\ude00"#, #"\ud800"#, #"\udc00x"#, "é✓", "\u{7F}", "\t", #"\x"#, #"\u12"#,
        #"\"\\\b\f\r\t"#, "a long plain string with spaces and more than eight bytes", #"\u0000"#,
        "中文标题：旅行日记", "mixed 中英 text 😀 ok", "𝄞🚀", "Ω", "长长长长长长长长长长长长",
    ]
    private static let numbers = [
        "0", "-0", "1", "-1", "42", "123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807",
        "-9223372036854775808", "9223372036854775808", "1.5", "-0.0", "0.000001", "1e3", "1E-2", "01", "1.", ".5", "-", "1e999",
        "0.1e1", "2.5e-400", String(repeating: "9", count: 301) + ".5", String(repeating: "9", count: 300) + ".5",
    ]

    init(rng: SplitMix64) { self.rng = rng }

    mutating func space() -> String { rng.chance(0.1) ? rng.pick([" ", "\t", "  ", "\r\n"]) : "" }

    mutating func value(depth: Int) -> String {
        let deep = depth < 40 && rng.chance(depth > 3 ? 0.9 : 0.05)
        switch deep ? rng.below(2) : 2 + rng.below(6) {
        case 0: return object(depth: depth + 1)
        case 1: return "[" + space() + (0..<rng.below(4)).map { _ in value(depth: depth + 1) }.joined(separator: "," + space()) + "]"
        case 2, 3: return "\"" + rng.pick(RandomJSONText.strings) + "\""
        case 4, 5: return rng.pick(RandomJSONText.numbers)
        case 6:
            guard rng.chance(0.5) else { return rng.pick(["true", "false", "null", "tru", "nul"]) }
            let typed = rng.pick(RandomJSONText.typed)
            // Python's default layout, or the writer's.
            return rng.chance(0.3) ? typed.replacingOccurrences(of: "\":", with: "\": ").replacingOccurrences(of: ",\"", with: ", \"") : typed
        default: return rng.chance(0.5) ? "{}" : "[]"
        }
    }

    mutating func object(depth: Int) -> String {
        var members: [String] = []
        for _ in 0..<rng.below(depth == 0 ? 8 : 4) {
            let key = rng.chance(0.8) ? rng.pick(["a", "b", "k", "score", "name"]) : rng.pick(RandomJSONText.keys)
            members.append(space() + "\"" + key + "\"" + space() + ":" + space() + value(depth: depth) + space())
        }
        return space() + "{" + members.joined(separator: ",") + "}" + space()
    }
}
