import XCTest
@testable import CQLKit

final class JSONTests: XCTestCase {
    func testRoundTripSortedKeys() throws {
        let v = try JSONReader.parse(#" {"b":[1,2.5,-0.0,1e300,"\u00e9\ud83d\ude00"],"a":{"z":null,"y":true}} "#)
        XCTAssertEqual(JSONWriter.string(v), #"{"a":{"y":true,"z":null},"b":[1,2.5,-0.0,1e+300,"é😀"]}"#)
    }

    func testIntegersStayExactAndOverflowIsAnError() throws {
        XCTAssertEqual(try JSONReader.parse("9223372036854775807"), .int(Int64.max))
        XCTAssertEqual(try JSONReader.parse("-9223372036854775808"), .int(Int64.min))
        XCTAssertThrowsError(try JSONReader.parse("9223372036854775808")) { e in
            XCTAssertEqual((e as! QueryError).shortDescription, "1:1: integer 9223372036854775808 does not fit in 64 bits")
        }
        XCTAssertEqual(try JSONReader.parse("1.0"), .double(1))
        XCTAssertEqual(JSONWriter.string(.double(1)), "1.0")
    }

    func testErrorsArePositioned() {
        let cases: [(String, String)] = [
            (#"{"a":1,}"#, "1:8: invalid JSON: expected a string key, found '}'"),
            (#"["a"#, "1:2: invalid JSON: unterminated string"),
            ("[1,\n 2 3]", "2:4: invalid JSON: expected ',' or ']' in array, found '3'"),
            (#""\ud800""#, "1:2: invalid JSON: lone high surrogate in \\u escape"),
            ("01", "1:1: invalid JSON: leading zeros are not allowed in numbers"),
            ("1e999", "1:1: number 1e999 is out of range"),
            ("", "1:1: invalid JSON: unexpected end of input, expected a value"),
            ("[] x", "1:4: invalid JSON: unexpected 'x' after the JSON value"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try JSONReader.parse(text), text) { e in
                XCTAssertEqual((e as! QueryError).shortDescription, expected, text)
            }
        }
    }

    func testDeepNestingIsALimitNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONReader.parse(deep)) { e in
            XCTAssertEqual((e as! QueryError).kind, .limit)
        }
    }

    func testTypedValuesDecodeAndEncode() throws {
        let text = #"{"d":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"},"g":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4},"p":{"__type":"Pointer","className":"Post","objectId":"x"}}"#
        let v = try JSONReader.parse(text).decodingTypedValues()
        XCTAssertEqual(v["d"], .date(DateValue(millisecondsSince1970: 1_434_909_772_249)))
        XCTAssertEqual(v["p"], .pointer(Pointer(className: "Post", objectId: "x")))
        XCTAssertEqual(JSONWriter.string(v), text)
        XCTAssertThrowsError(try JSONReader.parse(#"{"g":{"__type":"GeoPoint","latitude":91,"longitude":0}}"#).decodingTypedValues()) { e in
            XCTAssertEqual((e as! QueryError).path, "g")
        }
    }

    func testISODates() {
        XCTAssertEqual(ISODate.parse("1970-01-01T00:00:00Z")?.millisecondsSince1970, 0)
        XCTAssertEqual(ISODate.parse("1970-01-01T01:00:00+01:00")?.millisecondsSince1970, 0)
        XCTAssertEqual(ISODate.parse("1969-12-31")?.millisecondsSince1970, -86_400_000)
        XCTAssertNil(ISODate.parse("2011-02-30"))
        XCTAssertNil(ISODate.parse("2011-08-20T02:06:57.931Zjunk"))
        XCTAssertEqual(ISODate.format(DateValue(millisecondsSince1970: -1)), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(ISODate.format(ISODate.parse("2011-08-20T02:06:57.931Z")!), "2011-08-20T02:06:57.931Z")
    }

    func testPrettyOutput() {
        XCTAssertEqual(JSONWriter.string(.object(["a": .array([.int(1)]), "b": .object([:])]), pretty: true),
                       "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}")
    }
}
