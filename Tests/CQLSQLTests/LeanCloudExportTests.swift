import CQLEval
import CQLKit
@testable import CQLSQL
import CorpusSupport
import Foundation
import GRDB
import XCTest

/// LeanCloud's export (``LeanCloudExport``) read by `cql eval --data` and
/// loaded into SQLite: the same objects, in part order, with the same
/// answers; and the errors a malformed export or an archive gets.
final class LeanCloudExportTests: XCTestCase {
    /// Loads the export into `db` and checks every query of the fixture
    /// against the evaluator over the same files.
    static func checkExport(_ db: some SQLDatabaseWriter, load: (String) throws -> [String: Int], file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try LeanCloudExport.write()
        defer { try? FileManager.default.removeItem(at: dir) }
        let counts = try load(dir.path)
        XCTAssertEqual(counts, ["Todo": 7, "Counter": 1, "_User": 1], file: file, line: line)
        let store = try DocumentStore.load(path: dir.path)
        XCTAssertEqual(store.objects(in: "Todo").map { $0["objectId"]?.stringValue ?? "" }, LeanCloudExport.todoIds, file: file, line: line)
        var tally = Differential.Tally()
        for text in LeanCloudExport.queries {
            let query = try Binder.bind(try CQLParser.parse(text), parameters: [])
            XCTAssertNil(Differential.compare(query, store: store, db: db, tally: &tally), text, file: file, line: line)
        }
        // The user keeps its password hash and salt; typed values stay typed.
        let users = try SQLRunner.run(try Binder.bind(try CQLParser.parse("select * from _User"), parameters: []), on: db).objects
        XCTAssertEqual(users.first?["password"], .string("$2a$10$abcdefghijklmnopqrstuv"), file: file, line: line)
        XCTAssertEqual(users.first?["salt"], .string("s4lt"), file: file, line: line)
        XCTAssertEqual(users.first?["birthday"], .date(ISODate.parse("1990-05-17T00:00:00.000Z")!), file: file, line: line)
        XCTAssertGreaterThan(tally.exact, 8, file: file, line: line)
    }

    func testTheExportLoadsIntoSQLiteWithTheEvaluatorsAnswers() throws {
        let db = try SQLiteDatabase(path: nil)
        try Self.checkExport(db) { try db.load(path: $0) }
    }

    func testTheEvaluatorReadsPartsInOrderAndTheHeaderNamesTheClass() throws {
        let dir = try LeanCloudExport.write()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try DataFiles.files(at: dir.path)
        XCTAssertEqual(files.map { URL(fileURLWithPath: $0.path).lastPathComponent }, [
            "Todo.0.json", "Todo.2.json", "Todo.10.json", "_User.0.json", "export-counter.0.jsonl",
        ])
        XCTAssertEqual(files.map(\.className), ["Todo", "Todo", "Todo", "_User", "Counter"])
        // One part alone: its header names the class, not the file name.
        let one = try DataFiles.files(at: dir.appendingPathComponent("export-counter.0.jsonl").path)
        XCTAssertEqual(one.map(\.className), ["Counter"])
        var lines: [Int] = []
        try DataFiles.forEachObject(inFile: dir.appendingPathComponent("Todo.0.json").path) { _, line in lines.append(line) }
        XCTAssertEqual(lines, [2, 3])
        // The project's own .json arrays are still arrays.
        try Data("[\n{\"objectId\":\"a\"},\n{\"objectId\":\"b\"}\n]\n".utf8).write(to: dir.appendingPathComponent("Arr.json"))
        try Data("{\"results\":[{\"objectId\":\"r\"}]}\n".utf8).write(to: dir.appendingPathComponent("Rest.json"))
        // Lines without a header: JSON Lines too.
        try Data("{\"objectId\":\"l1\"}\n{\"objectId\":\"l2\"}\n".utf8).write(to: dir.appendingPathComponent("Lines.json"))
        let store = try DocumentStore.load(path: dir.path)
        XCTAssertEqual(store.objects(in: "Arr").count, 2)
        XCTAssertEqual(store.objects(in: "Rest").count, 1)
        XCTAssertEqual(store.objects(in: "Lines").count, 2)
        XCTAssertEqual(store.objects(in: "Counter").first?["value"], .int(41))
    }

