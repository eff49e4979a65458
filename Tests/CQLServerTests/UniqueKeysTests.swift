import CQLKit
import CQLServer
import Foundation
import XCTest

/// Usernames, emails, phone numbers and role names unique by the database's
/// own indexes, on every path that sets them, on SQLite and PostgreSQL
/// (issue 45, findings 5 and 6 and the NFC and timing findings).
final class UniqueKeysTests: XCTestCase {
    typealias H = ServerHarness

    static func signUp(_ h: ServerHarness, _ body: Value) async throws -> (id: String, token: String) {
        try await UsersTests.signUp(h, body)
    }

    /// Finding 5: a rename to another user's username, email or phone is
    /// refused (202, 203, 214) through `/1.1/users/<id>`, the class API, a
    /// batch and CQL; the victim still logs in, the attacker's password
    /// never logs in as the victim's name.
    func testARenameCannotTakeAnotherUsersNameEmailOrPhone() async throws {
        try await onEachDatabase { h, db in
            _ = try await Self.signUp(h, ["username": "ann", "password": "pw-ann", "email": "ann@example.com", "mobilePhoneNumber": "+8613800000001"])
            let eve = try await Self.signUp(h, ["username": "eve", "password": "pw-eve", "email": "eve@example.com"])
            let headers = H.sessionHeaders(eve.token)
            let takes: [(body: Value, code: Int64)] = [
                (["username": "ann"], 202), (["email": "ann@example.com"], 203), (["email": "ANN@Example.COM"], 203),
                (["mobilePhoneNumber": "+8613800000001"], 214), (["username": "ann", "email": "ann@example.com"], 202),
            ]
            for path in ["/1.1/users/\(eve.id)", "/1.1/classes/_User/\(eve.id)"] {
                for take in takes {
                    let a = try await h.call(.PUT, path, body: take.body, headers: headers)
                    XCTAssertEqual(a.status, 400, "\(db) \(path) \(take.body): \(a.text)")
                    XCTAssertEqual(a.body["code"]?.int, take.code, "\(db) \(path) \(take.body): \(a.text)")
                }
            }
            var a = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "PUT", "path": .string("/1.1/users/\(eve.id)"),
                                                                                "body": ["username": "ann"]]]], headers: headers)
            XCTAssertEqual(a.body.array.first?["error"]?["code"], 202, "\(db) batch: \(a.text)")
            for (cql, code) in [("update _User set username = 'ann' where objectId = '\(eve.id)'", 202),
                                ("update _User set email = 'Ann@example.com' where objectId = '\(eve.id)'", 203)] {
                a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", cql)], headers: headers)
                XCTAssertEqual(a.body["code"]?.int, Int64(code), "\(db) \(cql): \(a.text)")
            }
            // Even the master key cannot make two users of one name.
            a = try await h.call(.PUT, "/1.1/users/\(eve.id)", body: ["username": "ann"], headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 202, "\(db) master: \(a.text)")
            // A rename to a free name, or to its own, is fine.
            a = try await h.call(.PUT, "/1.1/users/\(eve.id)", body: ["username": "eve2", "email": "eve@example.com"], headers: headers)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            // The victim logs in; the attacker's password never as the victim.
            a = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-ann"])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-eve"])
            XCTAssertEqual(a.body["code"], 210, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users", query: [("where", #"{"username":"ann"}"#)], headers: H.masterHeaders)
            XCTAssertEqual(a.body["results"]?.array.count, 1, "\(db) \(a.text)")
        }
    }

    /// The NFC and NFD spellings of one username are one account (202 at
    /// sign-up, either logs in); an email differs from another only by more
    /// than ASCII case.
    func testNFCAndNFDSpellingsOfOneUsernameAreOneAccount() async throws {
        try await onEachDatabase { h, db in
            let nfc = "Jos\u{E9}", nfd = "Jose\u{301}"
            XCTAssertNotEqual(Array(nfc.utf8), Array(nfd.utf8))
            let jose = try await Self.signUp(h, ["username": .string(nfd), "password": "pw", "email": "Jose@Example.com"])
            var a = try await h.call(.POST, "/1.1/users", body: ["username": .string(nfc), "password": "other"])
            XCTAssertEqual(a.body["code"], 202, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/users", body: ["username": "jose2", "password": "other", "email": "jose@example.COM"])
            XCTAssertEqual(a.body["code"], 203, "\(db) \(a.text)")
            for login: Value in [["username": .string(nfc), "password": "pw"], ["username": .string(nfd), "password": "pw"],
                                 ["email": "JOSE@example.com", "password": "pw"]] {
                a = try await h.call(.POST, "/1.1/login", body: login)
                XCTAssertEqual(a.body["objectId"]?.string, jose.id, "\(db) \(login): \(a.text)")
            }
            // Stored in NFC; the email as given.
            a = try await h.call(.GET, "/1.1/users/\(jose.id)", headers: H.masterHeaders)
            XCTAssertEqual(a.body["username"]?.string.map { Array($0.utf8) }, Array(nfc.utf8), "\(db) \(a.text)")
            XCTAssertEqual(a.body["email"], "Jose@Example.com", "\(db) \(a.text)")
            // Usernames keep their case (as LeanCloud's).
            a = try await h.call(.POST, "/1.1/users", body: ["username": .string(nfc.uppercased()), "password": "other"])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
        }
    }

    /// Finding 6: 24 concurrent creates of one role name make exactly one
    /// role (the others 137); CQL `insert into _Role` twice makes one, and
    /// one insert of two rows of one name makes none.
    func testRoleNamesStayUniqueUnderConcurrentCreatesAndCQL() async throws {
        try await onEachDatabase { h, db in
            // `_Role` exists first: concurrent finds of a class PostgreSQL lacks
            // fail on their own (code 1, a read-path race outside this test).
            var a = try await h.call(.POST, "/1.1/roles", body: ["name": "first", "ACL": ["*": ["read": true]]], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let statuses = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        let a = try await h.call(.POST, "/1.1/roles", body: ["name": "editors", "ACL": ["*": ["read": true]]], headers: H.masterHeaders)
                        return (a.status, a.body["code"]?.int)
                    }
                }
                var all: [(Int, Int64?)] = []
                for try await s in group { all.append(s) }
                return all
            }
            XCTAssertEqual(statuses.filter { $0.0 == 201 }.count, 1, "\(db): \(statuses)")
            XCTAssertEqual(statuses.filter { $0.0 == 400 && $0.1 == 137 }.count, 23, "\(db): \(statuses)")
            let insert = "insert into _Role(name, ACL) values ('writers', {'*': {'read': true}})"
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", insert)], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", insert)], headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 137, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into _Role(name, ACL) values ('x', {'*': {'read': true}}), ('x', {'*': {'read': true}})")],
                                 headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 137, "\(db) \(a.text)")
            for (name, count) in [("editors", 1), ("writers", 1), ("x", 0)] {
                a = try await h.call(.GET, "/1.1/roles", query: [("where", #"{"name":"\#(name)"}"#)], headers: H.masterHeaders)
                XCTAssertEqual(a.body["results"]?.array.count, count, "\(db) \(name): \(a.text)")
            }
        }
    }

    /// A database whose users already share a name is refused at start,
    /// naming the name; one without gets the indexes when opened.
    func testADatabaseWithDuplicateUsernamesIsRefusedAtStart() async throws {
        for database in ServerHarness.Database.allCases {
            let dupes: [[String: Value]] = [["objectId": "u1", "username": "ann"], ["objectId": "u2", "username": "ann"]]
            do {
                let h = try await ServerHarness.start(database, seed: ["_User": dupes])
                await h.stop()
                XCTFail("\(database): a database with two users named ann was served")
            } catch {
                XCTAssertTrue("\(error)".contains("'ann'") && "\(error)".contains("username"), "\(database): \(error)")
            }
            let h = try await ServerHarness.start(database, seed: ["_User": [["objectId": "u1", "username": "ann", "email": "A@x.org"],
                                                                               ["objectId": "u2", "username": "bob"]]])
            let a = try await h.call(.PUT, "/1.1/users/u2", body: ["email": "a@X.org"], headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 203, "\(database) \(a.text)")
            await h.stop()
        }
    }

    /// An unknown username costs the time of a wrong password (the password
    /// is checked against a stand-in hash): the answer's speed does not
    /// tell which names exist.
    func testAnUnknownUsernameTakesAsLongAsAWrongPassword() async throws {
        for database in ServerHarness.Database.allCases {
            // Enough iterations that a check dwarfs the request around it.
            let h = try await ServerHarness.start(database, passwordIterations: 200_000) { $0.loginAttempts = 1000 }
            _ = try await Self.signUp(h, ["username": "ann", "password": "pw-ann"])
            func time(_ username: String) async throws -> Double {
                var times: [Double] = []
                for _ in 0..<5 {
                    let start = Date()
                    let a = try await h.call(.POST, "/1.1/login", body: ["username": .string(username), "password": "wrong"])
                    times.append(Date().timeIntervalSince(start))
                    XCTAssertEqual(a.status, 400, "\(database) \(a.text)")
                }
                return times.sorted()[2]
            }
            let wrong = try await time("ann"), unknown = try await time("nobody")
            XCTAssertGreaterThan(unknown, wrong * 0.5, "\(database): unknown \(unknown) s, wrong password \(wrong) s")
            await h.stop()
        }
    }
}
