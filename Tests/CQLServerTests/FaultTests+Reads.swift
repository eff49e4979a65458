import CQLKit
import CorpusSupport
import CQLSQL
import Foundation
import XCTest

/// A slow neighbour starves nobody: while slow scans keep every reader they
/// may busy, a get by objectId waits for none of them (scans run on one
/// fewer than the readers: Server.md, "Slow neighbours"), and writes
/// waiting for the write lock hold no reader's thread.
final class FaultTestsReads: XCTestCase {
    /// 8 clients scanning 60,000 objects with a `$regex` (each scan well
    /// over the gets' bound) beside one client getting one object by id,
    /// and one writing: the gets' p99 stays under 0.5 s.
    func testAGetBesideSlowScansWaitsForNone() async throws {
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try SQLiteDatabase(path: dir + "/app.db")
        try db.insert(Self.bigObjects, into: "Big")
        try db.insert([["objectId": "one", "n": 1]], into: "Item")
        try await getsBesideScans(["--sqlite", dir + "/app.db"], dir)
    }

    /// The same on PostgreSQL, where a handler reads through its event
    /// loop's lanes, or another loop's when scans hold all of its own
    /// (Server.md, "Slow neighbours"; `LanePlacementTests`).
    func testAGetBesideSlowScansWaitsForNoneOnPostgreSQL() async throws {
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lines = Self.bigObjects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n") + "\n"
        try lines.write(toFile: dir + "/Big.ndjson", atomically: true, encoding: .utf8)
        try #"{"objectId":"one","n":1}"#.write(toFile: dir + "/Item.ndjson", atomically: true, encoding: .utf8)
        for name in ["Big", "Item"] {
            let (status, errors) = try FaultTestsCLI.cql(["load", "--postgres", pg.url, dir + "/\(name).ndjson"], in: dir)
            XCTAssertEqual(status, 0, errors)
        }
        try await getsBesideScans(["--postgres", pg.url], dir)
    }

    static let bigObjects: [[String: Value]] = (0..<60_000).map { ["objectId": .string("b\($0)"), "s": .string("a line of text number \($0) to match")] }

    func getsBesideScans(_ database: [String], _ dir: String) async throws {
        let server = try ServedProcess(database + ["--readers", "4", "--timeout", "30"], directory: dir)
        let timeline = Timeline()
        let clients = LoadClients(base: server.base, timeline: timeline, patience: 40)
        defer { Task { await clients.shutdown() } }
        let scan = LoadClients.Request(what: "scan", method: .GET, path: "/1.1/classes/Big?count=1&limit=0&where="
                                       + #"{"s":{"$regex":"n.*r.*9.*9.*9$"}}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        clients.start(8, [scan], pause: 0)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        let getter = LoadClients(base: server.base, timeline: timeline, patience: 40)
        defer { Task { await getter.shutdown() } }
        getter.start(1, [.init(what: "get", method: .GET, path: "/1.1/classes/Item/one")], pause: 0.05)
        getter.start(1, [.init(what: "write", method: .POST, path: "/1.1/classes/Item", body: #"{"n":2}"#)], pause: 0.2)
        try await Task.sleep(nanoseconds: 6_000_000_000)
        await getter.stop()
        await clients.stop()
        let scans = timeline.all.filter { $0.what == "scan" && $0.status == 200 }.map(\.seconds).sorted()
        let gets = timeline.all.filter { $0.what == "get" }
        let getSeconds = gets.map(\.seconds).sorted()
        let p99 = getSeconds.isEmpty ? 99 : getSeconds[min(getSeconds.count - 1, Int(Double(getSeconds.count) * 0.99))]
        print(String(format: "\(database[0]): scans: %d answered, median %.2f s; gets: %d, p50 %.3f s, p99 %.3f s, max %.3f s", scans.count,
                     scans.isEmpty ? 0 : scans[scans.count / 2], gets.count, getSeconds.isEmpty ? 0 : getSeconds[getSeconds.count / 2], p99,
                     getSeconds.last ?? 0))
        XCTAssertTrue(gets.allSatisfy { $0.status == 200 }, "\(gets.filter { $0.status != 200 }.prefix(3))")
        XCTAssertTrue(timeline.all.filter { $0.what == "write" }.allSatisfy { $0.status == 201 }, "writes failed")
        // The scans must be slow for the bound to mean anything.
        XCTAssertGreaterThan(scans.isEmpty ? 0 : scans[scans.count / 2], 0.5, "the scans were not slow: \(scans)")
        XCTAssertLessThan(p99, 0.5, "a get waited behind the scans")
        XCTAssertEqual(server.stop(within: 40), 0)
    }
}
