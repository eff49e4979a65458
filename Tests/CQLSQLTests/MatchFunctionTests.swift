import CQLEval
import CQLKit
import CQLSQL
import Foundation
import XCTest

/// SQLite's registered `cql_match(doc, where)` (the structural scan over the
/// document text, the condition compiled once per statement) answers as the
/// evaluator does on the object read by the reader — on hostile documents
/// (non-ASCII, escapes, typed values, arrays, duplicate keys, malformed
/// text) — and `cql run` sends it the conjuncts no index serves while an
/// indexed key keeps its index.
final class MatchFunctionTests: XCTestCase {
    static let documents: [String] = [
        #"{"title":"学习 报告","priority":5,"done":false,"tags":["重要","work"]}"#,
        #"{"title":"Café","priority":4,"done":true,"tags":[]}"#,
        #"{"title":"caf\u00e9 \ud83d\ude00","priority":4.0,"done":false,"tags":"重要"}"#,
        #"{"title":"e\u0301","priority":[1,5],"done":[false],"meta":{"source":"ios","n":1}}"#,
        #"{"priority":"5","done":0,"meta":{"source":"安卓"},"x":null}"#,
        #"{"due":{"__type":"Date","iso":"2024-05-01T08:00:00.000Z"},"priority":4,"done":false}"#,
        #"{"due":{"__type":"Date","iso":"2024-05-01T08:00:00Z"},"owner":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#,
        #"{"owner":{"__type":"Pointer","className":"_User","objectId":"u2"},"location":{"__type":"GeoPoint","latitude":30,"longitude":120}}"#,
        #"{"priority":4,"priority":1,"done":false}"#,
        #"{"priority":1e2,"done":false,"big":123456789012345678901234,"neg":-0.0}"#,
        #"{"meta":[{"source":"ios"},{"source":"web"}],"tags":[["重要"]],"title":"\"quoted\"\n\t"}"#,
        #"{"title":"\u5b66\u4e60","x":{"y":{"z":[1,{"w":"深"}]}}}"#,
        #"{}"#,
        "  {\"priority\" : 4 ,\"done\": false }  ",
    ]

    /// Not JSON objects: each an error of the reader's kind (or no match
    /// where the reader would not run: none here).
    static let malformed: [String] = [
        "", "{", "[1,2]", "\"text\"", #"{"a":1,}"#, "not json", #"{"a":"\ud800"}"#, #"{"a":tru}"#,
        #"{"a":1}{"b":2}"#, #"{"学":"x""#,
    ]

    static let conditions: [String] = [
        #"{"priority":{"$gte":4}}"#,
        #"{"$and":[{"priority":{"$gte":4}},{"done":false}]}"#,
        #"{"title":"学习 报告"}"#,
        #"{"title":"café 😀"}"#,
        #"{"title":{"$regex":"^(学|caf)","$options":"i"}}"#,
        #"{"tags":"重要"}"#,
        #"{"tags":{"$size":0}}"#,
        #"{"meta.source":{"$in":["ios","安卓"]}}"#,
        #"{"due":{"$gte":{"__type":"Date","iso":"2024-05-01T08:00:00.000Z"}}}"#,
        #"{"owner":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#,
        #"{"location":{"$within":{"$box":[[119,29],[121,31]]}}}"#,
        #"{"x":null}"#,
        #"{"x":{"$exists":false}}"#,
        #"{"$or":[{"priority":{"$lt":2}},{"title":{"$type":"string"}}]}"#,
        #"{"x.y.z.w":"深"}"#,
        #"{"priority":{"$type":"string"}}"#,
    ]

    enum Answer: Equatable {
        case match(Bool)
        case error(QueryError.Kind)
    }

    /// The evaluator's answer on the reader's object.
    static func evaluator(_ document: String, _ whereJSON: String) -> Answer {
        do throws(QueryError) {
            return .match(try EvaluatorFunctions.matches(whereJSON: whereJSON, object: try DataFiles.object(json: document)))
        } catch {
            return .error(error.kind)
        }
    }

