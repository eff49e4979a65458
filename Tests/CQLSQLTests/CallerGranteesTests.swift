import CQLKit
import CQLSQL
import XCTest

/// The walk of a user's roles (``CallerGrantees``) over more roles than one
/// `IN (...)` list holds, on SQLite here and on PostgreSQL with the
/// event-loop reader too (``PostgreSQLTests``).
final class CallerGranteesTests: XCTestCase {
    /// Roles per level: more than ``CallerGrantees``' lists of 500.
    static let width = 1_200

    /// u1 holds `r0`… directly and, through each `r<i>`, `p<i>` (its
    /// `roles` lists it); `q` lists `p0` and `r0` (a role found twice is
    /// followed once); `x` has no string name, `y` lists u2 only.
    static func seed(_ db: some SQLDatabaseWriter) throws {
        var roles: [[String: Value]] = [["objectId": "q", "name": "q"], ["objectId": "x", "name": 7], ["objectId": "y", "name": "y"]]
        var users: [[String: Value]] = [["owningId": "x", "relatedId": "u1"], ["owningId": "y", "relatedId": "u2"]]
        var parents: [[String: Value]] = [["owningId": "q", "relatedId": "p0"], ["owningId": "q", "relatedId": "r0"]]
        for i in 0..<width {
            roles.append(["objectId": .string("r\(i)"), "name": .string("r\(i)")])
            roles.append(["objectId": .string("p\(i)"), "name": .string("p\(i)")])
            users.append(["owningId": .string("r\(i)"), "relatedId": "u1"])
            parents.append(["owningId": .string("p\(i)"), "relatedId": .string("r\(i)")])
        }
        try db.insert(roles, into: "_Role")
        try db.insert(users, into: "_Join:users:_Role")
        try db.insert(parents, into: "_Join:roles:_Role")
    }

    /// What u1, u2 and a user in no role are granted.
    static let expected: [String: [String]] = [
        "u1": ACLRule.normalized(["u1", "role:q"] + (0..<width).flatMap { ["role:r\($0)", "role:p\($0)"] }),
        "u2": ["*", "role:y", "u2"],
        "nobody": ["*", "nobody"],
    ]

    func testManyRolesOnSQLite() throws {
        let db = try SQLiteDatabase(path: nil)
        XCTAssertEqual(try CallerGrantees.grantees(userId: "u1", on: db), ["*", "u1"], "no _Role table")
        try Self.seed(db)
        for (user, want) in Self.expected { XCTAssertEqual(try CallerGrantees.grantees(userId: user, on: db), want, user) }
        XCTAssertEqual(try CallerGrantees.grantees(userId: nil, on: db), ["*"])
    }
}