    func testAHeaderLineAfterTheFirstLineIsAnErrorWithFileAndLine() throws {
        let dir = try LeanCloudExport.write()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("Todo.2.json").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try Data((text + "#filetype:JSON-streaming;version=1.0;class=Todo\n").utf8).write(to: URL(fileURLWithPath: path))
        for load in [
            { () throws -> Void in _ = try DocumentStore.load(path: dir.path) },
            { () throws -> Void in try SQLiteDatabase(path: nil).load(path: dir.path) },
        ] {
            XCTAssertThrowsError(try load()) { error in
                XCTAssertEqual((error as? QueryError)?.message, "\(path):4: a '#' header line may only be the first line of a file")
            }
        }
    }

    func testAnArchiveSaysHowToUnpackIt() throws {
        let dir = try LeanCloudExport.write()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = dir.appendingPathComponent("export.tar.gz").path
        try Data([0x1F, 0x8B, 0x08, 0x00]).write(to: URL(fileURLWithPath: archive))
        XCTAssertThrowsError(try SQLiteDatabase(path: nil).load(path: archive)) { error in
            let m = (error as? QueryError)?.message ?? ""
            XCTAssertEqual(m, "\(archive): an archive, which is not read directly: unpack it first (mkdir DIR && tar xzf \(archive) -C DIR), then load DIR")
        }
        XCTAssertThrowsError(try DocumentStore.load(path: archive)) { error in
            XCTAssertTrue(((error as? QueryError)?.message ?? "").contains("tar xzf"))
        }
        // Beside the parts it is ignored.
        XCTAssertEqual(try DocumentStore.load(path: dir.path).objects(in: "Todo").count, 7)
    }

    /// `exec --data` rewrites one file per class: a class in several parts is
    /// refused by name, and a one-part class keeps its header line and lines.
    func testExecOnAnExportRefusesSeveralPartsAndKeepsTheForm() throws {
        let dir = try LeanCloudExport.write()
        defer { try? FileManager.default.removeItem(at: dir) }
        let now = ISODate.parse("2024-04-01T00:00:00.000Z")!
        let update = try Binder.bind(try CQLParser.parseStatement("update Todo set title = 'x' where objectId = 't1'"), parameters: [])
        XCTAssertThrowsError(try DataDirectory.apply(update, path: dir.path, now: now)) { error in
            XCTAssertTrue(((error as? QueryError)?.message ?? "").contains("has several data files (Todo.0.json, Todo.2.json, Todo.10.json)"), "\(error)")
        }
        let counter = try Binder.bind(try CQLParser.parseStatement("update Counter set value = op('Increment', {'amount': 1}) where objectId = 'c1'"), parameters: [])
        _ = try DataDirectory.apply(counter, path: dir.path, now: now)
        let lines = try String(contentsOf: dir.appendingPathComponent("export-counter.0.jsonl"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.first, "#filetype:JSON-streaming;version=1.0;class=Counter")
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(try DocumentStore.load(path: dir.path).objects(in: "Counter").first?["value"], .int(42))
    }

    func testProgressLineText() {
        XCTAssertEqual(LoadProgress.line(objects: 1_234_567, bytes: 120 << 20, total: 800 << 20, seconds: 2), "1,234,567 objects, 120.0 of 800.0 MB, 60.0 MB/s, 0:12 left")
    }
}

/// The key and date columns (``SQLStoredColumns``): the orders and ranges
/// apps send most are index scans, and a database made before the columns
/// gets them on open.
final class StoredColumnTests: XCTestCase {
    /// `count` Todo objects, createdAt a minute apart (every 50th missing,
    /// a number, or a typed Date), and a `url` for the Valine page.
    static func todos(_ count: Int) -> [[String: Value]] {
        (0..<count).map { i in
            var o: [String: Value] = ["objectId": .string("o\(i)"), "url": .string("/post/\(i % 100)"), "n": .int(Int64(i))]
            let date = DateValue(millisecondsSince1970: 1_700_000_000_000 + Int64(i % 977) * 60_000)
            switch i % 50 {
            case 7: break
            case 8: o["createdAt"] = .int(Int64(i))
            case 9: o["createdAt"] = .date(date)
            default: o["createdAt"] = .string(ISODate.format(date))
            }
            o["updatedAt"] = o["createdAt"]
            return o
        }
    }

    static let planQueries = [
        "select * from Todo order by -createdAt limit 10",
        "select * from Todo order by createdAt limit 10",
        "select * from Todo where createdAt >= date('2023-11-14T23:00:00.000Z') order by -createdAt limit 10",
        "select * from Todo order by -updatedAt limit 5",
    ]

