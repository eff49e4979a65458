import CQLEval
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// Writes on a database mean what they mean in memory: every
/// `Corpus/exec` case, and seeded random write sequences, applied with
/// ``StatementExecutor`` to a store and with ``SQLWriteRunner`` to the
/// database; after each write the same summary or the same error, and the
/// same objects (in load order) and join rows. SQLite here; PostgreSQL in
/// ``PostgreSQLTests``.
final class WriteSQLDifferentialTests: XCTestCase {
    static let now = DateValue(millisecondsSince1970: 1_714_979_289_010)

    func testExecCorpusOnSQLite() throws {
        let n = try Self.execCorpus(self) { try SQLiteDatabase(path: nil) }
        XCTAssertGreaterThanOrEqual(n, 30)
    }

    func testRandomWriteSequencesOnSQLite() throws {
        let tally = try Self.randomSequences(self) { try SQLiteDatabase(path: nil) }
        XCTAssertGreaterThan(tally.refused, 30)
        XCTAssertGreaterThan(tally.applied, 100)
    }

    func testRandomWriteSequencesAsTranslatedOnSQLite() throws {
        let tally = try Self.randomSequences(self, viaText: true) { try SQLiteDatabase(path: nil) }
        XCTAssertGreaterThan(tally.translated, 120)
    }

    func testAFailedWriteLeavesTheDatabaseAsItWas() throws {
        let db = try SQLiteDatabase(path: nil)
        try db.insert([["objectId": "a", "n": 1, "s": "x"]], into: "T")
        try db.insert([["owningId": "a", "relatedId": "u1"]], into: "_Join:likes:T")
        let before = try Self.snapshot(db)
        // The relation edit runs first, then the Increment of a string fails.
        let s = try Binder.bind(try CQLParser.parseStatement(
            "update T set likes = op('AddRelation', {'objects': [pointer('U', 'u2')]}), s = op('Increment', {'amount': 1}) where objectId = 'a'"),
            parameters: [])
        XCTAssertThrowsError(try SQLWriteRunner.apply(s, on: db, now: Self.now))
        XCTAssertEqual(try Self.snapshot(db), before)
    }

    func testAnUncheckedNewObjectIdThatIsTakenFailsTheWriteOnSQLite() throws {
        try Self.uncheckedTakenObjectIdFails(try SQLiteDatabase(path: nil))
    }

    func testConditionsReadingOtherClassesOnSQLite() throws {
        XCTAssertEqual(try Self.conditionsReadingOtherClasses { try SQLiteDatabase(path: nil) }, Self.otherClassWrites.count)
    }

    func testUntouchedValuesKeepTheirTextOnSQLite() throws {
        XCTAssertEqual(try Self.untouchedValuesKeepTheirText { try SQLiteDatabase(path: nil) }, Self.numberTextWrites.count)
    }

    // MARK: Shared with PostgreSQLTests

    /// With ``SQLWriteRunner/apply(_:on:now:newObjectId:checksNewObjectIds:strict:readBack:images:before:then:beforeCommit:)``'s
    /// check off (a server's random ids), an insert whose new objectId is
    /// taken fails and leaves the object there as it was; with it on, the
    /// id is drawn again.
    static func uncheckedTakenObjectIdFails(_ db: some SQLDatabaseWriter) throws {
        try db.insert([["objectId": "taken", "n": 1]], into: "T")
        let before = try snapshot(db, classes: ["T"])
        let s = try Binder.bind(try CQLParser.parseStatement("insert into T (n) values (2)"), parameters: [])
        XCTAssertThrowsError(try SQLWriteRunner.apply(s, on: db, now: now, newObjectId: { "taken" }, checksNewObjectIds: false))
        XCTAssertEqual(try snapshot(db, classes: ["T"]), before)
        var ids = ["taken", "fresh"].makeIterator()
        let result = try SQLWriteRunner.apply(s, on: db, now: now, newObjectId: { ids.next() ?? "last" })
        XCTAssertEqual(result.count, 1)
        let after = try snapshot(db, classes: ["T"])
        XCTAssertTrue(after.contains("\"fresh\"") && after.contains("\"taken\""), after)
    }

