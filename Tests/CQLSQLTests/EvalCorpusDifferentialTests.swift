import CQLEval
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// Every `Corpus/eval` case on the evaluator and on a database: the same
/// objects in the same order (or both an error). SQLite here; PostgreSQL in
/// ``PostgreSQLTests``.
final class EvalCorpusDifferentialTests: XCTestCase {
    func testEvalCorpusOnSQLite() throws {
        let tally = try Self.run(self, "SQLite") { try SQLiteDatabase(path: nil) }
        XCTAssertGreaterThan(tally.queries, 300)
    }

    /// The eval cases whose query parses and binds, with their data.
    struct Case {
        var corpusCase: CorpusCase
        var query: Query
        /// Inline objects, or nil for `data`.
        var docs: [[String: Value]]?
        var dataPath: String
    }

    static func cases() throws -> [Case] {
        var out: [Case] = []
        for c in try Corpus.cases(in: "eval") {
            guard let text = c["query"] else { continue }
            let query: Query
            do throws(QueryError) {
                let language = c["from"].flatMap { QueryLanguage(rawValue: $0.trimmingCharacters(in: .whitespaces)) } ?? .cql
                let parsed = try language.parse(text, className: c["class"] ?? "", literal: c["options"]?.contains("literal") ?? false)
                var params: [Value] = []
                if let p = c["params"], case .array(let items) = try JSONReader.parse(p).decodingTypedValues() { params = items }
                query = try Binder.bind(parsed, parameters: params, now: DateValue(millisecondsSince1970: 1_700_000_000_000))
            } catch {
                continue  // a parse or bind error: no backend is involved
            }
            var docs: [[String: Value]]?
            if let text = c["docs"] {
                docs = []
                for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                    if case .object(let o) = try JSONReader.parse(String(line)).decodingTypedValues() { docs!.append(o) }
                }
            }
            var path = c["data"]?.trimmingCharacters(in: .whitespaces) ?? "Corpus/data"
            if !path.hasPrefix("Corpus/") { path = "Corpus/" + path }
            out.append(Case(corpusCase: c, query: query, docs: docs, dataPath: path))
        }
        return out
    }

    /// Runs every case; `fresh` gives an empty database. Data sets are loaded
    /// once while consecutive cases share them.
    static func run<DB: SQLDatabaseWriter>(_ test: XCTestCase, _ name: String, fresh: () throws -> DB) throws -> Differential.Tally {
        var tally = Differential.Tally()
        var loaded: (String, DocumentStore, DB)?
        var failures = 0
        for c in try cases() {
            let store: DocumentStore, db: DB
            if let docs = c.docs {
                store = DocumentStore([c.query.className: docs])
                db = try fresh()
                try db.insert(docs, into: c.query.className)
                loaded = nil
            } else {
                let full = Corpus.repositoryRoot.appendingPathComponent(c.dataPath).path
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
                let className = isDirectory.boolValue ? nil : c.query.className
                if let l = loaded, l.0 == c.dataPath + "|" + (className ?? "") {
                    (store, db) = (l.1, l.2)
                } else {
                store = try DocumentStore.load(path: full, className: className)
                db = try fresh()
                try db.load(path: full, className: className, indexes: [])
                loaded = (c.dataPath + "|" + (className ?? ""), store, db)
                }
            }
            if let failure = Differential.compare(c.query, store: store, db: db, tally: &tally) {
                failures += 1
                XCTFail("\(c.corpusCase) [\(c.corpusCase["row"] ?? "")]: \(c.corpusCase["query"] ?? "")\n  \(failure)")
            }
        }
        print("eval corpus on \(name): \(tally.queries) queries, \(tally.rows) rows compared; \(tally.exact) exact in SQL, \(tally.prefiltered) prefiltered and re-checked; \(tally.optimized) also run as the optimizer rewrote them; \(tally.errors) failed on both sides with the same kind of error")
        XCTAssertEqual(failures, 0)
        return tally
    }
}
