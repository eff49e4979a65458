import CQLEval
import CQLKit
import CQLSQL
import CorpusSupport
import XCTest

/// One meaning for the ACL condition (``ACLRule``): the evaluator, SQLite
/// and PostgreSQL (PostgreSQL/PostgreSQLACLTests.swift) find the same
/// objects readable and writable for random grantee sets, over random ACL
/// shapes — none, null, non-objects, entries that are not objects, `read`
/// false or not a boolean, role grants, keys that need quoting — also with
/// other conditions, limit, count and a subquery around it. Every query is
/// exact SQL (the database alone answers it).
final class ACLDifferentialTests: XCTestCase {
    func testACLConditionOnSQLiteMatchesTheEvaluator() throws {
        let tally = try Self.run(try SQLiteDatabase(path: nil))
        print("ACL differential on SQLite: \(tally) queries")
        XCTAssertGreaterThanOrEqual(tally, 1000)
    }

    static let grantees = ["*", "u1", "u2", "u3", "role:a", "role:b", "role:it's \"quoted\"", "a.b", "$x"]

    static func randomEntry(_ rng: inout SplitMix64) -> Value {
        let entries: [Value] = [
            ["read": true], ["write": true], ["read": true, "write": true], ["read": false, "write": false],
            ["read": "true"], ["read": 1], ["read": [true]], ["read": nil], [:], true, "read", [["read": true]], 1,
            ["read": ["read": true]],
        ]
        return entries[Int(rng.next() % UInt64(entries.count))]
    }

    static func randomACL(_ rng: inout SplitMix64) -> Value? {
        switch rng.next() % 10 {
        case 0: return nil
        case 1: return .null
        case 2: return [.string("*"), "u1"]
        case 3: return "public"
        case 4: return [["u1": ["read": true, "write": true]]]
        default:
            var o: [String: Value] = [:]
            for _ in 0..<Int(rng.next() % 4) {
                o[grantees[Int(rng.next() % UInt64(grantees.count))]] = randomEntry(&rng)
            }
            return .object(o)
        }
    }

    static func objects(seed: UInt64, count: Int) -> [[String: Value]] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            var o: [String: Value] = ["objectId": .string("o\(i)"), "n": .int(Int64(i % 7)), "ref": .pointer(Pointer(className: "T", objectId: "o\((i * 7) % count)")),
                                         "refId": .string("o\((i * 11) % count)")]
            if let acl = randomACL(&rng) { o["ACL"] = acl }
            return o
        }
    }

    /// Loads the objects into `db` and compares, per query, the objects the
    /// evaluator returns with the database's.
    /// - Returns: the queries compared.
    /// `prepare` runs once the objects are in (PostgreSQL: its document
    /// index, under which the public's grant is tested by containment).
    static func run<DB: SQLDatabaseWriter>(_ db: DB, prepare: (DB) throws -> Void = { _ in }) throws -> Int {
        let objects = objects(seed: 22, count: 300)
        try db.insert(objects, into: "T")
        try prepare(db)
        var rng = SplitMix64(seed: 2222)
        var queries = 0
        for _ in 0..<100 {
            var set: [String] = []
            for g in grantees.dropFirst() where rng.next() % 3 == 0 { set.append(g) }
            for right in ACLRight.allCases {
                let acl = ACLRule.condition(right, grantees: set)
                let shapes: [Query] = [
                    Query(className: "T", condition: acl),
                    Query(className: "T", count: .withResults, condition: Condition.and([Condition(.compare("n", .greaterThan, .value(.int(2)))), acl]),
                          order: [OrderKey("n", descending: true)], limit: .value(.int(10))),
                    Query(className: "T", condition: Condition.or([Condition.not(acl), Condition(.compare("n", .equal, .value(.int(0))))])),
                    // An equality on a key: PostgreSQL asks whether the
                    // document index is there (the containment test's condition).
                    Query(className: "T", condition: Condition.and([Condition(.compare("n", .equal, .value(.int(3)))), acl])),
                    ACLRule.restricting(Query(className: "T", condition: Condition(.inQuery("ref", query: Query(className: "T"), negated: false))), to: set),
                    ACLRule.restricting(Query(className: "T", condition: Condition(.select("refId", key: "objectId", query: Query(className: "T"), negated: true))), to: set),
                ]
                for (i, q) in shapes.enumerated() {
                    // Exact SQL: the database answers alone (PostgreSQL has
                    // no exact `$select` on a string key: re-checked, still compared).
                    let translation = i == 5 && db.dialect == .postgres
                        ? try SQLGenerator.pushdown(q, dialect: db.dialect) : try SQLGenerator.translate(q, dialect: db.dialect)
                    let sql = try SQLRunner.run(q, on: db)
                    let eval = try QueryPlan(q, store: DocumentStore(["T": objects])).run()
                    let ids = { (os: [[String: Value]]) in os.map { $0["objectId"]?.stringValue ?? "?" } }
                    XCTAssertEqual(ids(sql.objects), ids(eval.objects), "\(db.dialect) grantees \(set) \(right): \(translation.select.sql)")
                    XCTAssertEqual(sql.count, eval.count, "\(db.dialect) grantees \(set) \(right): count")
                    queries += 1
                }
            }
        }
        return queries
    }
}
