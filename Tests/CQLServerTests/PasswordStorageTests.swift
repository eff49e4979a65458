import CorpusSupport
import CQLKit
@testable import CQLServer
import Foundation
import XCTest

/// How passwords and tokens are kept: LeanCloud's hash of imported users
/// (the spec's worked example and hashes made by Python's hashlib), the
/// re-hash to PBKDF2 at login, and no token or password in the clear in the
/// database files.
final class PasswordStorageTests: XCTestCase {
    static let specSalt = "h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2"
    static let specHash = "tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug=="

    func testLeanCloudHashOfTheSpecExample() {
        XCTAssertEqual(Passwords.leanCloudHash("password", salt: Self.specSalt), Self.specHash)
        XCTAssertNotEqual(Passwords.leanCloudHash("Password", salt: Self.specSalt), Self.specHash)
    }

    /// RFC 7914's PBKDF2-HMAC-SHA256 vector (password "passwd", salt
    /// "salt", 1 iteration, 64 bytes), through the stored form.
    func testPBKDF2KnownAnswer() throws {
        let expected = "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        let bytes = stride(from: 0, to: expected.count, by: 2).map { i -> UInt8 in
            let s = expected.index(expected.startIndex, offsetBy: i)
            return UInt8(expected[s..<expected.index(s, offsetBy: 2)], radix: 16)!
        }
        let stored = "pbkdf2_sha256$1$\(Data("salt".utf8).base64EncodedString())$\(Data(bytes).base64EncodedString())"
        XCTAssertEqual(try Passwords.verifyNow("passwd", stored: stored, salt: nil, iterations: 1), .match(rehash: false))
        XCTAssertEqual(try Passwords.verifyNow("passwd", stored: stored, salt: nil, iterations: 2), .match(rehash: true))
        XCTAssertEqual(try Passwords.verifyNow("passwe", stored: stored, salt: nil, iterations: 1), .mismatch)
        XCTAssertEqual(try Passwords.verifyNow("passwd", stored: "garbage", salt: nil, iterations: 1), .mismatch)
    }

    /// LeanCloud's hash as Python's hashlib computes it (an implementation
    /// that is not ours).
    static func pythonLeanCloudHash(_ password: String, salt: String) throws -> String {
        let script = """
            import base64, hashlib, sys
            h = hashlib.sha512((sys.argv[1] + sys.argv[2]).encode()).digest()
            for _ in range(512): h = hashlib.sha512(h).digest()
            print(base64.b64encode(h).decode())
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, salt, password]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An exported LeanCloud `_User` (`cql load` of the export) logs in with
    /// its old password; a wrong one is 210; the login replaces the hash
    /// with PBKDF2 and drops the salt, and the password still works.
    func testImportedLeanCloudUsersLogInWithTheirPasswords() async throws {
        var users: [(name: String, password: String, salt: String, hash: String)] = [("spec", "password", Self.specSalt, Self.specHash)]
        for i in 0..<5 {
            let password = "pw-\(i)-\(UUID().uuidString.prefix(8))-密码", salt = UUID().uuidString.lowercased()
            users.append(("gen\(i)", password, salt, try Self.pythonLeanCloudHash(password, salt: salt)))
        }
        XCTAssertEqual(Passwords.leanCloudHash(users[1].password, salt: users[1].salt), users[1].hash)
        let lines = ["#filetype:JSON-streaming;version=1.0;class=_User"] + users.enumerated().map { i, u in
            JSONWriter.string(.object(["objectId": .string("u\(i)"), "username": .string(u.name), "password": .string(u.hash), "salt": .string(u.salt),
                                       "email": .string("\(u.name)@example.com"), "createdAt": "2024-01-01T00:00:00.000Z", "updatedAt": "2024-01-02T00:00:00.000Z",
                                       "ACL": .object(["*": .object(["read": true]), "u\(i)": .object(["write": true])])]))
        }
        let export = try LeanCloudExport.write(["_User.0.json": lines])
        defer { try? FileManager.default.removeItem(at: export) }
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database, load: export.path)
            for (i, u) in users.enumerated() {
                let v1 = try await UsersTests.storedUser(h, "u\(i)")["salt"]?.string
                XCTAssertEqual(v1, u.salt, "\(database): `cql load` keeps the salt")
                var a = try await h.call(.POST, "/1.1/login", body: ["username": .string(u.name), "password": .string(u.password + "x")])
                XCTAssertEqual(a.body["code"], 210, "\(database) \(u.name): \(a.text)")
                a = try await h.call(.POST, "/1.1/login", body: ["email": .string("\(u.name)@example.com"), "password": .string(u.password)])
                XCTAssertEqual(a.status, 200, "\(database) \(u.name): \(a.text)")
                XCTAssertEqual(a.body["objectId"]?.string, "u\(i)")
                let stored = try await UsersTests.storedUser(h, "u\(i)")
                XCTAssertTrue(stored["password"]?.string?.hasPrefix("pbkdf2_sha256$") == true, "\(database): re-hashed: \(stored)")
                XCTAssertNil(stored["salt"], "\(database): LeanCloud's salt goes with its hash")
                a = try await h.call(.POST, "/1.1/login", body: ["username": .string(u.name), "password": .string(u.password)])
                XCTAssertEqual(a.status, 200, "\(database) \(u.name) after the re-hash: \(a.text)")
                a = try await h.call(.POST, "/1.1/login", body: ["username": .string(u.name), "password": .string(u.password + "x")])
                XCTAssertEqual(a.body["code"], 210, "\(database) \(u.name) after the re-hash: \(a.text)")
            }
            await h.stop()
        }
    }

    /// After sign-ups, logins, refreshes and a password change, no session
    /// token and no password is in any file of the database (SQLite: the
    /// file, its WAL and shared memory; PostgreSQL: the whole cluster
    /// directory, WAL included).
    func testNoTokenOrPasswordInTheDatabaseFiles() async throws {
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database)
            var secrets: [String] = []
            for i in 0..<3 {
                let password = "clear-\(UUID().uuidString)", newPassword = "clear-\(UUID().uuidString)"
                secrets += [password, newPassword]
                let (id, token) = try await UsersTests.signUp(h, ["username": .string("user\(i)"), "password": .string(password)])
                let login = try await h.call(.POST, "/1.1/login", body: ["username": .string("user\(i)"), "password": .string(password)])
                let refreshed = try await h.call(.PUT, "/1.1/users/\(id)/refreshSessionToken", headers: ServerHarness.sessionHeaders(token))
                let changed = try await h.call(.PUT, "/1.1/users/\(id)/updatePassword", body: ["old_password": .string(password), "new_password": .string(newPassword)],
                                               headers: ServerHarness.sessionHeaders(refreshed.body["sessionToken"]?.string ?? ""))
                secrets += [token, login.body["sessionToken"]?.string, refreshed.body["sessionToken"]?.string, changed.body["sessionToken"]?.string].compactMap { $0 }
                // The last token still works: the scan looks for live tokens.
                let v2 = try await h.call(.GET, "/1.1/users/me", headers: ServerHarness.sessionHeaders(secrets.last!)).status
                XCTAssertEqual(v2, 200)
            }
            XCTAssertEqual(secrets.count, 18)
            let directory: String
            switch database {
            case .sqlite: directory = h.directory
            case .postgres:
                directory = ServerHarness.postgres!.directory
                // synchronous_commit=off: the WAL writer flushes within 200 ms.
                try await Task.sleep(for: .milliseconds(700))
            }
            var scanned = 0
            for file in FileManager.default.enumerator(atPath: directory)?.compactMap({ $0 as? String }) ?? [] {
                guard let data = FileManager.default.contents(atPath: directory + "/" + file) else { continue }
                scanned += data.count
                for s in secrets { XCTAssertNil(data.range(of: Data(s.utf8)), "\(database): \(file) holds a secret in the clear") }
            }
            XCTAssertGreaterThan(scanned, 10_000, "\(database): the scan read the database")
            print("\(database): scanned \(scanned) bytes of \(directory) for \(secrets.count) secrets")
            await h.stop()
        }
    }
}
