import CQLEval
@testable import CQLKit
@testable import CQLSQL
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
            let reader = try PostgreSQLReadConnection(url: s.url, statementTimeoutMilliseconds: 0)
            // Every argument as an array: the corpus's three identical runs
            // at once then coalesce through the rewriting (not run once).
            reader.argumentSharing.on = false
            Differential.asyncReader = reader
        } catch {
            startFailure = "PostgreSQL could not start: \(error)"
        }
    }

    override class func tearDown() {
        Differential.asyncReader?.closeNow()
        Differential.asyncReader = nil
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

    /// The blocking and the event-loop reader walk the same roles.
    func testManyRolesOnBothReaders() async throws {
        let db = try database()
        let reader = try XCTUnwrap(Differential.asyncReader)
        try CallerGranteesTests.seed(db)
        for (user, want) in CallerGranteesTests.expected {
            XCTAssertEqual(try CallerGrantees.grantees(userId: user, on: db), want, user)
            let awaited = try await CallerGrantees.grantees(userId: user, on: reader)
            XCTAssertEqual(awaited, want, user)
        }
    }

    func testEvalCorpusOnPostgreSQL() throws {
        let (answered, handedBack, bounded) = (Differential.asyncAnswered, Differential.asyncHandedBack, Differential.asyncBounded)
        let tally = try EvalCorpusDifferentialTests.run(self, "PostgreSQL") { try self.database() }
        XCTAssertGreaterThan(tally.queries, 300)
        // The server's asynchronous reads agreed on every query they answered.
        print("eval corpus on PostgreSQL, read asynchronously: \(Differential.asyncAnswered - answered) queries answered alike, "
              + "\(Differential.asyncHandedBack - handedBack) handed to the synchronous path")
        XCTAssertGreaterThan(Differential.asyncAnswered - answered, 300)
        // Most also ran with a limit added, their rows as one array.
        print("of them run also with a limit added: \(Differential.asyncBounded - bounded)")
        XCTAssertGreaterThan(Differential.asyncBounded - bounded, 200)
        // Its guessed preflights were confirmed, and some corrected (each
        // data set is a new database: what one case's tables said may be
        // stale for the next; testAStaleGuessedPreflightIsCaught... makes sure).
        let outcomes = try XCTUnwrap(Differential.asyncReader).guessOutcomes
        print("guessed preflights: \(outcomes.confirmed) confirmed, \(outcomes.corrected) corrected")
        XCTAssertGreaterThan(outcomes.confirmed, 50)
        XCTAssertGreaterThan(outcomes.corrected, 0)
        // Each query's three concurrent runs coalesced (Differential.asyncDisagreement),
        // and no coalesced statement failed where its runs alone answered
        // (some fail as each run alone does: orders PostgreSQL cannot rank).
        let coalescing = try XCTUnwrap(Differential.asyncReader).coalescing
        print("coalesced: \(coalescing.runs) runs in \(coalescing.statements) statements; \(coalescing.failed) failed, "
              + "\(coalescing.failedWhereAloneAnswered) of them where each run alone answered")
        XCTAssertGreaterThan(coalescing.statements, 300)
        XCTAssertEqual(coalescing.failedWhereAloneAnswered, 0)
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

    func testExecCorpusOnPostgreSQL() throws {
        let n = try WriteSQLDifferentialTests.execCorpus(self) { try self.database() }
        XCTAssertGreaterThanOrEqual(n, 30)
    }

    func testAnUncheckedNewObjectIdThatIsTakenFailsTheWriteOnPostgreSQL() throws {
        try WriteSQLDifferentialTests.uncheckedTakenObjectIdFails(try database())
    }

    func testConditionsReadingOtherClassesOnPostgreSQL() throws {
        XCTAssertEqual(try WriteSQLDifferentialTests.conditionsReadingOtherClasses { try self.database() },
                       WriteSQLDifferentialTests.otherClassWrites.count)
    }

    func testRandomWriteSequencesOnPostgreSQL() throws {
        let tally = try WriteSQLDifferentialTests.randomSequences(self, keepNUL: false) { try self.database() }
        XCTAssertGreaterThan(tally.refused, 30)
        XCTAssertGreaterThan(tally.applied, 100)
    }

    /// Issue 10's must-show: inserts, updates with a failing condition in the
    /// middle, deletes — the same outcomes (305 and 101 change nothing) and
    /// the same final state in a data directory, SQLite and PostgreSQL.
    func testASequenceOfWritesLeavesTheSameStateOnFilesSQLiteAndPostgreSQL() throws {
        let now = WriteSQLDifferentialTests.now
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cql-pg-seq-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try SQLiteDatabase(path: nil), postgres = try database()
        let writes = [
            "insert into Account(name, amount) values ('ann', 120), ('bob', 80)",
            "update Account set amount = op('Decrement', {'amount': 50}) where objectId = 'id1' and amount >= 100",
            "update Account set amount = op('Decrement', {'amount': 50}) where objectId = 'id1' and amount >= 100",
            "update Account set amount = op('Increment', {'amount': 20}), tags = op('AddUnique', {'objects': ['vip', 'vip']}) where objectId = 'id2'",
            "delete from Account where objectId = 'no-such-id'",
            "delete from Account where objectId = 'id1' and amount > 100",
            "delete from Account where objectId = 'id1'",
        ]
        var outcomes: [[String]] = [[], [], []]
        for text in writes {
            let s = try Binder.bind(try CQLParser.parseStatement(text), parameters: [], now: now)
            outcomes[0].append(WriteSQLDifferentialTests.outcome { () throws(QueryError) in
                try DataDirectory.apply(s, path: directory.path, now: now, newObjectId: WriteCaseSupport.sequentialIds("id")) })
            outcomes[1].append(WriteSQLDifferentialTests.outcome { () throws(QueryError) in
                try SQLWriteRunner.apply(s, on: sqlite, now: now, newObjectId: WriteCaseSupport.sequentialIds("id"), strict: true) })
            outcomes[2].append(WriteSQLDifferentialTests.outcome { () throws(QueryError) in
                try SQLWriteRunner.apply(s, on: postgres, now: now, newObjectId: WriteCaseSupport.sequentialIds("id"), strict: true) })
        }
        XCTAssertEqual(outcomes[0][2], "error: 1:88: 305 No effect on updating a document: the condition does not hold for Account 'id1'")
        XCTAssertEqual(outcomes[0][4], "error: 1:27: 101 Object not found: Account has no object with objectId 'no-such-id'")
        XCTAssertEqual(outcomes[0].filter { $0.hasPrefix("error") }.count, 3)
        XCTAssertEqual(outcomes[1], outcomes[0])
        XCTAssertEqual(outcomes[2], outcomes[0])
        let text = try String(contentsOf: directory.appendingPathComponent("Account.ndjson"), encoding: .utf8)
        let files = DocumentStore(["Account": try text.split(separator: "\n").map { try DataFiles.object(json: String($0)) }])
        let expected = WriteSQLDifferentialTests.snapshot(files, classes: ["Account"])
        XCTAssertTrue(expected.contains(#""amount":100"#) && expected.contains(#""tags":["vip"]"#) && !expected.contains("ann"), expected)
        XCTAssertEqual(try WriteSQLDifferentialTests.snapshot(sqlite, classes: ["Account"]), expected)
        XCTAssertEqual(try WriteSQLDifferentialTests.snapshot(postgres, classes: ["Account"]), expected)
    }

    func testUntouchedValuesKeepTheirTextOnPostgreSQL() throws {
        XCTAssertEqual(try WriteSQLDifferentialTests.untouchedValuesKeepTheirText { try self.database() },
                       WriteSQLDifferentialTests.numberTextWrites.count)
    }

    func testRandomWriteSequencesAsTranslatedOnPostgreSQL() throws {
        let tally = try WriteSQLDifferentialTests.randomSequences(self, keepNUL: false, viaText: true) { try self.database() }
        XCTAssertGreaterThan(tally.translated, 120)
    }

    /// Regexes PostgreSQL runs itself (PostgreSQLRegex's subset): every
    /// pattern × subject agrees with the evaluator's PCRE2, and the pushed
    /// ones are exact (not re-checked).
    func testRegexSubsetAgreesWithPCRE() throws {
        let db = try database()
        let subjects = ["", "a", "ab", "abc", "a\nb", "ab\n", "\n", "a b", "a\tb", "x_y", "x-y", "a]b", "a{2}", "aa", "aaa", "Ab", "é", "éa",
                        "\u{212A}", "k", "K", "0123", "٣", "foo.bar", "foobar", "a\\b", "a$b", "^a", "ab\r\n", "ba", "a\u{85}b"]
        var objects: [[String: Value]] = []
        for (i, s) in subjects.enumerated() { objects.append(["objectId": .string("s\(i)"), "v": .string(s)]) }
        objects.append(["objectId": "arr", "v": .array(["zz", "ab"])])
        objects.append(["objectId": "num", "v": 12])
        try db.insert(objects, into: "R")
        let store = DocumentStore(["R": objects])
        let patterns: [(String, String)] = [
            ("a", ""), ("^a", ""), ("b$", ""), ("^ab$", ""), ("a.b", ""), ("a.b", "s"), ("^.*$", ""), ("^.*$", "s"), ("a[^x]b", ""),
            ("^[a-c]+$", ""), ("[0-9]{2,3}", ""), ("\\d", ""), ("\\D", ""), ("\\w+", ""), ("^\\W", ""), ("\\s", ""), ("\\S\\s\\S", ""),
            ("a|b", ""), ("^(ab|ba)$", ""), ("(?:a)+b", ""), ("(a+)+$", ""), ("a{2}", ""), ("a\\{2\\}", ""), ("a\\]b", ""), ("[\\]]", ""), ("x[-_]y", ""),
            ("foo\\.bar", ""), ("a\\$b", ""), ("\\^a", ""), ("é", ""), ("^.$", ""), ("a\\\\b", ""), ("a+?", ""), ("^a*?$", ""),
            ("[a-z]", ""), ("[^a-z]", ""), ("\\n", ""), ("b\\r?$", ""), ("^$", ""), ("", ""),
        ]
        var pushed = 0
        for (pattern, options) in patterns {
            let q = Query(className: "R", condition: Condition(.regex(FieldPath(["v"]), pattern: .value(.string(pattern)), options: options)))
            var tally = Differential.Tally()
            if let failure = Differential.compare(q, store: store, db: db, tally: &tally) { XCTFail("/\(pattern)/\(options): \(failure)") }
            if PostgreSQLRegex.translate(pattern, options: options) != nil {
                pushed += 1
                XCTAssertEqual(tally.exact, tally.queries, "/\(pattern)/\(options) should run exactly in PostgreSQL")
            }
        }
        XCTAssertGreaterThan(pushed, 30)
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

    /// `--index score` also makes btree indexes on the range shapes'
    /// expressions: a range is a BitmapOr of the number index and the
    /// type index (the array branch), and both strings and numbers use them.
    func testIndexedRangesUseTheBtreeIndexes() throws {
        let db = try database()
        var objects: [[String: Value]] = []
        for i in 0..<5000 {
            objects.append(["objectId": .string("r\(i)"), "score": .int(Int64(i % 997)), "name": .string("n\(i)")])
        }
        objects.append(["objectId": "arr", "score": .array([.int(5), .int(2000)]), "name": .array([.string("zz")])])
        try db.insert(objects, into: "GameScore")
        try db.load(path: Corpus.root.appendingPathComponent("data").path, className: nil, indexes: ["score", "name"])
        let store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        let all = DocumentStore(["GameScore": objects + store.objects(in: "GameScore")])
        for (text, indexes) in [
            ("select * from GameScore where score > 1200", ["GameScore:score:number", "GameScore:score:type"]),
            ("select * from GameScore where name >= 'n4990'", ["GameScore:name:string", "GameScore:name:type"]),
        ] {
            let query = try Binder.bind(try CQLParser.parse(text), parameters: [])
            let plan = try SQLRunner.explain(query, on: db).joined(separator: "\n")
            XCTAssertTrue(plan.contains("BitmapOr"), plan)
            for index in indexes { XCTAssertTrue(plan.contains("Bitmap Index Scan on \"\(index)\""), "\(index) not in\n\(plan)") }
            // And the answer is the evaluator's, the array's element included.
            var tally = Differential.Tally()
            XCTAssertNil(Differential.compare(query, store: all, db: db, tally: &tally))
        }
    }

    func testIndexedEqualityUsesTheIndex() throws {
        let db = try database()
        // Enough rows that the planner prefers the index to a scan.
        var objects: [[String: Value]] = []
        for i in 0..<5000 { objects.append(["objectId": .string("g\(i)"), "score": .int(Int64(i % 997)), "name": .string("n\(i)")]) }
        try db.insert(objects, into: "GameScore")
        try db.load(path: Corpus.root.appendingPathComponent("data").path, className: nil, indexes: ["score"])
        let query = try Binder.bind(try CQLParser.parse("select * from GameScore where score = 1200"), parameters: [])
        // No score is an array (the type index's probe proves it): the
        // equality is the number index's, with no jsonpath test.
        let plan = try SQLRunner.explain(query, on: db)
        XCTAssertTrue(plan.contains("-- no array at: score (their index says so: no array branch)"), plan.joined(separator: "\n"))
        XCTAssertTrue(plan.contains { $0.contains("Index Cond") && $0.contains("numeric") }, plan.joined(separator: "\n"))
        XCTAssertTrue(plan.contains { $0.contains("\"GameScore:score:number\"") }, plan.joined(separator: "\n"))
        // And the answer is the evaluator's.
        let store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        var tally = Differential.Tally()
        XCTAssertNil(Differential.compare(query, store: DocumentStore(["GameScore": objects + store.objects(in: "GameScore")]), db: db, tally: &tally))
    }

    /// A Valine page — an equality on an indexed key, then the newest ten —
    /// reads its rows in order from the key's (string, createdAt) index; once
    /// an array is stored at the key, the probe sees it and the jsonpath test
    /// is back, with the evaluator's answers both times.
    func testAnOrderAfterAnEqualityOnAnArrayFreeKeyIsAnIndexScanUntilAnArrayArrives() throws {
        let db = try database()
        var objects: [[String: Value]] = []
        for i in 0..<20_000 {
            let day = String(format: "%02d", i % 28 + 1), minute = String(format: "%02d", i % 60)
            objects.append(["objectId": .string("c\(i)"), "url": .string("/p/\(i % 200)/"), "createdAt": .string("2026-01-\(day)T10:\(minute):00.000Z")])
        }
        objects.append(["objectId": "n1", "url": "/p/1/"])
        objects.append(["objectId": "n2", "url": "/p/1/", "createdAt": 7])
        try db.insert(objects, into: "Comment")
        try db.addIndexes(keys: ["url"])
        let page = try Binder.bind(try CQLParser.parse("select * from Comment where url = '/p/1/' order by -createdAt limit 10"), parameters: [])
        let count = try Binder.bind(try CQLParser.parse("select count(*) from Comment where url = '/p/1/'"), parameters: [])
        let plan = try SQLRunner.explain(page, on: db).joined(separator: "\n")
        XCTAssertTrue(plan.contains("Index Scan using \"Comment:url:string\""), plan)
        XCTAssertFalse(plan.contains("jsonpath"), plan)
        var tally = Differential.Tally()
        for q in [page, count] { XCTAssertNil(Differential.compare(q, store: DocumentStore(["Comment": objects]), db: db, tally: &tally)) }
        // An array holding the url: the page must include it.
        let array: [String: Value] = ["objectId": "a1", "url": .array(["/x/", "/p/1/"]), "createdAt": "2027-01-01T00:00:00.000Z"]
        try db.insert([array], into: "Comment")
        XCTAssertFalse(try SQLRunner.explain(page, on: db).contains { $0.hasPrefix("-- no array at") })
        XCTAssertEqual(try SQLRunner.run(page, on: db).objects.first?["objectId"], .string("a1"))
        for q in [page, count] { XCTAssertNil(Differential.compare(q, store: DocumentStore(["Comment": objects + [array]]), db: db, tally: &tally)) }
    }
}
