import Foundation
import XCTest
import Crypto
import HTTPTypes
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

    /// The responder reads the headers `Authenticator.headerNames` lists in
    /// one pass (``AuthenticationMiddleware/credentials(_:)``): every name `identify`
    /// asks, whatever the headers, is in that list.
    func testEveryHeaderIdentifyAsksIsListed() {
        // With a hook key (a server with an engine): `X-LC-Hook-Key` is asked too.
        let auth = Authenticator(keys: AppKeys(appId: "app", appKey: "k", masterKey: "m", hookKey: "h"))
        let now = String(Int64(Date().timeIntervalSince1970 * 1000))
        let forms: [[String: String]] = [
            ["x-lc-id": "app", "x-lc-key": "k", "x-lc-hook-key": "h"],
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

    /// One pass over the headers answers `identify` as asking `HTTPFields`
    /// each name would: names in any case, other headers ignored, a header
    /// sent twice joined by `, ` (and then refused as a key).
    func testCredentialsReadInOnePassAnswerAsHTTPFields() {
        let auth = Authenticator(keys: AppKeys(appId: "app", appKey: "k", masterKey: "m"))
        let now = String(Int64(Date().timeIntervalSince1970 * 1000))
        let sign = Insecure.MD5.hash(data: Data((now + "k").utf8)).map { String(format: "%02x", $0) }.joined()
        let forms: [[(String, String)]] = [
            [], [("Host", "x"), ("X-LC-Id", "app"), ("X-LC-Key", "k")], [("x-lc-id", "app"), ("X-LC-KEY", "m,master"), ("Origin", "o")],
            [("X-LC-Id", "app"), ("X-LC-Key", "k"), ("X-LC-Key", "k")], [("X-LC-Id", "app"), ("X-LC-Sign", "\(sign),\(now)")],
            [("X-AVOSCloud-Application-Id", "app"), ("X-AVOSCloud-Master-Key", "m"), ("X-AVOSCloud-Session-Token", "t")],
            [("X-LC-Id", "app"), ("X-LC-Key", "wrong")], [("X-LC-Id", "other"), ("X-LC-Key", "k")], [("X-LC-Key", "k")],
            [("X-LC-Id", "app"), ("X-LC-Key", "k"), ("X-LC-Session", "s1"), ("X-Other", "k")],
        ]
        var identified = 0
        for form in forms {
            var headers = HTTPFields()
            for (name, value) in form { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            let credentials = AuthenticationMiddleware.credentials(headers)
            let fast = auth.identify(headers: { credentials[$0.rawValue] })
            let asked = auth.identify { headers[HTTPField.Name($0)!] }
            XCTAssertEqual(fast, asked, "\(form)")
            if fast != nil { identified += 1 }
        }
        XCTAssertEqual(identified, 5)
        var twice = HTTPFields()
        twice.append(HTTPField(name: HTTPField.Name("X-LC-Key")!, value: "k"))
        twice.append(HTTPField(name: HTTPField.Name("x-lc-key")!, value: "k"))
        XCTAssertEqual(AuthenticationMiddleware.credentials(twice)[Authenticator.Header.key.rawValue], "k, k")
        XCTAssertEqual(Authenticator.Header(name: "x-lc-sign"), .sign)
        XCTAssertNil(Authenticator.Header(name: "host"))
        XCTAssertEqual(Authenticator.Header.allCases.map(\.name), Authenticator.headerNames)
    }
}
