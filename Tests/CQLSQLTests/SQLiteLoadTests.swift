import CQLEval
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// `cql load` into SQLite: one transaction (a bad line leaves the database
/// as it was), the indexes of `--index`, and the plans that use them.
final class SQLiteLoadTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-sqlite-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ lines: [String]) throws -> String {
        let sub = dir.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(to: sub.appendingPathComponent(name), atomically: true, encoding: .utf8)
        return sub.path
    }

    /// Every table with all its rows, to compare a database before and after.
    func snapshot(_ db: SQLiteDatabase) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for table in try db.tableNames() where !table.hasPrefix("_Join:") {
            let all = try SQLGenerator.pushdown(Query(className: table), dialect: .sqlite)
            out[table] = try db.documents(all.select)
        }
        return out
    }

    /// What the generated SQL calls is what SQLiteDatabase registers (the
    /// fuzzer's stand-ins come from the same list).
    func testEveryFunctionAndCollationTheDialectCallsIsRegistered() throws {
        let db = try SQLiteDatabase(path: nil)
        for (name, arity) in SQLiteDialect.registeredFunctions {
            let args = Array(repeating: "NULL", count: arity).joined(separator: ", ")
            XCTAssertNoThrow(try db.plan(SQLStatement(sql: "SELECT \(name)(\(args))", arguments: [])), name)
        }
        for name in SQLiteDialect.registeredCollations {
            XCTAssertNoThrow(try db.plan(SQLStatement(sql: "SELECT 'a' < 'b' COLLATE \(name)", arguments: [])), name)
        }
        XCTAssertThrowsError(try db.plan(SQLStatement(sql: "SELECT cql_nothing(NULL)", arguments: [])))
    }

    func testABadLineAbortsTheLoadAndLeavesTheDatabaseAsItWas() throws {
        let path = dir.appendingPathComponent("a.db").path
        let db = try SQLiteDatabase(path: path)
        try db.load(path: try write("T.ndjson", [#"{"objectId":"t1","n":1}"#, #"{"objectId":"t2","n":2}"#]))
        let before = try snapshot(db)
        XCTAssertEqual(before["T"]?.count, 2)

        // A second class and more T rows, with a bad line in the middle of U.
        let bad = try write("U.ndjson", [#"{"objectId":"u1","n":1}"#, #"{"objectId":"u2","n":}"#, #"{"objectId":"u3"}"#])
        XCTAssertThrowsError(try db.load(path: bad)) { error in
            let message = (error as? QueryError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains("U.ndjson:2:"), message)
        }
        XCTAssertEqual(try snapshot(db), before)
        XCTAssertFalse(try db.tableNames().contains("U"))

        // A duplicate objectId is a bad line too, named by file and line.
        let dup = try write("T.ndjson", [#"{"objectId":"t3"}"#, #"{"objectId":"t1"}"#])
        XCTAssertThrowsError(try db.load(path: dup)) { error in
            let message = (error as? QueryError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains("T.ndjson:2:"), message)
            XCTAssertTrue(message.contains("UNIQUE"), message)
        }
        XCTAssertEqual(try snapshot(db), before)

        // Reopened from the file: still the same.
        XCTAssertEqual(try snapshot(try SQLiteDatabase(path: path)), before)
    }

    func testIndexedEqualityUsesTheIndex() throws {
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("i.db").path)
        try db.load(path: Corpus.root.appendingPathComponent("data").path, indexes: ["score"])
        let query = try Binder.bind(try CQLParser.parse("select * from GameScore where score = 1200"), parameters: [])
        let plan = try SQLRunner.explain(query, on: db)
        let text = plan.filter { !$0.hasPrefix("--") }.joined(separator: "\n")
        // No score is an array (the type index's probe proves it): the
        // equality is one index search on the value and its type.
        XCTAssertEqual(text, """
            SEARCH t0 USING INDEX GameScore:score:value (<expr>=? AND <expr>=?)
            USE TEMP B-TREE FOR ORDER BY
            """)
        XCTAssertTrue(plan.contains("-- no array at: score (their index says so: no array branch)"), plan.joined(separator: "\n"))
        XCTAssertTrue(plan[0].contains("exact"), plan[0])
        // `in` and a prefix LIKE take the same indexes.
        for cql in ["select * from GameScore where score in (1200, 60)", "select * from GameScore where score > 1000"] {
            let q = try Binder.bind(try CQLParser.parse(cql), parameters: [])
            XCTAssertTrue(try SQLRunner.explain(q, on: db).contains { $0.contains("USING INDEX GameScore:score:") }, cql)
        }
        try db.load(path: try write("Name.ndjson", [#"{"objectId":"x"}"#]), indexes: ["name"])
        let like = try Binder.bind(try CQLParser.parse("select * from GameScore where name like 'den%'"), parameters: [])
        let likePlan = try SQLRunner.explain(like, on: db)
        XCTAssertTrue(likePlan.contains { $0.contains("USING INDEX GameScore:name:") },
                      likePlan.joined(separator: "\n"))
        // And the answers are the evaluator's.
        let store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        var tally = Differential.Tally()
        for q in [query, like] { XCTAssertNil(Differential.compare(q, store: store, db: db, tally: &tally)) }
    }

    /// A Valine page — an equality on an indexed key, then the newest ten —
    /// reads its rows in order from the key's index; once an array is stored
    /// at the key, the probe sees it and the array branch is back, with the
    /// evaluator's answers both times.
    func testAnOrderAfterAnEqualityOnAnArrayFreeKeyIsAnIndexScanUntilAnArrayArrives() throws {
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("page.db").path)
        var lines: [String] = []
        for i in 0..<200 {
            let day = String(format: "%02d", i % 28 + 1), minute = String(format: "%02d", i % 60)
            lines.append(#"{"objectId":"c\#(i)","url":"/p/\#(i % 7)/","createdAt":"2026-01-\#(day)T10:\#(minute):00.000Z"}"#)
        }
        lines.append(#"{"objectId":"n1","url":"/p/1/"}"#)
        lines.append(#"{"objectId":"n2","url":"/p/1/","createdAt":7}"#)
        var data = try write("Comment.ndjson", lines)
        try db.load(path: data, indexes: ["url"])
        let page = try Binder.bind(try CQLParser.parse("select * from Comment where url = '/p/1/' order by -createdAt limit 10"), parameters: [])
        let count = try Binder.bind(try CQLParser.parse("select count(*) from Comment where url = '/p/1/'"), parameters: [])
        let plan = try SQLRunner.explain(page, on: db)
        XCTAssertEqual(plan.filter { !$0.hasPrefix("--") }, [
            "SEARCH t0 USING INDEX Comment:url:value (<expr>=? AND <expr>=?)", "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY",
        ], plan.joined(separator: "\n"))
        func compare() throws {
            let store = try DocumentStore.load(path: data)
            var tally = Differential.Tally()
            for q in [page, count] { XCTAssertNil(Differential.compare(q, store: store, db: db, tally: &tally)) }
        }
        try compare()
        // An array holding the url: the page must include it.
        lines.append(#"{"objectId":"a1","url":["/x/","/p/1/"],"createdAt":"2027-01-01T00:00:00.000Z"}"#)
        try db.insert([try DataFiles.object(json: lines.last!)], into: "Comment")
        data = try write("Comment.ndjson", lines)
        let after = try SQLRunner.explain(page, on: db)
        XCTAssertFalse(after.contains { $0.hasPrefix("-- no array at") }, after.joined(separator: "\n"))
        XCTAssertEqual(try SQLRunner.run(page, on: db).objects.first?["objectId"], .string("a1"))
        try compare()
    }
    /// The statistics `load --index` leaves count whole indexes: with a
    /// sample (`analysis_limit = 1000`, as before), three urls of 1,800
    /// rows each made the value index look no better than the type index
    /// (1,001 rows a value each) and `url = ? limit 1` walked every row
    /// through the type index.
    func testTheStatisticsAfterALoadCountTheWholeIndexes() throws {
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("stats.db").path)
        var lines: [String] = []
        for i in 0..<6000 { lines.append(#"{"objectId":"c\#(i)","url":"\#(i % 10 == 0 ? "/u/\(i)/" : "/p/\(i % 3)/")"}"#) }
        try db.load(path: try write("Comment.ndjson", lines), indexes: ["url"])
        let stats = try db.documents(SQLStatement(sql: "SELECT \"idx\" || ' ' || \"stat\" AS \"doc\" FROM sqlite_stat1 WHERE \"idx\" LIKE 'Comment:url:%' ORDER BY 1", arguments: []))
        XCTAssertEqual(stats, ["Comment:url:type 6000 6000", "Comment:url:value 6000 10 10 10"])
        let rare = try Binder.bind(try CQLParser.parse("select * from Comment where url = '/u/70/' limit 1"), parameters: [])
        let plan = try SQLRunner.explain(rare, on: db)
        XCTAssertEqual(plan.filter { !$0.hasPrefix("--") }.first, "SEARCH t0 USING INDEX Comment:url:value (<expr>=? AND <expr>=?)", plan.joined(separator: "\n"))
        XCTAssertEqual(try SQLRunner.run(rare, on: db).objects.first?["objectId"], .string("c70"))
    }
    /// A range of objectIds (a scan's cursor) runs on the key column, by
    /// code point as the evaluator compares, through the primary key: in
    /// `cql_match` each page read the key index from its start, and a
    /// 1,000,000-object pull slowed to 1,633 objects/s.
    func testAnObjectIdRangeRunsOnTheKey() throws {
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("ids.db").path)
        let ids = (0..<300).map { String(format: "c%04d", $0) } + ["Zed", "é1", "日本", "c0100x"]
        let data = try write("Item.ndjson", ids.map { #"{"objectId":"\#($0)","n":1}"# })
        try db.load(path: data)
        let store = try DocumentStore.load(path: data)
        var tally = Differential.Tally()
        for cql in ["select * from Item where objectId > 'c0100' order by objectId limit 10",
                    "select * from Item where objectId >= 'c0299' and objectId < 'é' order by objectId",
                    "select * from Item where objectId <= 'Zed' order by -objectId limit 3",
                    "select count(*) from Item where objectId > 'c'"] {
            let q = try Binder.bind(try CQLParser.parse(cql), parameters: [])
            XCTAssertNil(Differential.compare(q, store: store, db: db, tally: &tally), cql)
            let plan = try SQLRunner.explain(q, on: db)
            XCTAssertTrue(plan.contains { $0.contains("-- sql:") && $0.contains("t0.\"objectId\" ") && !$0.contains("cql_match") }, plan.joined(separator: "\n"))
            // (A count of nearly every row scans the table, as it should.)
            if !cql.contains("count") {
                XCTAssertTrue(plan.contains { $0.contains("USING INDEX sqlite_autoindex_Item_1 (objectId") }, plan.joined(separator: "\n"))
            }
        }
    }
}
