import Foundation
import XCTest
import CQLKit
@testable import CQLServer

/// The server's own small decoders on the request path: query strings,
/// and the test that sends stored text down the object path.
final class WireDecodingTests: XCTestCase {
    func testQueryStringParameters() {
        let p = HTTPQuery.parameters("a=1&where=%7B%22url%22%3A%22%2Fp%2F1%2F%22%7D&c=x+y&d=%2B&e=%zz&f&g=%E5%8D%9A&h=%FF&a=2&x%20y=1")
        XCTAssertEqual(p["a"], .string("2"))  // the last value
        XCTAssertEqual(p["where"], .string(#"{"url":"/p/1/"}"#))
        XCTAssertEqual(p["c"], .string("x y"))
        XCTAssertEqual(p["d"], .string("+"))
        XCTAssertEqual(p["e"], .string("%zz"))  // a malformed escape: as given
        XCTAssertEqual(p["f"], .string(""))
        XCTAssertEqual(p["g"], .string("博"))
        XCTAssertEqual(p["h"], .string("%FF"))  // not UTF-8: as given
        XCTAssertEqual(p["x y"], .string("1"))
        XCTAssertEqual(HTTPQuery.decode("%4"), nil)
        XCTAssertEqual(HTTPQuery.decode("a%"), nil)
        XCTAssertEqual(HTTPQuery.decode("%41%62"), "Ab")
        XCTAssertEqual(HTTPQuery.decode(""), "")
    }

    func testFileAndObjectMarkers() {
        func holds(_ s: String) -> Bool { Array(s.utf8).withUnsafeBufferPointer { $0.holdsFileOrObject } }
        XCTAssertTrue(holds(#"{"a":{"__type":"File","id":"x"}}"#))
        XCTAssertTrue(holds(#"{"a":1,"b":[{"__type":"Date","iso":"x"},{"__type":"Object","className":"C"}]}"#))
        XCTAssertTrue(holds(#""__type":"File""#))
        XCTAssertFalse(holds(#"{"a":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"}}"#))
        // Inside a string the quotes are escaped: not a typed value.
        XCTAssertFalse(holds(#"{"s":"\"__type\":\"File\""}"#))
        XCTAssertFalse(holds(#"{"__type":"Fil"}"#))
        XCTAssertFalse(holds(#""__type":""#))
        XCTAssertFalse(holds(""))
        XCTAssertFalse(holds("_"))
        // Underscores elsewhere, before and after the marker, and the marker last.
        XCTAssertTrue(holds(#"{"x_y":"_","z":{"__type":"Object"}}"#))
        XCTAssertFalse(holds(#"{"x_y":"__","__type":"Date","_":"_"}"#))
        XCTAssertTrue(holds(#"___"__type":"File""#))
        XCTAssertFalse(holds(#""__type":"Fil"#))
    }

    /// The responder makes `HTTPField.Name`s once for `Authenticator.headerNames`:
    /// every name `identify` asks, whatever the headers, is in that list.
    func testEveryHeaderIdentifyAsksIsListed() {
        let auth = Authenticator(keys: AppKeys(appId: "app", appKey: "k", masterKey: "m"))
        let now = String(Int64(Date().timeIntervalSince1970 * 1000))
        let forms: [[String: String]] = [
            [:], ["x-lc-id": "app"], ["x-lc-id": "app", "x-lc-key": "k"], ["x-lc-id": "app", "x-lc-key": "m,master"],
            ["x-lc-id": "app", "x-lc-sign": "00,\(now)"], ["x-avoscloud-application-id": "app", "x-avoscloud-master-key": "m"],
            ["x-avoscloud-application-id": "app", "x-avoscloud-request-sign": "00,\(now),master"],
            ["x-avoscloud-application-id": "app", "x-avoscloud-application-key": "k", "x-avoscloud-session-token": "t"],
            ["x-lc-id": "app", "x-lc-key": "k", "x-lc-session": "t"],
        ]
        var asked = Set<String>()
        for headers in forms { _ = auth.identify { asked.insert($0); return headers[$0] } }
        XCTAssertEqual(asked.subtracting(Authenticator.headerNames), [])
        XCTAssertEqual(asked, Set(Authenticator.headerNames))
    }
}