    /// Data for ``otherClassWrites``: `T`, the class `S` its conditions
    /// read, and the relations `_Join:likes:T` and `_Join:likes:U`.
    static let otherClassData: [String: [[String: Value]]] = [
        "T": [
            ["objectId": "o1", "s": "alpha", "n": 1, "tags": [1]],
            ["objectId": "o2", "s": "beta", "tags": ["x"]],
            ["objectId": "o3", "n": 1, "ref": .pointer(Pointer(className: "S", objectId: "s2"))],
            ["objectId": "o4", "s": "gamma"],
        ],
        "S": [
            ["objectId": "s1", "name": "alpha", "k": 1],
            ["objectId": "s2", "name": "beta", "k": 2],
            ["objectId": "s3", "name": ["gamma", "delta"], "k": 3],
        ],
        "_Join:likes:T": [["owningId": "o1", "relatedId": "u1"], ["owningId": "o2", "relatedId": "u2"]],
        "_Join:likes:U": [["owningId": "u1", "relatedId": "o4"]],
    ]

    /// Updates and deletes whose condition reads another class or a
    /// relation, holding and not, with ops that have SQL and ops that do
    /// not (AddUnique of an array: the exact path), a missing object and a
    /// missing class: the exact path decides the condition in the database
    /// (``SQLWriteRunner``), with the evaluator's outcome.
    static let otherClassWrites = [
        "update T set n = 5 where objectId = 'o1' and s in (select name from S where k > 0)",
        "update T set n = 6 where objectId = 'o1' and s in (select name from S where k > 1)",
        "update T set tags = op('AddUnique', {'objects': [[1], 'a']}) where objectId = 'o2' and s in (select name from S)",
        "update T set tags = op('AddUnique', {'objects': [[1], 'a']}) where objectId = 'o2' and s not in (select name from S)",
        "update T set tags = op('AddUnique', {'objects': [[1], 'a']}) where objectId = 'o4' and s in (select name from S where k = 3)",
        "update T set n = op('Increment', {'amount': 1}) where objectId = 'o3' and ref in (select * from S where k = 2)",
        "update T set n = op('Increment', {'amount': 1}) where objectId = 'o3' and ref in (select * from S where k = 3)",
        "update T set tags = op('Increment', {'amount': 1}) where objectId = 'o2' and s in (select name from S)",
        "update T set n = 9 where objectId = 'o1' and likes = pointer('U', 'u1')",
        "update T set n = 9 where objectId = 'o2' and likes = pointer('U', 'u1')",
        "update T set tags = op('AddUnique', {'objects': [[2]]}) where objectId = 'o1' and likes != pointer('U', 'u1')",
        "delete from T where objectId = 'o4' and related likes to pointer('U', 'u1')",
        "delete from T where objectId = 'o1' and related likes to pointer('U', 'u1')",
        "update T set n = 1 where objectId = 'missing' and s in (select name from S)",
        "update T set n = 2 where objectId = 'o1' and s in (select name from Missing)",
        "update T set n = 2 where objectId = 'o1' and s not in (select name from Missing)",
        "update T set n = 2 where objectId = 'o1' and s in (select name from S where name regexp '(')",
    ]

    /// Each of ``otherClassWrites`` on a fresh copy of ``otherClassData``:
    /// the same outcome and rows as in memory. Returns how many ran.
    static func conditionsReadingOtherClasses<DB: SQLDatabaseWriter>(fresh: () throws -> DB) throws -> Int {
        var n = 0
        for text in otherClassWrites {
            let statement = try Binder.bind(try CQLParser.parseStatement(text), parameters: [], now: now)
            var store = DocumentStore(otherClassData)
            let want = outcome { () throws(QueryError) in try StatementExecutor.apply(statement, to: &store, now: now) }
            let db = try fresh()
            for (name, rows) in otherClassData.sorted(by: { $0.key < $1.key }) { try db.insert(rows, into: name) }
            let got = outcome { () throws(QueryError) in try SQLWriteRunner.apply(statement, on: db, now: now, strict: true) }
            XCTAssertEqual(got, want, "\(db.dialect.rawValue): \(text)")
            XCTAssertEqual(try snapshot(db, classes: ["T", "S"]), snapshot(store, classes: ["T", "S"]), "\(db.dialect.rawValue): \(text)")
            n += 1
        }
        return n
    }

