import CQLEval
import CQLKit
import CQLSQL
import Foundation
import XCTest

/// The connection `cql serve` reads through (``PostgreSQLReadConnection``):
/// its SQL is generated from the preflight answer it got last, which the
/// statement itself checks. When the data changes under it — an array
/// arrives at an indexed key, so that key's array branch is needed again;
/// the index goes — the stale guess is caught in the same statement and the
/// answer is still the evaluator's.
extension PostgreSQLTests {
    func testAStaleGuessedPreflightIsCaughtAndTheAnswerStaysTheEvaluators() throws {
        let db = try database()
        let reader = try XCTUnwrap(Differential.asyncReader)
        var objects: [[String: Value]] = (0..<6).map { i in ["objectId": .string("p\(i)"), "tags": i % 2 == 0 ? "vip" : "new", "n": .int(Int64(i))] }
        let lines = NSTemporaryDirectory() + "guesses-\(UUID().uuidString).ndjson"
        try objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: lines) }
        try db.load(path: lines, className: "Player", indexes: ["tags"])
        let queries = [
            Query(className: "Player", condition: Condition(.compare("tags", .equal, .value("vip"))), order: [OrderKey("n", descending: true)],
                  limit: .value(3)),
            Query(className: "Player", count: .only, condition: Condition(.compare("tags", .equal, .value("vip")))),
            Query(className: "Player", condition: Condition(.in("tags", [.value("vip"), .value("x")], negated: false)), order: [OrderKey("objectId")]),
        ]

        func check(_ step: String) throws {
            var tally = Differential.Tally()
            for q in queries {
                if let failure = Differential.compare(q, store: DocumentStore(["Player": objects]), db: db, tally: &tally) {
                    XCTFail("\(step): \((try? CQLFormatter.format(q)) ?? "?"): \(failure)")
                }
            }
        }

        // Twice: the second run is guessed from the first's answer, and confirmed.
        try check("scalars")
        let before = reader.guessOutcomes
        try check("scalars again")
        XCTAssertGreaterThanOrEqual(reader.guessOutcomes.confirmed - before.confirmed, queries.count)

        // An array at the indexed key: the guess (no array there) is stale.
        let array: [String: Value] = ["objectId": "p9", "tags": ["vip", "x"], "n": 9]
        try db.insert([array], into: "Player")
        objects.append(array)
        let stale = reader.guessOutcomes
        try check("an array arrived")
        // The three share one question: the first query corrects it (each of
        // its three concurrent runs, which all began from the stale guess:
        // see Differential.asyncDisagreement), the others are guessed from
        // the corrected answer.
        XCTAssertGreaterThanOrEqual(reader.guessOutcomes.corrected - stale.corrected, 1, "the stale guess corrected")
        XCTAssertLessThanOrEqual(reader.guessOutcomes.corrected - stale.corrected, 3, "only the first query's runs corrected it")
        XCTAssertGreaterThanOrEqual(reader.guessOutcomes.confirmed - stale.confirmed, queries.count - 1)
        // The array object is in the answers (its `vip` element matches).
        final class Box: @unchecked Sendable { var ids: [String] = [] }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task {
            if let r = try? await SQLRunner.run(queries[0], on: reader) { box.ids = r.objects.compactMap { $0["objectId"]?.stringValue } }
            done.signal()
        }
        done.wait()
        XCTAssertEqual(box.ids, ["p9", "p4", "p2"])
    }
}