    /// Loads `objects` as Todo into `db` (an empty load with `--index url`:
    /// the indexes and the statistics), checks that each of ``planQueries``
    /// is exact and an index scan (`usesIndex(plan, index)`), with the
    /// evaluator's answer; returns the evaluator's store and the tally.
    static func checkPlans(
        _ db: some SQLDatabaseWriter, _ objects: [[String: Value]], usesIndex: (String, String) -> Bool
    ) throws -> (DocumentStore, Differential.Tally) {
        try db.insert(objects, into: "Todo")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try db.load(path: dir.path, className: nil, indexes: ["url"])
        let store = DocumentStore(["Todo": objects])
        var tally = Differential.Tally()
        for (text, index) in zip(planQueries, ["Todo:createdAt", "Todo:createdAt", "Todo:createdAt", "Todo:updatedAt"]) {
            let query = try Binder.bind(try CQLParser.parse(text), parameters: [])
            let plan = try SQLRunner.explain(query, on: db).joined(separator: "\n")
            print("\(db.dialect.rawValue) plan of \(text):\n\(plan)")
            XCTAssertTrue(plan.contains("-- exact"), plan)
            XCTAssertTrue(usesIndex(plan, index), plan)
            XCTAssertNil(Differential.compare(query, store: store, db: db, tally: &tally), text)
        }
        return (store, tally)
    }

