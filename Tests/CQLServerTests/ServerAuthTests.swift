import CQLKit
import CQLServer
import XCTest

/// Keys, signatures, the legacy headers, master-only routes and CORS.
final class ServerAuthTests: XCTestCase {
    func testKeysSignaturesAndLegacyHeaders() async throws {
        let h = try await ServerHarness.start(.sqlite)
        defer { Task { await h.stop() } }
        let keys = ServerHarness.keys
        // No key, a wrong key, a wrong app id, a master key sent as an app key: 401 JSON.
        for headers in [[], [("X-LC-Id", keys.appId)], [("X-LC-Id", keys.appId), ("X-LC-Key", "wrong")],
                        [("X-LC-Id", "other"), ("X-LC-Key", keys.appKey)], [("X-LC-Id", keys.appId), ("X-LC-Key", keys.appKey + ",master")]] {
            let a = try await h.call(.GET, "/1.1/classes/Todo", headers: headers)
            XCTAssertEqual(a.status, 401, "\(headers)")
            XCTAssertEqual(a.body["code"], .int(401))
            XCTAssertEqual(a.headers.first(name: "content-type"), "application/json; charset=utf-8")
        }
        // The SDKs' signature, with the app key and with the master key.
        let signed = try await h.call(.GET, "/1.1/classes/Todo", headers: [("X-LC-Id", keys.appId), ("X-LC-Sign", ServerHarness.signature(key: keys.appKey))])
        XCTAssertEqual(signed.status, 200)
        XCTAssertEqual(signed.body, .object(["results": .array([])]))
        let master = [("X-LC-Id", keys.appId), ("X-LC-Sign", ServerHarness.signature(key: keys.masterKey, master: true))]
        do {
            let value = try await h.call(.GET, "/1.1/schemas", headers: master).status
            XCTAssertEqual(value, 200)
        }
        // A signature made with the app key but claiming master, a stale one, a malformed one.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for sign in [ServerHarness.signature(key: keys.appKey, master: true), ServerHarness.signature(key: keys.appKey, timestamp: now - 3_600_000),
                     ServerHarness.signature(key: keys.appKey, timestamp: now + 3_600_000), "abc", "abc,def", ServerHarness.signature(key: keys.appKey) + ",x"] {
            do {
                let value = try await h.call(.GET, "/1.1/classes/Todo", headers: [("X-LC-Id", keys.appId), ("X-LC-Sign", sign)]).status
                XCTAssertEqual(value, 401, sign)
            }
        }
        // Legacy headers.
        do {
            let value = try await h.call(.GET, "/1.1/classes/Todo", headers: [("X-AVOSCloud-Application-Id", keys.appId), ("X-AVOSCloud-Application-Key", keys.appKey)]).status
            XCTAssertEqual(value, 200)
        }
        do {
            let value = try await h.call(.GET, "/1.1/schemas", headers: [("X-AVOSCloud-Application-Id", keys.appId), ("X-AVOSCloud-Master-Key", keys.masterKey)]).status
            XCTAssertEqual(value, 200)
        }
        do {
            let value = try await h.call(.GET, "/1.1/classes/Todo", headers: [("X-AVOSCloud-Application-Id", keys.appId), ("X-AVOSCloud-Request-Sign", ServerHarness.signature(key: keys.appKey))]).status
            XCTAssertEqual(value, 200)
        }
        // Master-only routes with the app key: 403, code 119.
        for path in ["/1.1/schemas", "/1.1/schemas/Todo", "/1.1/scan/classes/Todo"] {
            let a = try await h.call(.GET, path)
            XCTAssertEqual(a.status, 403, path)
            XCTAssertEqual(a.body["code"], .int(119), path)
        }
    }

    func testCORS() async throws {
        let h = try await ServerHarness.start(.sqlite)
        defer { Task { await h.stop() } }
        // A browser's preflight carries no keys.
        let pre = try await h.call(.OPTIONS, "/1.1/classes/Comment", headers: [
            ("Origin", "https://blog.example"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type,x-lc-id,x-lc-sign"),
        ])
        XCTAssertEqual(pre.status, 204)
        XCTAssertEqual(pre.headers.first(name: "access-control-allow-origin"), "https://blog.example")
        XCTAssertEqual(pre.headers.first(name: "access-control-allow-headers"), "content-type,x-lc-id,x-lc-sign")
        XCTAssertTrue(pre.headers.first(name: "access-control-allow-methods")?.contains("PUT") == true)
        let get = try await h.call(.GET, "/1.1/classes/Comment", headers: ServerHarness.appHeaders + [("Origin", "https://blog.example")])
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(get.headers.first(name: "access-control-allow-origin"), "https://blog.example")
        // Errors carry the header too, so the page can read them.
        let denied = try await h.call(.GET, "/1.1/classes/Comment", headers: [("Origin", "https://blog.example")])
        XCTAssertEqual(denied.status, 401)
        XCTAssertEqual(denied.headers.first(name: "access-control-allow-origin"), "https://blog.example")
    }

    func testAuthenticatorComparesWholeKeys() {
        let auth = Authenticator(keys: AppKeys(appId: "app", appKey: "key", masterKey: "master"))
        XCTAssertEqual(auth.identify(["x-lc-id": "app", "x-lc-key": "key"]), Identity(isMaster: false))
        XCTAssertEqual(auth.identify(["x-lc-id": "app", "x-lc-key": "master,master"]), Identity(isMaster: true))
        XCTAssertNil(auth.identify(["x-lc-id": "app", "x-lc-key": "ke"]))
        XCTAssertNil(auth.identify(["x-lc-id": "app", "x-lc-key": "keyy"]))
        XCTAssertNil(auth.identify(["x-lc-id": "ap", "x-lc-key": "key"]))
        XCTAssertEqual(auth.identify(["x-lc-id": "app", "x-lc-key": "key", "x-lc-session": "t"]), Identity(isMaster: false, sessionToken: "t"))
    }

    func testGeneratedKeysAreKeptBesideTheDatabase() throws {
        let file = NSTemporaryDirectory() + "cql-keys-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (made, generated) = try AppKeys.loadOrGenerate(file: file)
        XCTAssertTrue(generated)
        XCTAssertGreaterThanOrEqual(made.appKey.count, 22)
        XCTAssertNotEqual(made.appKey, made.masterKey)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let (again, second) = try AppKeys.loadOrGenerate(file: file)
        XCTAssertFalse(second)
        XCTAssertEqual(again, made)
    }
}
