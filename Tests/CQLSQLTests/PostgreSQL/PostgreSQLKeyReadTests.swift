import CQLEval
import Foundation
@testable import CQLKit
import CQLSQL
import CorpusSupport
import XCTest

/// Equality and `in` read key by key (`->`, ``PostgreSQLDialect/keyReadMembership(_:_:_:)``)
/// on a class without the document index: the evaluator's answers on the
/// shapes that tell the forms apart — scalars and arrays of them, nested
/// arrays, numbers written two ways, arrays of objects on the way (the
/// walk's fan-out), typed values on the way (a Pointer's `objectId` is not
/// a step), an `Object` pointer (which is) — and the path test back once
/// the index is there.
extension PostgreSQLTests {
    func testKeyReadsAnswerAsTheEvaluator() throws {
        let db = try database()
        let pointer: Value = .pointer(Pointer(className: "_User", objectId: "ios"))
        let values: [Value] = ["ios", ["ios", "x"], [["ios"]], 1, 1.0, [1.0, 2], true, [false, true], "1", ["a": "ios"], .null, [], ["ios", ["ios"]]]
        var objects: [[String: Value]] = []
        for (i, v) in values.enumerated() {
            var o: [String: Value] = ["objectId": .string("k\(i)"), "k": v]
            // `meta` and `a`: the value behind objects, arrays of objects, nested arrays and typed values.
            switch i % 6 {
            case 0: o["meta"] = ["source": v, "objectId": v]
            case 1: o["meta"] = [["source": v], ["source": "web"]]
            case 2: o["meta"] = [[["source": v]]]
            case 3: o["meta"] = pointer
            case 4: o["meta"] = .typedObject(className: "Post", fields: ["source": v, "objectId": v])
            default: o["meta"] = v
            }
            o["a"] = i % 3 == 0 ? ["b": ["c": v]] : i % 3 == 1 ? [["b": [["c": v]]]] : ["b": [["c": v], "x"]]
            if i == 7 { o["k"] = nil }
            objects.append(o)
        }
        try db.insert(objects, into: "K")
        let store = DocumentStore(["K": objects])
        let constants: [Value] = ["ios", 1, 1.5, true, false, "1", "x", "web"]
        let paths: [FieldPath] = ["k", "meta.source", "meta.objectId", "a.b.c", "a.b", "meta"]
        var queries: [CQLKit.Predicate] = []
        for path in paths {
            for (i, c) in constants.enumerated() {
                let pair: [Term] = [.value(c), .value(constants[(i + 3) % constants.count])]
                queries += [.compare(path, .equal, .value(c)), .compare(path, .notEqual, .value(c)),
                            .in(path, pair, negated: false), .in(path, pair, negated: true), .all(path, pair)]
            }
        }
        var tally = Differential.Tally()
        var keyReads = 0
        for predicate in queries {
            let q = Query(className: "K", condition: Condition(predicate))
            let text = (try? CQLFormatter.format(q)) ?? "\(predicate)"
            if let failure = Differential.compare(q, store: store, db: db, tally: &tally) { XCTFail("\(text): \(failure)") }
            if try SQLRunner.explain(q, on: db).contains(where: { $0.hasPrefix("-- sql:") && $0.contains(" -> ") }) { keyReads += 1 }
        }
        // Every path but those through a typed value's own key reads keys.
        XCTAssertEqual(keyReads, queries.count / paths.count * 5, "queries read key by key")
        XCTAssertGreaterThan(tally.rows, 500)

        // With the document index, the path tests the index serves.
        let lines = try writeLines(objects)
        defer { try? FileManager.default.removeItem(atPath: lines) }
        try db.load(path: lines, className: "J", indexes: ["k"])
        let indexed = try SQLRunner.explain(Query(className: "J", condition: Condition(.compare("meta.source", .equal, .value("ios")))), on: db)
        XCTAssertFalse(indexed.contains { $0.hasPrefix("-- sql:") && $0.contains(" -> 'meta'") }, indexed.joined(separator: "\n"))
    }

    /// Ranges on a key without an index are one path test (the key read
    /// once per row), with an index the scalar branch the index serves plus
    /// the path test for arrays: both answer as the evaluator, on numbers
    /// written two ways, strings, arrays of both, nested arrays, objects,
    /// typed values, null and a missing key, and under `not`.
    func testRangesWithoutAnIndexAreOnePathTestAndAnswerAsTheEvaluator() throws {
        let db = try database()
        let values: [Value] = [1, 1.0, 4, 4.5, -3, "4", "b", "ab", [1, 5], [[5]], ["a", "c"], [], ["k": 5], .null, true,
                               .date(ISODate.parse("2024-03-05T08:09:10.123Z")!), .pointer(Pointer(className: "_User", objectId: "c"))]
        var objects: [[String: Value]] = []
        for (i, v) in values.enumerated() { objects.append(["objectId": .string("r\(i)"), "k": v]) }
        objects.append(["objectId": "missing"])
        try db.insert(objects, into: "R")
        let store = DocumentStore(["R": objects])
        var tally = Differential.Tally()
        var queries: [Query] = []
        for op in [ComparisonOperator.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual] {
            for c: Value in [4, 1.0, 0, "b", ""] {
                let leaf = Condition(.compare("k", op, .value(c)))
                queries.append(Query(className: "R", condition: leaf))
                queries.append(Query(className: "R", condition: .not(leaf)))
            }
        }
        for q in queries {
            let text = (try? CQLFormatter.format(q)) ?? "a range"
            if let failure = Differential.compare(q, store: store, db: db, tally: &tally) { XCTFail("\(text): \(failure)") }
            let explain = try SQLRunner.explain(q, on: db)
            XCTAssertTrue(explain.contains("-- no index on: k (ranges are one path test: no branch for an index)"), explain.joined(separator: "\n"))
            XCTAssertFalse(explain.contains { $0.hasPrefix("-- sql:") && $0.contains("jsonb_typeof") }, explain.joined(separator: "\n"))
        }
        XCTAssertGreaterThan(tally.rows, 100)

        // With the key's index: the branch it serves, and the same answers.
        let lines = try writeLines(objects)
        defer { try? FileManager.default.removeItem(atPath: lines) }
        try db.load(path: lines, className: "RI", indexes: ["k"])
        let indexedStore = DocumentStore(["RI": objects])
        for q in queries {
            var qi = q
            qi.className = "RI"
            if let failure = Differential.compare(qi, store: indexedStore, db: db, tally: &tally) { XCTFail("indexed \((try? CQLFormatter.format(q)) ?? "a range"): \(failure)") }
        }
        let explain = try SQLRunner.explain(Query(className: "RI", condition: Condition(.compare("k", .greaterThan, .value(4)))), on: db)
        XCTAssertTrue(explain.contains { $0.hasPrefix("-- sql:") && $0.contains("jsonb_typeof") }, explain.joined(separator: "\n"))
        XCTAssertFalse(explain.contains { $0.hasPrefix("-- no index on:") }, explain.joined(separator: "\n"))
    }

    private func writeLines(_ objects: [[String: Value]]) throws -> String {
        let path = NSTemporaryDirectory() + "keyreads-\(UUID().uuidString).ndjson"
        try objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
