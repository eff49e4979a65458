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

    private func writeLines(_ objects: [[String: Value]]) throws -> String {
        let path = NSTemporaryDirectory() + "keyreads-\(UUID().uuidString).ndjson"
        try objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
