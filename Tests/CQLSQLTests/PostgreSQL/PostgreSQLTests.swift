import CQLEval
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// The SQL backend on a real PostgreSQL 15, started for these tests
/// (``PostgreSQLServer``) and stopped after them. If it cannot start, every
/// test here fails with the reason: never skipped.
final class PostgreSQLTests: XCTestCase {
    nonisolated(unsafe) static var server: PostgreSQLServer?
    nonisolated(unsafe) static var startFailure: String?
    nonisolated(unsafe) static var connection: PostgreSQLDatabase?

    override class func setUp() {
        super.setUp()
        do {
            let s = try PostgreSQLServer()
            server = s
            try s.start()
            connection = try PostgreSQLDatabase(url: s.url)
        } catch {
            startFailure = "PostgreSQL could not start: \(error)"
        }
    }

    override class func tearDown() {
        connection = nil
        server?.stop()
        server = nil
        super.tearDown()
    }

    /// The connection, emptied.
    func database() throws -> PostgreSQLDatabase {
        if let failure = Self.startFailure { throw PostgreSQLServer.Failure(description: failure) }
        let db = try XCTUnwrap(Self.connection)
        try db.reset()
        return db
    }

    func testEvalCorpusOnPostgreSQL() throws {
        let tally = try EvalCorpusDifferentialTests.run(self, "PostgreSQL") { try self.database() }
        XCTAssertGreaterThan(tally.queries, 300)
    }

    func testRandomQueriesOnPostgreSQL() throws {
        let tally = try RandomSQLDifferentialTests.run("PostgreSQL", keepNUL: { _ in false }) { try self.database() }
        if RandomSQLDifferentialTests.seeds.count > 1 { XCTAssertGreaterThanOrEqual(tally.queries, 2000) }
    }

    /// HostileInputTests on PostgreSQL: quotes, `;`, comments, `$`-keys and
    /// NUL (in queries only: jsonb cannot store it) through every operator.
    func testHostileInputsOnPostgreSQL() throws {
        let tally = try HostileInputTests.hostileInputs(storesNUL: false) { try self.database() }
        print("hostile inputs on PostgreSQL: \(tally.queries) queries, \(tally.rows) rows compared; \(tally.exact) exact in SQL, \(tally.prefiltered) prefiltered")
        XCTAssertGreaterThan(tally.rows, 1000)
        // Every query orders by its key, and half the objects hold an array
        // there: those orders fail loudly and run re-checks every row.
        XCTAssertGreaterThan(tally.exact, 300)
    }

    func testOneMegabyteValuesOnPostgreSQL() throws {
        try HostileInputTests.oneMegabyteValues(try database())
    }

    func testABadLineAbortsTheLoadAndLeavesTheDatabaseAsItWas() throws {
        let db = try database()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-pg-load-\(getpid())")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("a"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("b"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"objectId":"t1","n":1}\#n{"objectId":"t2","n":2}\#n"#.write(to: dir.appendingPathComponent("a/T.ndjson"), atomically: true, encoding: .utf8)
        try db.load(path: dir.appendingPathComponent("a").path)
        let all = try SQLGenerator.pushdown(Query(className: "T"), dialect: .postgres).select
        let before = try db.documents(all)
        XCTAssertEqual(before.count, 2)
        // More T rows and a new class U whose second line is bad.
        try #"{"objectId":"t3"}\#n"#.write(to: dir.appendingPathComponent("b/T.ndjson"), atomically: true, encoding: .utf8)
        try #"{"objectId":"u1"}\#n{"objectId":"u2",}\#n"#.write(to: dir.appendingPathComponent("b/U.ndjson"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try db.load(path: dir.appendingPathComponent("b").path)) { error in
            let m = (error as? QueryError)?.message ?? "\(error)"
            XCTAssertTrue(m.contains("U.ndjson:2:"), m)
        }
        XCTAssertEqual(try db.documents(all), before)
        XCTAssertFalse(try db.tableNames().contains("U"))
        // A duplicate objectId: the database's error, named by file and line.
        try #"{"objectId":"t9"}\#n{"objectId":"t1"}\#n"#.write(to: dir.appendingPathComponent("b/U.ndjson"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("b/T.ndjson"))
        try #"{"objectId":"t9"}\#n{"objectId":"t1"}\#n"#.write(to: dir.appendingPathComponent("b/T.ndjson"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try db.load(path: dir.appendingPathComponent("b").path)) { error in
            let m = (error as? QueryError)?.message ?? "\(error)"
            XCTAssertTrue(m.contains("T.ndjson:2: duplicate key"), m)
        }
        XCTAssertEqual(try db.documents(all), before)
    }

    func testIndexedEqualityUsesTheIndex() throws {
        let db = try database()
        // Enough rows that the planner prefers the index to a scan.
        var objects: [[String: Value]] = []
        for i in 0..<5000 { objects.append(["objectId": .string("g\(i)"), "score": .int(Int64(i % 997)), "name": .string("n\(i)")]) }
        try db.insert(objects, into: "GameScore")
        try db.load(path: Corpus.root.appendingPathComponent("data").path, className: nil, indexes: ["score"])
        let query = try Binder.bind(try CQLParser.parse("select * from GameScore where score = 1200"), parameters: [])
        let plan = try SQLRunner.explain(query, on: db).filter { !$0.hasPrefix("--") }
        XCTAssertEqual(plan.map { $0.replacingOccurrences(of: #"\(cost=.*\)"#, with: "", options: .regularExpression) }, [
            "Sort  ",
            "  Sort Key: seq",
            "  ->  Bitmap Heap Scan on \"GameScore\" t0  ",
            "        Recheck Cond: (doc @? '$.\"score\"?(@.type() != \"array\" && @ == 1200)'::jsonpath)",
            "        ->  Bitmap Index Scan on \"GameScore:doc\"  ",
            "              Index Cond: (doc @? '$.\"score\"?(@.type() != \"array\" && @ == 1200)'::jsonpath)",
        ])
        // And the answer is the evaluator's.
        let store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        var tally = Differential.Tally()
        XCTAssertNil(Differential.compare(query, store: DocumentStore(["GameScore": objects + store.objects(in: "GameScore")]), db: db, tally: &tally))
    }
}
