import XCTest

@testable import CQLKit

/// `JSONReader.parse(bytes:keepingOnly:)` must be the whole parse with the
/// other top-level members removed — and fail exactly where and how the
/// whole parse fails, on every malformed input. Checked over lines with typed
/// values, escapes, non-ASCII keys and repeated keys, and over every
/// truncation and several corruptions of them.
final class JSONKeyFilterTests: XCTestCase {
    static let lines = [
        #"{"objectId":"o1","name":"alice","score":90,"cheatMode":false,"tags":["a","b"],"note":"xxxxxxxxxxxxxxxxxxxx"}"#,
        #"{"score":1.5e3,"score":7,"createdAt":"2017-11-11T07:19:15.549Z","at":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}"#,
        #"{"p":{"__type":"Pointer","className":"C","objectId":"x"},"sc\u006fre":3,"é":{"k":[1,{"__type":"GeoPoint","latitude":1,"longitude":2}]}}"#,
        #"{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}"#,
        #"{"bad":{"__type":"Date","iso":"yesterday"},"score":1}"#,
        #"{"score":{"__type":"Bytes","base64":"AA=="},"deep":[[[[{"a":null}]]]],"s":"tab\tnewline\n\u00e9\ud83d\ude00"}"#,
        "{\"K\":1,\"\u{212A}\":2,\"score\":3}",
        #"[1,2,3]"#,
        #"  {"score" : 5 , "x" : true }  "#,
    ]

    static let filters: [Set<String>] = [["score"], ["score", "name", "p"], ["é", "at"], ["\u{212A}"], ["K"], [], ["__type", "iso"]]

    private func parse(_ bytes: [UInt8], _ filter: JSONKeyFilter?) -> Result<Value, QueryError> {
        bytes.withUnsafeBufferPointer { buf in
            do throws(QueryError) {
                return .success(try JSONReader.parse(bytes: buf, decodingTypedValues: true, keepingOnly: filter))
            } catch {
                return .failure(error)
            }
        }
    }

    /// What the filtered parse must return given the whole parse.
    private func expected(_ whole: Value, _ keys: Set<String>) -> Value {
        guard case .object(let o) = whole else { return whole }
        return .object(o.filter { keys.contains($0.key) })
    }

    private func check(_ bytes: [UInt8], _ keys: Set<String>, file: StaticString = #filePath, line: UInt = #line) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch (parse(bytes, nil), parse(bytes, JSONKeyFilter(keys))) {
        case (.success(let whole), .success(let kept)):
            XCTAssertEqual(kept, expected(whole, keys), "\(keys) on \(text)", file: file, line: line)
        case (.failure(let a), .failure(let b)):
            XCTAssertEqual(a.kind, b.kind, text, file: file, line: line)
            XCTAssertEqual(a.message, b.message, text, file: file, line: line)
            XCTAssertEqual(a.range, b.range, text, file: file, line: line)
        case (let a, let b):
            XCTFail("whole \(a), filtered \(b) for \(keys) on \(text)", file: file, line: line)
        }
    }

    func testFilteredParseIsTheWholeParseRestricted() {
        for l in Self.lines {
            for keys in Self.filters { check(Array(l.utf8), keys) }
        }
    }

    func testFilteredParseFailsLikeTheWholeParse() {
        let corruptions: [UInt8] = [0x00, 0x22, 0x5C, 0x7D, 0x5D, 0x2C, 0xFF, 0x31]
        for l in Self.lines {
            let bytes = Array(l.utf8)
            for keys in Self.filters.prefix(4) {
                for cut in 0..<bytes.count { check(Array(bytes[..<cut]), keys) }
                for at in stride(from: 0, to: bytes.count, by: 3) {
                    for c in corruptions {
                        var b = bytes
                        b[at] = c
                        check(b, keys)
                    }
                }
            }
        }
    }

    func testKeysWrittenWithEscapesOrNonASCIIAreMatchedAsStrings() throws {
        let line = Array("{\"sc\\u006fre\":1,\"\u{212A}\":2,\"e\\u0301\":3}".utf8)
        XCTAssertEqual(try parse(line, JSONKeyFilter(["score", "K"])).get(), .object(["score": 1, "\u{212A}": 2]))
        // Canonically equivalent keys are equal Strings, as in the dictionary lookup.
        XCTAssertEqual(try parse(line, JSONKeyFilter(["\u{e9}"])).get(), .object(["e\u{301}": 3]))
    }

    func testReusedLineParserGivesTheSameResults() throws {
        let parser = JSONLineParser(decodingTypedValues: true)
        let filter = JSONKeyFilter(["score", "at"])
        for _ in 0..<3 {
            for l in Self.lines {
                let bytes = Array(l.utf8)
                let got = bytes.withUnsafeBufferPointer { buf -> Result<Value, QueryError> in
                    do throws(QueryError) { return .success(try parser.parse(buf, keepingOnly: filter)) } catch { return .failure(error) }
                }
                XCTAssertEqual(try? got.get(), try? parse(bytes, filter).get(), l)
            }
        }
    }
}
