import CQLKit
import CQLSQL
import Foundation
import XCTest

/// Whose fault a failure is, as the status says: the server's host failing
/// (a file it may not grow: disk full) is 500 with code 1, a lock another
/// process holds past the request's time limit is 503 with code 124 — never
/// 400, which tells a client its request was wrong.
final class FaultTestsStatuses: XCTestCase {
    func directory() throws -> String {
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Another process holds SQLite's write lock: a create waits for it up
    /// to the request's deadline, not SQLite's 10 s, and is answered 503/124.
    func testAWriteBehindAnotherProcesssLockIs503WithinTheDeadline() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServedProcess(["--sqlite", dir + "/app.db", "--timeout", "1"], directory: dir)
        let timeline = Timeline()
        let clients = LoadClients(base: server.base, timeline: timeline, patience: 15)
        defer { Task { await clients.shutdown() } }
        let create = LoadClients.Request(what: "create", method: .POST, path: "/1.1/classes/Item", body: #"{"n":1}"#)
        await clients.send(create)
        // The write lock, held 2.5 s by this process (as `cql load` into the served file would).
        let holder = try SQLiteDatabase(path: dir + "/app.db")
        let held = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? holder.inWriteTransaction { _ throws(QueryError) in
                held.signal()
                usleep(2_500_000)
            }
            released.signal()
        }
        held.wait()
        await clients.send(create)
        released.wait()
        await clients.send(create)
        let (first, locked, after) = (timeline.all[0], timeline.all[1], timeline.all[2])
        XCTAssertEqual(first.status, 201)
        XCTAssertEqual(locked.status, 503, "\(locked)")
        XCTAssertEqual(locked.code, 124, "\(locked)")
        XCTAssertLessThan(locked.seconds, 2, "waited past the 1 s deadline: \(locked)")
        XCTAssertEqual(after.status, 201, "after the lock: \(after)")
        XCTAssertEqual(server.stop(within: 10), 0)
    }

    /// The database file may not grow (`ulimit -f`: what a full disk does
    /// to a write): 500 with code 1, and the server goes on reading.
    func testAWriteTheDiskCannotHoldIs500() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // SIGXFSZ ignored, so that a write past the limit fails (EFBIG) rather than killing the server.
        let server = try ServedProcess(["--sqlite", dir + "/app.db"], shellPrefix: "trap '' XFSZ; ulimit -f 4096", directory: dir)
        let timeline = Timeline()
        let clients = LoadClients(base: server.base, timeline: timeline, patience: 15)
        defer { Task { await clients.shutdown() } }
        await clients.send(.init(what: "small", method: .POST, path: "/1.1/classes/Item", body: #"{"n":1}"#))
        let big = String(repeating: "x", count: 1 << 20)
        for _ in 0..<8 {
            await clients.send(.init(what: "big", method: .POST, path: "/1.1/classes/Item", body: #"{"s":"\#(big)"}"#))
            if timeline.all.last?.status != 201 { break }
        }
        await clients.send(.init(what: "read", method: .GET, path: "/1.1/classes/Item?limit=1&keys=n"))
        let entries = timeline.all
        XCTAssertEqual(entries.first?.status, 201)
        let failed = try XCTUnwrap(entries.first { $0.what == "big" && $0.status != 201 }, "no write failed: \(entries)")
        XCTAssertEqual(failed.status, 500, "\(failed)")
        XCTAssertEqual(failed.code, 1, "\(failed)")
        XCTAssertEqual(entries.last?.status, 200, "reading after the failure: \(entries.last.map { "\($0)" } ?? "")")
        XCTAssertEqual(server.stop(within: 10), 0)
    }
}