    /// An object whose numbers jsonb would print as other values (`1e+20`
    /// as an integer too large for 64 bits, `-0.0` as `0.0`, `100.0`
    /// stays a double only in the text), stored as `cql load` and `exec`
    /// store objects (JSONWriter's text), and writes that touch other keys
    /// or read these values.
    static let numberText = JSONWriter.string(.object(try! DataFiles.object(json:
        #"{"objectId":"a", "d": 1e2, "z": -0.0, "w": 1.50, "e": 1E-7, "big": 1e20, "near": 0.10000000000000001, "o": {"x": 1e20, "y": [ 1.0 , -0.0 ]}, "tags": [1.50, 1e2, "x", -0.0, 1e20], "i": -0}"#)))
    static let numberTextWrites = [
        "update T set s = 'x' where objectId = 'a'",
        "update T set d = op('Increment', {'amount': 1}) where objectId = 'a'",
        "update T set z = op('Decrement', {'amount': 0}) where objectId = 'a'",
        "update T set z = op('Increment', {'amount': -0.0}) where objectId = 'a'",
        "update T set i = op('Increment', {'amount': 1}), w = op('Delete') where objectId = 'a'",
        "update T set tags = op('AddUnique', {'objects': [100, 1.5, 0, 'y']}) where objectId = 'a'",
        "update T set tags = op('Remove', {'objects': [1.5, 0.0]}) where objectId = 'a'",
        "update T set tags = op('Add', {'objects': [2.50]}) where objectId = 'a' and d > 99",
        "update T set near = op('Increment', {'amount': 0.2}) where objectId = 'a' and near = 0.1",
        "update T set o = op('BitOr', {'value': 1}) where objectId = 'a'",
        "update T set big = op('Increment', {'amount': 1e20}) where objectId = 'a' and big > 1e19",
        "update T set tags = op('Remove', {'objects': [100000000000000000000.0]}) where objectId = 'a'",
        "delete from T where objectId = 'a' and d = 100",
    ]

    /// Each of ``numberTextWrites`` on a fresh copy of ``numberText``, run as
    /// translate --to sql prints it: the same outcome and objects as in
    /// memory over the same text. Returns how many ran.
    static func untouchedValuesKeepTheirText<DB: SQLDatabaseWriter>(fresh: () throws -> DB) throws -> Int {
        var n = 0
        for text in numberTextWrites {
            let statement = try Binder.bind(try CQLParser.parseStatement(text), parameters: [], now: now)
            var store = DocumentStore(["T": [try DataFiles.object(json: numberText)]])
            let memory = outcome { () throws(QueryError) in try StatementExecutor.apply(statement, to: &store, now: now) }
            let db = try fresh()
            try db.inWriteTransaction { session throws(QueryError) in
                try session.createTable("T")
                try session.insertObject("a", json: numberText, into: "T")
            }
            let applied = try XCTUnwrap(try runTranslated(statement, on: db, newObjectId: { "n" }), text)
            XCTAssertEqual(applied, !memory.hasPrefix("error"), "\(db.dialect.rawValue): \(text) (memory: \(memory))")
            XCTAssertEqual(try snapshot(db), snapshot(store), "\(db.dialect.rawValue): \(text)")
            n += 1
        }
        return n
    }

    struct Tally {
        var applied = 0
        var refused = 0
        /// Writes also run as translate --to sql prints them.
        var translated = 0
    }

    /// Runs `translate --to sql` of the statement on `db` as printed, in one
    /// transaction: whether its first statement changed a row (a failing
    /// statement changes nothing); `nil` when it has no SQL text.
    static func runTranslated<DB: SQLDatabaseWriter>(_ statement: Statement, on db: DB, newObjectId: @escaping () -> String) throws -> Bool? {
        let tables = try db.tableNames()
        guard let write = try? SQLWriteGenerator.translate(
            statement, dialect: db.dialect, now: now, newObjectId: newObjectId,
            joinTables: SQLWriteGenerator.joinTables(of: statement.className, among: tables)) else { return nil }
        do {
            return try db.inWriteTransaction { session throws(QueryError) -> Bool in
                if case .insert = statement { try session.createTable(statement.className) }
                let n = try session.execute(write.statements[0])
                // An insert writes every row; an update or delete its one row, or none
                // (and then the statements after it do not run).
                if case .insert = statement { return true }
                if n != 1 { throw QueryError(.data, "no row changed") }
                for s in write.statements.dropFirst() { try session.execute(s) }
                return true
            }
        } catch {
            return false
        }
    }

    /// The class `T` in load order and every join table's rows, sorted, as text.
    static func snapshot(_ db: some SQLDatabaseWriter, classes: [String] = ["T"]) throws -> String {
        var out: [String] = []
        let tables = try db.tableNames()
        for c in classes where tables.contains(c) {
            let all = try SQLGenerator.pushdown(Query(className: c), dialect: db.dialect).select
            var lines: [String] = []
            for d in try db.documents(all) { lines.append(JSONWriter.string(.object(try DataFiles.object(json: d)))) }
            out.append(c + ":\n" + lines.joined(separator: "\n"))
        }
        // An empty relation table means what a missing one means (translate's
        // SQL creates it for RemoveRelation too).
        for j in tables.sorted() where j.hasPrefix("_Join:") {
            let rows = try db.joinRows(j)
            if !rows.isEmpty { out.append(j + ":\n" + rows.map { JSONWriter.string(.object($0)) }.sorted().joined(separator: "\n")) }
        }
        return out.joined(separator: "\n")
    }

    static func snapshot(_ store: DocumentStore, classes: [String] = ["T"]) -> String {
        var out: [String] = []
        for c in classes where store.classNames.contains(c) {
            out.append(c + ":\n" + store.objects(in: c).map { JSONWriter.string(.object($0)) }.joined(separator: "\n"))
        }
        for j in store.classNames.sorted() where j.hasPrefix("_Join:") && !store.objects(in: j).isEmpty {
            out.append(j + ":\n" + store.objects(in: j).map { JSONWriter.string(.object($0)) }.sorted().joined(separator: "\n"))
        }
        return out.joined(separator: "\n")
    }

    static func outcome(_ body: () throws(QueryError) -> WriteResult) -> String {
        do { return JSONWriter.string(try body().summary) } catch { return "error: " + error.shortDescription }
    }

    /// Every exec corpus case on a fresh database; returns how many ran.
    static func execCorpus<DB: SQLDatabaseWriter>(_ test: XCTestCase, fresh: () throws -> DB) throws -> Int {
        var n = 0, translatedInserts = 0, translatedOthers = 0
        for c in try Corpus.cases(in: "exec") {
            guard let text = c["statement"] else { continue }
            var params: [Value] = []
            if let p = c["params"], case .array(let items) = try JSONReader.parse(p) { params = items }
            let statement = try Binder.bind(try CQLParser.parseStatement(text), parameters: params, now: now)
            let className = statement.className
            var collections: [String: [[String: Value]]] = [:]
            let docs = try WriteCaseSupport.objects(c["docs"])
            if c["docs"] != nil { collections[className] = docs }
            if let join = c["join"], case .update(let u) = statement,
                let key = u.assignments.first(where: { if case .operation(let op) = $0.change { return op.kind == .addRelation || op.kind == .removeRelation } else { return false } })?.key.name {
                collections[StatementExecutor.joinClass(key: key, owner: className)] = try WriteCaseSupport.objects(join)
            }
            var store = DocumentStore(collections)
            let db = try fresh()
            for (name, rows) in collections.sorted(by: { $0.key < $1.key }) { try db.insert(rows, into: name) }
            let want = outcome { () throws(QueryError) in try StatementExecutor.apply(statement, to: &store, now: now, newObjectId: WriteCaseSupport.sequentialIds("new")) }
            let got = outcome { () throws(QueryError) in
                try SQLWriteRunner.apply(statement, on: db, now: now, newObjectId: WriteCaseSupport.sequentialIds("new"), strict: true)
            }
            XCTAssertEqual(got, want, "\(c) [\(c["rule"] ?? "")]: \(text)")
            XCTAssertEqual(try snapshot(db, classes: [className]), snapshot(store, classes: [className]), "\(c) [\(c["rule"] ?? "")]: \(text)")
            // translate --to sql, run as printed on a copy of the data: the same rows.
            // (Not an insert where the data already holds the ids drawn: translate cannot see the table.)
            let copy = try fresh()
            for (name, rows) in collections.sorted(by: { $0.key < $1.key }) { try copy.insert(rows, into: name) }
            if case .insert = statement, docs.contains(where: { $0["objectId"]?.stringValue?.hasPrefix("new") == true }) {
            } else if let applied = try runTranslated(statement, on: copy, newObjectId: WriteCaseSupport.sequentialIds("new")) {
                XCTAssertEqual(applied, !want.hasPrefix("error"), "translated, changed a row: \(c) [\(c["rule"] ?? "")]: \(text) (memory: \(want))")
                XCTAssertEqual(try snapshot(copy, classes: [className]), snapshot(store, classes: [className]), "translated: \(c)")
                if case .insert = statement { translatedInserts += 1 } else { translatedOthers += 1 }
            }
            n += 1
        }
        print("exec corpus: \(n) writes compared with memory; also run as translate --to sql prints them: "
            + "\(translatedInserts) inserts, \(translatedOthers) updates and deletes")
        XCTAssertGreaterThanOrEqual(translatedInserts, 5)
        XCTAssertGreaterThanOrEqual(translatedOthers, 15)
        return n
    }

    /// Seeded random write sequences on random data (`RandomWrites`).
    /// `keepNUL: false` turns NUL in the data and the statements into U+0001
    /// (PostgreSQL's jsonb cannot hold NUL: such a write is a named error there).
    /// `viaText`: each write runs as translate --to sql prints it (through
    /// exec only where it has no SQL text), and changes a row exactly when
    /// it applies in memory.
    static func randomSequences<DB: SQLDatabaseWriter>(_ test: XCTestCase, keepNUL: Bool = true, viaText: Bool = false,
                                                 fresh: () throws -> DB) throws -> Tally {
        var tally = Tally()
        // WRITE_SEEDS=N runs more sequences (8 by default).
        let seeds = UInt64(ProcessInfo.processInfo.environment["WRITE_SEEDS"].flatMap { Int($0) } ?? 8)
        for seed in UInt64(1)...max(1, seeds) {
            var rng = SplitMix64(seed: seed &* 0x9E37_79B9)
            var objects: [[String: Value]] = []
            for i in 1...8 {
                var o: [String: Value] = ["objectId": .string("o\(i)")]
                for k in RandomWrites.keys where rng.chance(0.75) { o[k] = RandomWrites.value(for: k, &rng) }
                objects.append(keepNUL ? o : RandomSQLDifferentialTests.withoutNUL(o))
            }
            let join = (1...4).map { i -> [String: Value] in ["owningId": .string("o\(i)"), "relatedId": .string("u\(i % 2 + 1)")] }
            var store = DocumentStore(["T": objects, "_Join:likes:T": join])
            let db = try fresh()
            try db.insert(objects, into: "T")
            try db.insert(join, into: "_Join:likes:T")
            var log: [String] = []
            for step in 0..<25 {
                var text = RandomWrites.statement(&rng, ids: store.objects(in: "T").compactMap { $0["objectId"]?.stringValue })
                if !keepNUL { text = text.replacingOccurrences(of: "\u{0}", with: "\u{1}") }
                log.append(text)
                let statement = try Binder.bind(try CQLParser.parseStatement(text), parameters: [], now: now)
                let a = outcome { () throws(QueryError) in try StatementExecutor.apply(statement, to: &store, now: now, newObjectId: WriteCaseSupport.sequentialIds("x\(step)_")) }
                let context = "\(db.dialect.rawValue), seed \(seed) step \(step): \(text)\nsequence:\n" + log.joined(separator: "\n")
                if viaText, statement.isWrite, let applied = try runTranslated(statement, on: db, newObjectId: WriteCaseSupport.sequentialIds("x\(step)_")) {
                    XCTAssertEqual(applied, !a.hasPrefix("error"), "translated, changed a row: \(context) (memory: \(a))")
                    tally.translated += 1
                } else {
                    let b = outcome { () throws(QueryError) in
                        try SQLWriteRunner.apply(statement, on: db, now: now, newObjectId: WriteCaseSupport.sequentialIds("x\(step)_"), strict: true)
                    }
                    XCTAssertEqual(b, a, "in memory vs \(context)")
                }
                XCTAssertEqual(try snapshot(db), snapshot(store), "after — \(context)")
                if a.hasPrefix("error") { tally.refused += 1 } else { tally.applied += 1 }
            }
        }
        print("write sequences on \(try fresh().dialect.rawValue)\(viaText ? ", as translate --to sql prints them" : ""): "
            + "\(tally.applied) writes applied, \(tally.refused) refused, each compared with memory; \(tally.translated) ran as SQL text")
        return tally
    }
}