    func testDateOrdersAndRangesAreIndexScansOnSQLite() throws {
        let db = try SQLiteDatabase(path: nil)
        var (store, tally) = try Self.checkPlans(db, Self.todos(3000)) { plan, index in
            plan.contains("SCAN t0 USING INDEX \(index)") || plan.contains("SEARCH t0 USING INDEX \(index)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // The Valine page: an index either way, by the statistics: the url's
        // indexes find the page's rows (then sorted), or a walk of the date
        // index stops at the page's tenth row.
        let valine = try Binder.bind(try CQLParser.parse("select * from Todo where url = '/post/7' order by -createdAt limit 10"), parameters: [])
        let plan = try SQLRunner.explain(valine, on: db).joined(separator: "\n")
        XCTAssertTrue(plan.hasPrefix("-- exact") && (plan.contains("SEARCH t0 USING INDEX Todo:url:value") || plan.contains("SCAN t0 USING INDEX Todo:createdAt")), plan)
        XCTAssertNil(Differential.compare(valine, store: store, db: db, tally: &tally))
        let pages = Self.todos(3000).enumerated().map { i, o in o.merging(["url": .string("/page/\(i)")]) { $1 } }
        let db2 = try SQLiteDatabase(path: nil)
        try db2.insert(pages, into: "Todo")
        try db2.load(path: dir.path, indexes: ["url"])
        let page = try Binder.bind(try CQLParser.parse("select * from Todo where url = '/page/7' order by -createdAt limit 10"), parameters: [])
        let pagePlan = try SQLRunner.explain(page, on: db2).joined(separator: "\n")
        // No url is an array: the (value, type, createdAt) index serves the
        // equality and the order, so only ties of createdAt are sorted.
        XCTAssertTrue(pagePlan.contains("SEARCH t0 USING INDEX Todo:url:value (<expr>=? AND <expr>=?)\nUSE TEMP B-TREE FOR RIGHT PART OF ORDER BY"), pagePlan)
        XCTAssertNil(Differential.compare(page, store: DocumentStore(["Todo": pages]), db: db2, tally: &tally))
        // By id: the key column.
        let byId = try Binder.bind(try CQLParser.parse("select * from Todo order by -objectId limit 3"), parameters: [])
        XCTAssertTrue(try SQLRunner.explain(byId, on: db).joined(separator: "\n").contains("USING INDEX sqlite_autoindex_Todo_1"))
        XCTAssertNil(Differential.compare(byId, store: store, db: db, tally: &tally))
    }

    /// Writes keep the columns in step with `doc`: an insert's stamp, an
    /// update's new updatedAt.
    func testWritesKeepTheDateColumns() throws {
        let db = try SQLiteDatabase(path: nil)
        try db.insert(Self.todos(20), into: "Todo")
        let now = ISODate.parse("2030-01-01T00:00:00.000Z")!
        var ids = 0
        for text in ["insert into Todo(title) values ('new')", "update Todo set n = 99 where objectId = 'o3'"] {
            let s = try Binder.bind(try CQLParser.parseStatement(text), parameters: [])
            _ = try SQLWriteRunner.apply(s, on: db, now: now) { ids += 1; return "new\(ids)" }
        }
        for (text, first) in [("select * from Todo order by -createdAt limit 1", "new1"), ("select * from Todo order by -updatedAt limit 2", "o3")] {
            let r = try SQLRunner.run(try Binder.bind(try CQLParser.parse(text), parameters: []), on: db)
            XCTAssertEqual(r.objects.first?["objectId"], .string(first), text)
        }
        let r = try SQLRunner.run(try Binder.bind(try CQLParser.parse("select * from Todo where updatedAt = date('2030-01-01T00:00:00.000Z')"), parameters: []), on: db)
        XCTAssertEqual(Set(r.objects.compactMap { $0["objectId"]?.stringValue }), ["new1", "o3"])
    }

    /// An array at createdAt cannot be one column value (the evaluator sorts
    /// it by its smallest or largest element): the database is marked and
    /// `run` re-checks every row, with the evaluator's answers.
    func testAnArrayAtCreatedAtMarksTheDatabase() throws {
        let db = try SQLiteDatabase(path: nil)
        var objects = Self.todos(60)
        objects.append(["objectId": "arr", "createdAt": .array([.string("2020-01-01T00:00:00Z"), .date(DateValue(millisecondsSince1970: 1_800_000_000_000))])])
        objects.append(["objectId": "dates", "createdAt": .array([.date(DateValue(millisecondsSince1970: 1)), .date(DateValue(millisecondsSince1970: 1_800_000_000_001))])])
        try db.insert(objects, into: "Todo")
        XCTAssertTrue(try db.requiresRecheck())
        var tally = Differential.Tally()
        for text in ["select * from Todo order by -createdAt limit 5", "select * from Todo order by createdAt limit 5",
                     "select * from Todo where createdAt > date('2027-01-01T00:00:00Z')"] {
            let query = try Binder.bind(try CQLParser.parse(text), parameters: [])
            XCTAssertNil(Differential.compare(query, store: DocumentStore(["Todo": objects]), db: db, tally: &tally), text)
        }
        XCTAssertEqual(tally.exact, 0)
        // `--explain` shows what `run` executes on a marked database: the
        // class's every row, re-checked, not the pushed-down SQL it skips.
        let query = try Binder.bind(try CQLParser.parse("select * from Todo where objectId = 'arr' order by -createdAt limit 5"), parameters: [])
        let lines = try SQLRunner.explain(query, on: db)
        let text = lines.joined(separator: "\n")
        XCTAssertEqual(lines.first, "-- prefilter: rows re-checked by the evaluator", text)
        XCTAssertTrue(lines.contains("-- re-checked: every row: the data holds strings with NUL or an array at createdAt/updatedAt"), text)
        let sql = try XCTUnwrap(lines.first { $0.hasPrefix("-- sql: ") }, text)
        XCTAssertFalse(sql.contains("LIMIT") || sql.contains("createdAt"), sql)
        XCTAssertTrue(lines.contains("-- arguments: []"), text)
        XCTAssertEqual(sql, "-- sql: " + (try SQLRunner.everyRowRechecked(query, dialect: .sqlite)).select.sql)
    }
}

extension StoredColumnTests {
    /// A SQLite file made before the date columns gets them on open.
    func testADatabaseWithoutTheDateColumnsIsMigratedOnOpen() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cql-old-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let objects = Self.todos(120)
        do {
            let old = try DatabaseQueue(path: path)
            try old.write { db in
                try db.execute(sql: #"CREATE TABLE "Old" ("objectId" TEXT PRIMARY KEY, "doc" TEXT NOT NULL)"#)
                for o in objects {
                    try db.execute(sql: #"INSERT INTO "Old" VALUES (?, ?)"#, arguments: [o["objectId"]!.stringValue, JSONWriter.string(.object(o))])
                }
            }
        }
        let db = try SQLiteDatabase(path: path)
        let query = try Binder.bind(try CQLParser.parse("select * from Old order by -createdAt limit 30"), parameters: [])
        XCTAssertTrue(try SQLRunner.explain(query, on: db).joined(separator: "\n").contains("USING INDEX Old:createdAt"))
        var tally = Differential.Tally()
        XCTAssertNil(Differential.compare(query, store: DocumentStore(["Old": objects]), db: db, tally: &tally))
        // Every run exact (on SQLite the fixture runs both SQL forms).
        XCTAssertGreaterThan(tally.queries, 0)
        XCTAssertEqual(tally.exact, tally.queries)
    }
}
