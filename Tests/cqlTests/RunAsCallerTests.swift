import Foundation
import XCTest

/// `cql run --as-user` / `--grantees`: a query as a caller of `cql serve`
/// (only what the ACLs grant it, roles read from the database), and its
/// `--explain` showing the ACL condition in the SQL.
extension ExecTests {
    func testRunAsAUserReadsOnlyWhatItsACLsGrant() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cql-as-user-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let files = [
            "Note.json": #"{"results":[{"objectId":"n1","ACL":{"u1":{"read":true}}},{"objectId":"n2"},{"objectId":"n3","ACL":{"role:staff":{"read":true}}},{"objectId":"n4","ACL":{"u2":{"read":true}}}]}"#,
            "_Role.json": #"{"results":[{"objectId":"r1","name":"staff","ACL":{"*":{"read":true}}}]}"#,
            "_Join:users:_Role.json": #"{"results":[{"owningId":"r1","relatedId":"u1"}]}"#,
        ]
        for (name, text) in files { try text.write(to: data.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let db = directory.appendingPathComponent("app.db").path
        let t = self
        XCTAssertEqual(try t.cql(["load", "--sqlite", db, data.path]).status, 0)
        let asUser = try t.cql(["run", "--sqlite", db, "--as-user", "u1", "select objectId from Note order by objectId"])
        XCTAssertEqual(asUser.stdout, "{\"objectId\":\"n1\"}\n{\"objectId\":\"n2\"}\n{\"objectId\":\"n3\"}\n", asUser.stderr)
        let anonymous = try t.cql(["run", "--sqlite", db, "--grantees", "*", "--count", "select * from Note"])
        XCTAssertEqual(anonymous.stdout, "{\"count\":1}\n", anonymous.stderr)
        let named = try t.cql(["run", "--sqlite", db, "--grantees", "u2,role:staff", "--count", "select * from Note"])
        XCTAssertEqual(named.stdout, "{\"count\":3}\n", named.stderr)
        let explain = try t.cql(["run", "--sqlite", db, "--as-user", "u1", "--explain", "select * from Note"])
        XCTAssertTrue(explain.stdout.contains("json_each(t0.\"doc\", '$.\"ACL\"')"), explain.stdout)
        XCTAssertTrue(explain.stdout.contains(#"-- arguments: ["*","role:staff","u1"]"#), explain.stdout)
        let both = try t.cql(["run", "--sqlite", db, "--as-user", "u1", "--grantees", "*", "select * from Note"])
        XCTAssertNotEqual(both.status, 0)
        // The server's guards too: a caller never tests _User's secrets.
        let secret = try t.cql(["run", "--sqlite", db, "--grantees", "*", "select * from _User where password = 'x'"])
        XCTAssertNotEqual(secret.status, 0)
        XCTAssertTrue(secret.stderr.contains("105"), secret.stderr)
    }
}