    static func sqlite(_ db: SQLiteDatabase, _ document: String, _ whereJSON: String) -> Answer {
        do throws(QueryError) {
            let n = try db.integer(SQLStatement(sql: "SELECT cql_match(?1, ?2)", arguments: [.string(document), .string(whereJSON)]))
            return .match(n == 1)
        } catch {
            return .error(error.kind)
        }
    }

    func testEveryDocumentAndConditionAnswersAsTheEvaluator() throws {
        let db = try SQLiteDatabase(path: nil)
        var compared = 0
        for w in Self.conditions {
            for d in Self.documents + Self.malformed {
                XCTAssertEqual(Self.sqlite(db, d, w), Self.evaluator(d, w), "\(w) on \(d)")
                compared += 1
            }
        }
        // The malformed ones are errors, not silent non-matches.
        for d in Self.malformed {
            XCTAssertEqual(Self.sqlite(db, d, Self.conditions[0]), .error(.data), d)
        }
        XCTAssertGreaterThan(compared, 300)
    }

    /// Many rows through one statement: the compiled condition and its
    /// scratch scanners are kept across rows (auxiliary data) and give each
    /// row its own answer.
    func testOneStatementOverManyRowsKeepsEachRowsAnswer() throws {
        let db = try SQLiteDatabase(path: nil)
        for w in Self.conditions {
            // A document the reader refuses fails the whole statement (the
            // first test holds that): left out here.
            let docs = Self.documents.filter { if case .error = Self.evaluator($0, w) { return false } else { return true } }
            let values = (1...docs.count).map { "(?\($0))" }.joined(separator: ", ")
            let sql = "SELECT column1 AS \"doc\" FROM (VALUES \(values)) WHERE cql_match(column1, ?\(docs.count + 1))"
            let got = try db.documents(SQLStatement(sql: sql, arguments: docs.map { .string($0) } + [.string(w)]))
            XCTAssertEqual(got, docs.filter { Self.evaluator($0, w) == .match(true) }, w)
        }
    }

    /// `cql run` on SQLite: the conjuncts without an index go to one
    /// `cql_match` (the condition bound, not in the text); an indexed key
    /// keeps its SQL and its index; the answers are the evaluator's.
    func testRunSendsTheUnindexedConjunctsToOneCallAndKeepsTheIndex() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-match-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("Todo.ndjson")
        var lines: [String] = []
        for i in 0..<200 {
            lines.append(#"{"objectId":"t\#(i)","priority":\#(i % 6),"done":\#(i % 3 == 0),"title":"学习 \#(i)","tags":["重要"]}"#)
        }
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("t.db").path)
        try db.load(path: file.path, indexes: ["priority"])
        let store = try DocumentStore.load(path: file.path)
        let cases = [
            ("select * from Todo where title regexp '^学' and done = false", "USING INDEX", false),
            ("select * from Todo where priority >= 4 and done = false and title like '学%'", "USING INDEX Todo:priority:", true),
            ("select * from Todo where priority = 5 and tags = '重要' order by -priority limit 3", "USING INDEX Todo:priority:", true),
        ]
        for (cql, index, usesIndex) in cases {
            let q = try Binder.bind(try CQLParser.parse(cql), parameters: [])
            let plan = try SQLRunner.explain(q, on: db)
            let sql = plan.first { $0.hasPrefix("-- sql: ") } ?? ""
            XCTAssertEqual(sql.components(separatedBy: "cql_match(").count, 2, "one call: \(sql)")
            XCTAssertFalse(sql.contains("学"), "values stay bound: \(sql)")
            XCTAssertEqual(plan.contains { $0.contains(index) }, usesIndex, plan.joined(separator: "\n"))
            var tally = Differential.Tally()
            XCTAssertNil(Differential.compare(q, store: store, db: db, tally: &tally), cql)
        }
    }
}
