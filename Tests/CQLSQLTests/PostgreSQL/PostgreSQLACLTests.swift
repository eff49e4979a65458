import CQLKit
@testable import CQLSQL
import XCTest

extension PostgreSQLTests {
    /// ACLDifferentialTests on PostgreSQL: the same objects as the evaluator.
    func testACLConditionOnPostgreSQLMatchesTheEvaluator() throws {
        let tally = try ACLDifferentialTests.run(try database())
        print("ACL differential on PostgreSQL: \(tally) queries")
        XCTAssertGreaterThanOrEqual(tally, 1000)
    }

    /// The read condition is served by the class table's GIN index on its
    /// read grantees: 20,000 notes, each private to its user.
    func testACLReadConditionUsesItsIndex() throws {
        let db = try database()
        let objects: [[String: Value]] = (0..<20000).map { i in
            ["objectId": .string("o\(i)"), "ACL": .object(["u\(i)": ["read": true, "write": true]])]
        }
        try db.insert(objects, into: "Note")
        _ = try db.execute("ANALYZE \"Note\"")
        let q = ACLRule.restricting(Query(className: "Note"), to: ["u7"])
        let plan = try SQLRunner.explain(q, on: db).joined(separator: "\n")
        XCTAssertTrue(plan.contains("cql_acl_grantees(t0.\"doc\", 'read') && ARRAY[$1, $2]::text[]"), plan)
        XCTAssertTrue(plan.contains("Note:ACL"), "the plan does not use the ACL index:\n\(plan)")
        XCTAssertEqual(try SQLRunner.run(q, on: db).objects.map { $0["objectId"] }, ["o7"])
    }
}
