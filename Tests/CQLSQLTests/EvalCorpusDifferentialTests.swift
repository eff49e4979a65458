import CQLEval
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// Every `Corpus/eval` case on the evaluator and on SQLite: the same
/// objects in the same order (or both an error).
final class EvalCorpusDifferentialTests: XCTestCase {
    func testEvalCorpusOnSQLite() throws {
        let cases = try Corpus.cases(in: "eval")
        var tally = Differential.Tally()
        var dataSets: [String: (DocumentStore, SQLiteDatabase)] = [:]
        var failures = 0
        for c in cases {
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
            let store: DocumentStore, db: SQLiteDatabase
            if let docs = c["docs"] {
                var objects: [[String: Value]] = []
                for line in docs.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                    guard case .object(let o) = try JSONReader.parse(String(line)).decodingTypedValues() else { continue }
                    objects.append(o)
                }
                store = DocumentStore([query.className: objects])
                db = try SQLiteDatabase(path: nil)
                try db.insert(objects, into: query.className)
            } else {
                var path = c["data"]?.trimmingCharacters(in: .whitespaces) ?? "Corpus/data"
                if !path.hasPrefix("Corpus/") { path = "Corpus/" + path }
                if let cached = dataSets[path] {
                    (store, db) = cached
                } else {
                    let full = Corpus.repositoryRoot.appendingPathComponent(path).path
                    let isFile = !FileManager.default.fileExists(atPath: full + "/.") 
                    store = try DocumentStore.load(path: full, className: isFile ? query.className : nil)
                    db = try SQLiteDatabase(path: nil)
                    try db.load(path: full, className: isFile ? query.className : nil)
                    dataSets[path] = (store, db)
                }
            }
            if let failure = Differential.compare(query, store: store, db: db, tally: &tally) {
                failures += 1
                XCTFail("\(c) [\(c["row"] ?? "")]: \(text)\n  \(failure)")
            }
        }
        print("eval corpus on SQLite: \(tally.queries) queries, \(tally.rows) rows compared; \(tally.exact) exact in SQL, \(tally.prefiltered) prefiltered and re-checked")
        XCTAssertGreaterThan(tally.queries, 300)
        XCTAssertEqual(failures, 0)
    }
}
