import CQLEval
import CQLKit
import CQLSQL
import XCTest

/// No error depends on a row the caller may not read
/// (``SQLDialect/orderingACLFirst(_:)``): a regex over its step budget on a
/// private row fails the query for a caller who reads that row, and for no
/// one else — in SQL on SQLite (where the ACL's correlated `json_each` would
/// otherwise be tested last), on the in-memory path of writes, and inside
/// subqueries.
final class ACLFirstTests: XCTestCase {
    static let privateTitle = "salary " + String(repeating: "x", count: 60)

    /// A regex that exceeds its budget on a text starting with `prefix`
    /// (lookahead, then an exponential alternation that never matches).
    static func expensive(_ prefix: String) -> Condition {
        Condition(.regex("title", pattern: .value(.string("^(?=\(prefix))(?:.|.|.|.|.|.|.|.)*(?!)")), options: ""))
    }

    static func seed(_ db: some SQLDatabaseWriter) throws {
        try db.insert([
            ["objectId": "n1", "title": .string(privateTitle), "ACL": ["owner": ["read": true]]],
            ["objectId": "n2", "title": "public"],
        ], into: "Note")
        try db.insert([["objectId": "p1", "k": "owner", "ACL": ["intruder": ["read": true, "write": true], "owner": ["read": true, "write": true]]]], into: "Probe")
    }

    func testARegexOverItsBudgetFailsOnlyForWhoReadsTheRow() throws {
        let db = try SQLiteDatabase(path: nil)
        try Self.seed(db)
        let shapes: [Query] = [
            Query(className: "Note", condition: Self.expensive("salary")),
            Query(className: "Note", condition: Condition.and([Condition(.exists("title", true)), Self.expensive("salary")])),
            Query(className: "Probe", condition: Condition(.select("k", key: "owner", query: Query(className: "Note", condition: Self.expensive("salary")),
                                                                   negated: false))),
        ]
        for q in shapes {
            for grantees in [["intruder"], []] {
                let run = try Optimizer.optimize(try Binder.bind(ACLRule.restricting(q, to: grantees), parameters: []))
                XCTAssertNoThrow(try SQLRunner.run(run, on: db), "\(grantees): \(q)")
            }
            let owner = try Optimizer.optimize(try Binder.bind(ACLRule.restricting(q, to: ["owner"]), parameters: []))
            XCTAssertThrowsError(try SQLRunner.run(owner, on: db), "the owner reads the row: the budget is met") { error in
                XCTAssertTrue("\(error)".contains("regex too expensive"), "\(error)")
            }
        }
    }

    func testAWriteConditionsSubqueryRegexFailsOnlyForWhoReadsTheRow() throws {
        let db = try SQLiteDatabase(path: nil)
        try Self.seed(db)
        func update(_ grantees: [String]) throws -> Statement {
            let sub = Query(className: "Note", condition: Self.expensive("salary"))
            let own = ACLRule.restrictingSubqueries(Condition(.select("k", key: "title", query: sub, negated: false)), to: grantees)
            let acl = Condition.and([ACLRule.condition(.read, grantees: grantees), ACLRule.condition(.write, grantees: grantees)])
            return try Binder.bind(Statement.update(UpdateStatement(
                className: "Probe", assignments: [Assignment(NamedKey("n"), .set(.value(.int(1))))],
                objectId: .value(.string("p1")), condition: Condition.and([acl, own]))), parameters: [])
        }
        XCTAssertThrowsError(try SQLWriteRunner.apply(try update(["intruder"]), on: db, now: .now)) { error in
            XCTAssertTrue("\(error)".hasPrefix("305") || "\(error)".contains("305"), "the condition is false, not failed: \(error)")
        }
        XCTAssertThrowsError(try SQLWriteRunner.apply(try update(["intruder", "owner"]), on: db, now: .now)) { error in
            XCTAssertTrue("\(error)".contains("regex too expensive"), "\(error)")
        }
    }
}
