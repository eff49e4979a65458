import CQLKit
import CQLServer
import XCTest

/// One hostile query cannot hold the server: its database work is stopped at
/// the time limit (SQLite: interrupted; PostgreSQL: statement_timeout).
final class ServerLimitsTests: XCTestCase {
    func testSlowQueryIsStoppedAtTheTimeLimit() async throws {
        // 60,000 objects filtered by a regex and ordered by two keys the
        // database must sort itself, under a 5 ms limit.
        var objects: [[String: Value]] = []
        for i in 0..<60_000 {
            objects.append(["objectId": .string(String(format: "%024x", i)), "s": .string("v\((i * 7919) % 60_000)"), "n": .int(Int64(i))])
        }
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database, timeout: 0.005, seed: ["Big": objects])
            let slow = try await h.call(.GET, "/1.1/classes/Big", query: [("where", #"{"s":{"$regex":"9$"}}"#), ("order", "s,-n"), ("limit", "5"), ("count", "1")])
            XCTAssertEqual(slow.status, 503, "\(database): \(slow.text)")
            XCTAssertEqual(slow.body["code"], 124, "\(database)")
            // The server goes on answering.
            let date = try await h.call(.GET, "/1.1/date")
            XCTAssertEqual(date.status, 200)
            await h.stop()
        }
    }
}
