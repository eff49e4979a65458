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

    // MARK: Shared with PostgreSQLTests

    struct Tally {
        var applied = 0
        var refused = 0
    }

    /// The class `T` in load order and every join table's rows, sorted, as text.
    static func snapshot(_ db: some SQLExecutor, classes: [String] = ["T"]) throws -> String {
        var out: [String] = []
        let tables = try db.tableNames()
        for c in classes where tables.contains(c) {
            let all = try SQLGenerator.pushdown(Query(className: c), dialect: db.dialect).select
            var lines: [String] = []
            for d in try db.documents(all) { lines.append(JSONWriter.string(.object(try DataFiles.object(json: d)))) }
            out.append(c + ":\n" + lines.joined(separator: "\n"))
        }
        for j in tables.sorted() where j.hasPrefix("_Join:") {
            out.append(j + ":\n" + (try db.joinRows(j)).map { JSONWriter.string(.object($0)) }.sorted().joined(separator: "\n"))
        }
        return out.joined(separator: "\n")
    }

    static func snapshot(_ store: DocumentStore, classes: [String] = ["T"]) -> String {
        var out: [String] = []
        for c in classes where store.classNames.contains(c) {
            out.append(c + ":\n" + store.objects(in: c).map { JSONWriter.string(.object($0)) }.joined(separator: "\n"))
        }
        for j in store.classNames where j.hasPrefix("_Join:") {
            out.append(j + ":\n" + store.objects(in: j).map { JSONWriter.string(.object($0)) }.sorted().joined(separator: "\n"))
        }
        return out.joined(separator: "\n")
    }

    static func outcome(_ body: () throws(QueryError) -> WriteResult) -> String {
        do { return JSONWriter.string(try body().summary) } catch { return "error: " + error.shortDescription }
    }

    /// Every exec corpus case on a fresh database; returns how many ran.
    static func execCorpus<DB: SQLExecutor>(_ test: XCTestCase, fresh: () throws -> DB) throws -> Int {
        var n = 0, translatedInserts = 0
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
            let got = outcome { () throws(QueryError) in try SQLWriteRunner.apply(statement, on: db, now: now, newObjectId: WriteCaseSupport.sequentialIds("new")) }
            XCTAssertEqual(got, want, "\(c) [\(c["rule"] ?? "")]: \(text)")
            // (Not where the data already holds the ids drawn: translate cannot see the table.)
            if case .insert = statement, !docs.contains(where: { $0["objectId"]?.stringValue?.hasPrefix("new") == true }) {
                // translate --to sql of an insert, run on a copy of the data: the same rows.
                let copy = try fresh()
                for (name, rows) in collections.sorted(by: { $0.key < $1.key }) { try copy.insert(rows, into: name) }
                let sql = try SQLWriteGenerator.translate(statement, dialect: copy.dialect, now: now, newObjectId: WriteCaseSupport.sequentialIds("new"))
                try copy.inWriteTransaction { session throws(QueryError) in
                    try session.createTable(className)
                    try session.execute(sql)
                }
                XCTAssertEqual(try snapshot(copy, classes: [className]), snapshot(store, classes: [className]), "translated: \(c)")
                translatedInserts += 1
            }
            XCTAssertEqual(try snapshot(db, classes: [className]), snapshot(store, classes: [className]), "\(c) [\(c["rule"] ?? "")]: \(text)")
            n += 1
        }
        print("exec corpus: \(n) writes compared with memory, \(translatedInserts) inserts also run as translate --to sql prints them")
        XCTAssertGreaterThanOrEqual(translatedInserts, 5)
        return n
    }

    /// Seeded random write sequences on random data (`RandomWrites`).
    /// `keepNUL: false` turns NUL in the data and the statements into U+0001
    /// (PostgreSQL's jsonb cannot hold NUL: such a write is a named error there).
    static func randomSequences<DB: SQLExecutor>(_ test: XCTestCase, keepNUL: Bool = true, fresh: () throws -> DB) throws -> Tally {
        var tally = Tally()
        for seed in UInt64(1)...8 {
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
                let b = outcome { () throws(QueryError) in try SQLWriteRunner.apply(statement, on: db, now: now, newObjectId: WriteCaseSupport.sequentialIds("x\(step)_")) }
                let context = "\(db.dialect.rawValue), seed \(seed) step \(step): \(text)\nsequence:\n" + log.joined(separator: "\n")
                XCTAssertEqual(b, a, "in memory vs \(context)")
                XCTAssertEqual(try snapshot(db), snapshot(store), "after — \(context)")
                if a.hasPrefix("error") { tally.refused += 1 } else { tally.applied += 1 }
            }
        }
        print("write sequences on \(try fresh().dialect.rawValue): \(tally.applied) writes applied, \(tally.refused) refused, each compared with memory")
        return tally
    }
}
