import CQLKit
import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval

/// Random write sequences (seeded) on random data, applied three ways after
/// each other, compared after every step:
/// - the bound statement on an in-memory store;
/// - the statement its REST request reads back as (`RESTReader.read(RESTEmitter.emit(s))`),
///   so the REST form means the same write;
/// - the statement on a data directory (`DataDirectory.apply`), so the files
///   keep every value exactly and failures leave them as they were.
/// Every step has the same outcome: the same summary, or the same error
/// (101, 305, an op on the wrong type, ...).
final class WriteDifferentialTests: XCTestCase {
    static let now = DateValue(millisecondsSince1970: 1_714_979_289_010)

    func testRandomWriteSequencesAgreeInMemoryThroughRESTAndOnFiles() throws {
        var failures = 0, successes = 0
        for seed in UInt64(1)...8 {
            var rng = SplitMix64(seed: seed &* 0x9E37_79B9)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-write-diff-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            var objects: [[String: Value]] = []
            for i in 1...8 {
                var o: [String: Value] = ["objectId": .string("o\(i)")]
                for k in RandomWrites.keys where rng.chance(0.75) { o[k] = RandomWrites.value(for: k, &rng) }
                objects.append(o)
            }
            let join = (1...4).map { i -> [String: Value] in ["owningId": .string("o\(i)"), "relatedId": .string("u\(i % 2 + 1)")] }
            for (name, docs) in [("T", objects), ("_Join:likes:T", join)] {
                try DataDirectory.serialize(docs, asJSONArray: false).withUnsafeBufferPointer { Data(buffer: $0) }
                    .write(to: URL(fileURLWithPath: dir + "/" + name + ".ndjson"))
            }
            var direct = DocumentStore(["T": objects, "_Join:likes:T": join])
            var viaREST = direct
            var log: [String] = []
            for step in 0..<25 {
                let text = RandomWrites.statement(&rng, ids: direct.objects(in: "T").compactMap { $0["objectId"]?.stringValue })
                log.append(text)
                let statement = try Binder.bind(try CQLParser.parseStatement(text), parameters: [], now: Self.now)
                let rest = try RESTReader.read(JSONWriter.string(try RESTEmitter.emit(statement)))
                func ids() -> () -> String {
                    var k = 0
                    return { k += 1; return "x\(step)_\(k)" }
                }
                let a = Self.outcome { () throws(QueryError) in try StatementExecutor.apply(statement, to: &direct, now: Self.now, newObjectId: ids()) }
                let b = Self.outcome { () throws(QueryError) in try StatementExecutor.apply(rest, to: &viaREST, now: Self.now, newObjectId: ids()) }
                let c = Self.outcome { () throws(QueryError) in try DataDirectory.apply(statement, path: dir, now: Self.now, newObjectId: ids()) }
                let context = "seed \(seed) step \(step): \(text)\nsequence:\n" + log.joined(separator: "\n")
                // The REST body holds the keys sorted: with two failing ops the
                // first error named may differ; that it fails may not.
                if !(a.hasPrefix("error") && b.hasPrefix("error")) { XCTAssertEqual(a, b, "in memory vs REST form — \(context)") }
                XCTAssertEqual(a, c, "in memory vs data directory — \(context)")
                if a.hasPrefix("error") { failures += 1 } else { successes += 1 }
                let files = try DocumentStore.load(path: dir)
                for name in ["T", "_Join:likes:T"] {
                    let want = Self.ndjson(direct.objects(in: name))
                    XCTAssertEqual(Self.ndjson(viaREST.objects(in: name)), want, "\(name) via REST — \(context)")
                    XCTAssertEqual(Self.ndjson(files.objects(in: name)), want, "\(name) on files — \(context)")
                }
            }
        }
        print("write sequences: \(successes) writes applied, \(failures) refused")
        // Both kinds of outcome are exercised.
        XCTAssertGreaterThan(failures, 30)
        XCTAssertGreaterThan(successes, 100)
    }

    static func outcome(_ body: () throws(QueryError) -> WriteResult) -> String {
        do { return JSONWriter.string(try body().summary) } catch { return "error: " + error.message }
    }

    static func ndjson(_ objects: [[String: Value]]) -> String {
        objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n")
    }
}
