import CQLEval
import CQLKit
@testable import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// LeanCloud's export and the key and date columns on PostgreSQL.
extension PostgreSQLTests {
    func testTheExportLoadsIntoPostgreSQLWithTheEvaluatorsAnswers() throws {
        let db = try database()
        try LeanCloudExportTests.checkExport(db) { try db.load(path: $0) }
    }

    func testDateOrdersAndRangesAreIndexScansOnPostgreSQL() throws {
        let db = try database()
        var (store, tally) = try StoredColumnTests.checkPlans(db, StoredColumnTests.todos(20000)) { plan, index in
            !plan.contains("Seq Scan") && (plan.contains("Index Scan using \"\(index)\"") || plan.contains("Index Scan Backward using \"\(index)\""))
        }
        let valine = try Binder.bind(try CQLParser.parse("select * from Todo where url = '/post/7' order by -createdAt limit 10"), parameters: [])
        let plan = try SQLRunner.explain(valine, on: db).joined(separator: "\n")
        print("postgres plan of the Valine page:\n\(plan)")
        XCTAssertTrue(plan.contains("Index"), plan)
        XCTAssertFalse(plan.contains("Seq Scan"), plan)
        XCTAssertNil(Differential.compare(valine, store: store, db: db, tally: &tally))
        let byId = try Binder.bind(try CQLParser.parse("select * from Todo order by -objectId limit 3"), parameters: [])
        XCTAssertTrue(try SQLRunner.explain(byId, on: db).joined(separator: "\n").contains("Index Scan Backward using \"Todo:objectId\""))
        XCTAssertNil(Differential.compare(byId, store: store, db: db, tally: &tally))
    }

    /// An array at createdAt marks its table (a comment): a query reading
    /// it re-checks every row, with the evaluator's answers; a query reading
    /// only another table is not held back by it.
    func testAnArrayAtCreatedAtMarksItsTableOnPostgreSQL() throws {
        let db = try database()
        var objects = StoredColumnTests.todos(60)
        objects.append(["objectId": "arr", "createdAt": .array([.string("2020-01-01T00:00:00Z"), .date(DateValue(millisecondsSince1970: 1_800_000_000_000))])])
        try db.insert(objects, into: "Todo")
        try db.insert(StoredColumnTests.todos(5), into: "Other")
        XCTAssertTrue(try db.requiresRecheck())
        XCTAssertTrue(try db.requiresRecheck(tables: ["Todo"]))
        XCTAssertTrue(try db.requiresRecheck(tables: ["Other", "Todo", "Missing"]))
        XCTAssertFalse(try db.requiresRecheck(tables: ["Other", "Missing"]))
        var tally = Differential.Tally()
        let query = try Binder.bind(try CQLParser.parse("select * from Todo order by -createdAt limit 5"), parameters: [])
        XCTAssertNil(Differential.compare(query, store: DocumentStore(["Todo": objects]), db: db, tally: &tally))
        XCTAssertEqual(tally.exact, 0)
        let other = try Binder.bind(try CQLParser.parse("select * from Other order by -createdAt limit 5"), parameters: [])
        XCTAssertNil(Differential.compare(other, store: DocumentStore(["Other": StoredColumnTests.todos(5)]), db: db, tally: &tally))
        XCTAssertEqual(tally.exact, 1)

        // The mark concerns the date columns only: a query on the marked
        // table that names neither date key stays exact (a get by id asks
        // nothing first); one naming createdAt in a subquery, or inside an
        // element match, is re-checked.
        let store = DocumentStore(["Todo": objects, "Other": StoredColumnTests.todos(5)])
        for (text, exact) in [("select * from Todo where objectId = 'arr'", true),
                              ("select * from Todo where n >= 10 and url != '/post/3' order by -n limit 5", true),
                              ("select * from Other where objectId in (select objectId from Todo where createdAt is not exists)", false),
                              ("select * from Todo where tags in ('x') or updatedAt > date('2020-01-01T00:00:00Z')", false)] {
            var t = Differential.Tally()
            let q = try Binder.bind(try CQLParser.parse(text), parameters: [])
            XCTAssertNil(Differential.compare(q, store: store, db: db, tally: &t), text)
            XCTAssertEqual(t.exact > 0, exact, text)
            XCTAssertEqual(SQLRunner.namesDateKeys(q), !exact, text)
        }
    }

    /// A table made before the date columns gets them on connect, filled
    /// from its documents.
    func testATableWithoutTheDateColumnsIsMigratedOnConnect() throws {
        let db = try database()
        let url = try XCTUnwrap(Self.server).url
        try db.execute(#"CREATE TABLE "Old" ("objectId" text PRIMARY KEY, "doc" jsonb NOT NULL, "raw" text NOT NULL, "seq" bigserial)"#)
        for o in StoredColumnTests.todos(120) {
            let json = JSONWriter.string(.object(o))
            try db.execute(#"INSERT INTO "Old" ("objectId", "doc", "raw") VALUES ($1, $2::jsonb, $2)"#, [o["objectId"]!, .string(json)])
        }
        let again = try PostgreSQLDatabase(url: url)
        let query = try Binder.bind(try CQLParser.parse("select * from Old order by -createdAt limit 30"), parameters: [])
        var tally = Differential.Tally()
        XCTAssertNil(Differential.compare(query, store: DocumentStore(["Old": StoredColumnTests.todos(120)]), db: again, tally: &tally))
        XCTAssertEqual(tally.exact, 1)
    }
}
