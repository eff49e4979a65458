import CQLEval
import CQLKit
@testable import CQLSQL
import CorpusSupport
import XCTest

extension PostgreSQLTests {
    /// ACLDifferentialTests on PostgreSQL: the same objects as the evaluator.
    func testACLConditionOnPostgreSQLMatchesTheEvaluator() throws {
        let tally = try ACLDifferentialTests.run(try database())
        print("ACL differential on PostgreSQL: \(tally) queries")
        XCTAssertGreaterThanOrEqual(tally, 1000)
    }

    /// The same with the class's document index, under which the public's
    /// grant is first tested by containment (`doc @> '{"ACL": {"*": ...}}'`):
    /// the same objects again, over every ACL shape the suite makes.
    func testACLConditionWithTheDocumentIndexMatchesTheEvaluator() throws {
        let db = try database()
        let tally = try ACLDifferentialTests.run(db) { db in try db.createIndexes("T", keys: []) }
        XCTAssertGreaterThanOrEqual(tally, 1000)
        let anonymous = ACLRule.restricting(Query(className: "T", condition: Condition(.compare("n", .equal, .value(.int(3))))), to: [])
        let sql = try SQLRunner.explain(anonymous, on: db).joined(separator: "\n")
        XCTAssertTrue(sql.contains(#"(t0."doc" @> '{"ACL": {"*": {"read": true}}}'::jsonb OR cql_acl_grantees(t0."doc", 'read') && '{*}'::text[])"#), sql)
    }

    /// The function's body replaces an earlier one when the database is
    /// opened, and answers as the sub-select it replaced over every ACL shape.
    func testAnEarlierACLFunctionBodyIsReplacedWithTheSameAnswers() throws {
        let db = try database()
        _ = try db.execute("""
            CREATE OR REPLACE FUNCTION \(SQLACL.postgresFunction)(doc jsonb, access text) RETURNS text[]
            LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $cql$
            BEGIN
                IF NOT (doc ? 'ACL') OR jsonb_typeof(doc -> 'ACL') = 'null' THEN RETURN ARRAY['*']; END IF;
                IF jsonb_typeof(doc -> 'ACL') <> 'object' THEN RETURN ARRAY[]::text[]; END IF;
                RETURN ARRAY(SELECT e.key FROM jsonb_each(doc -> 'ACL') AS e
                             WHERE jsonb_typeof(e.value) = 'object' AND (e.value -> access) = 'true'::jsonb);
            END
            $cql$
            """)
        try db.insert(ACLDifferentialTests.objects(seed: 5, count: 400), into: "Shapes")
        _ = try db.execute(#"CREATE TABLE "cql_test_earlier" AS SELECT "objectId", cql_acl_grantees("doc", 'read') AS r, cql_acl_grantees("doc", 'write') AS w FROM "Shapes""#)
        let reopened = try PostgreSQLDatabase(url: try XCTUnwrap(Self.server).url)
        let body = try reopened.strings(try reopened.execute("SELECT prosrc FROM pg_proc WHERE proname = $1", [.string(SQLACL.postgresFunction)]))
        XCTAssertEqual(body, [SQLACL.postgresFunctionBody])
        let differing = try reopened.strings(try reopened.execute(#"""
            SELECT s."objectId" FROM "Shapes" s JOIN "cql_test_earlier" e USING ("objectId")
            WHERE cql_acl_grantees(s."doc", 'read') IS DISTINCT FROM e.r OR cql_acl_grantees(s."doc", 'write') IS DISTINCT FROM e.w
            """#))
        XCTAssertEqual(differing, [])
        _ = try reopened.execute(#"DROP TABLE "cql_test_earlier""#)
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
        XCTAssertTrue(plan.contains("(cql_acl_grantees(t0.\"doc\", 'read') && '{*}'::text[] OR cql_acl_grantees(t0.\"doc\", 'read') && ARRAY[$1]::text[])"), plan)
        XCTAssertTrue(plan.contains("Note:ACL"), "the plan does not use the ACL index:\n\(plan)")
        XCTAssertEqual(try SQLRunner.run(q, on: db).objects.map { $0["objectId"] }, ["o7"])
    }

    /// A class of public objects (a blog's comments): an anonymous count of
    /// a page's comments, run again and again as a server does, keeps its `url` index in the
    /// generic plan of its prepared statement — PostgreSQL weighs the
    /// literal `*` with the ACL index's statistics (every row) — instead of
    /// reading the whole ACL index for `*`.
    func testAPublicClassKeepsItsSelectiveIndexInTheGenericPlan() throws {
        _ = try database()
        let db = try PostgreSQLDatabase(url: try XCTUnwrap(Self.server).url)
        let objects: [[String: Value]] = (0..<20000).map { i in
            ["objectId": .string("c\(i)"), "url": .string("/p/\(i % 400)/"), "ACL": .object(["*": ["read": true]])]
        }
        try db.insert(objects, into: "Comment")
        try db.createIndexes("Comment", keys: ["url"])
        _ = try db.execute("ANALYZE \"Comment\"")
        let count = try Binder.bind(try CQLParser.parse("select count(*) from Comment where url = ?"), parameters: [.string("/p/7/")])
        let q = ACLRule.restricting(count, to: [])
        for _ in 0..<7 { XCTAssertEqual(try SQLRunner.run(q, on: db).count, 50) }
        let statements = try db.strings(try db.execute(
            #"SELECT name FROM pg_prepared_statements WHERE name LIKE 'cql\_%' AND statement LIKE '%"Comment"%url%' AND statement LIKE '%count(*)%'"#))
        XCTAssertEqual(statements.count, 1, "\(statements)")
        let name = try XCTUnwrap(statements.first)
        _ = try db.execute("SET plan_cache_mode = force_generic_plan")
        defer { _ = try? db.execute("RESET plan_cache_mode") }
        let arguments = try XCTUnwrap(try SQLGenerator.pushdown(q, dialect: .postgres, arrayFreeKeys: ["url"]).count).arguments
        // EXECUTE takes no bound parameters: the test's own values, as literals.
        let literals = try arguments.map { a -> String in
            switch a {
            case .string(let t): return "'" + t.replacingOccurrences(of: "'", with: "''") + "'"
            case .int(let i): return "\(i)"
            default: throw PostgreSQLServer.Failure(description: "unexpected argument \(a)")
            }
        }
        let plan = try db.strings(try db.execute("EXPLAIN EXECUTE \(name)(\(literals.joined(separator: ", ")))")).joined(separator: "\n")
        XCTAssertTrue(plan.contains("Comment:url:string"), plan)
        XCTAssertFalse(plan.contains("Comment:ACL"), "the generic plan reads the ACL index:\n\(plan)")
        // The cause, seen on a table this small too: the planner knows every
        // row is public (the scan keeps its 50 rows); with `*` bound it
        // guessed 1 row, and on 100,000 comments chose the ACL index.
        let scan = try XCTUnwrap(plan.split(separator: "\n").first { $0.contains("on \"Comment\"") }, plan)
        let rows = try XCTUnwrap(scan.firstMatch(of: /rows=([0-9]+)/).map { Int($0.1) } ?? nil, String(scan))
        XCTAssertGreaterThanOrEqual(rows, 25, plan)
    }
}
