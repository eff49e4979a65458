import AsyncHTTPClient
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// PostgreSQL going away under a running `cql serve`, as an operator meets
/// it: backends terminated, a fast and an immediate (crash) restart, a
/// frozen database that accepts connections and never answers, PostgreSQL
/// down, and SIGTERM while it is down.
///
/// Four clients keep asking (a get by id, read on the event-loop lanes; a
/// find with `include`, read by the blocking readers; a create, by the
/// writer) and every answer is kept on a timeline (printed). Required:
/// no request goes unanswered — every answer within the time limit and a
/// little more, a failure only 503 with code 100 (the database cannot be
/// reached) or 124 (the time limit) — every connection comes back by
/// itself once PostgreSQL does, and SIGTERM stops the server while
/// PostgreSQL is down.
final class FaultTestsPostgreSQL: XCTestCase {
    /// The server's `--timeout`, and the slack allowed past it.
    static let timeout = 2.0, slack = 1.0

    func testPostgreSQLRestartsUnderLoad() async throws {
        let pg = try PostgreSQLServer()
        try pg.start()
        defer {
            pg.freeze(false)
            pg.stop()
        }
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServedProcess(["--postgres", pg.url, "--timeout", "\(Self.timeout)", "--readers", "2"], directory: dir)

        let timeline = Timeline()
        let clients = LoadClients(base: server.base, timeline: timeline, patience: Self.timeout + 4)
        // An object to get, and the class to find in.
        await clients.send(.init(what: "seed", method: .POST, path: "/1.1/classes/Item", body: #"{"objectId":"x","n":0}"#))
        let seeded = timeline.all.first
        XCTAssertEqual(seeded?.status, 201, "seed")
        let found = try await ServerHarness.get(server.base + "/1.1/classes/Item?limit=1")
        let id = try XCTUnwrap(found["results"]?.array.first?["objectId"]?.string, "\(found)")
        clients.start(4, [
            .init(what: "get", method: .GET, path: "/1.1/classes/Item/\(id)"),
            .init(what: "include", method: .GET, path: "/1.1/classes/Item?include=ref&limit=2"),
            .init(what: "create", method: .POST, path: "/1.1/classes/Item", body: #"{"n":1}"#),
        ])

        func pause(_ seconds: Double) async { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
        // Each outage: when it began, from when every request must succeed
        // (2 s after PostgreSQL was back; half a second after the
        // terminations), and when the next began.
        var windows: [(name: String, from: Double, settled: Double, until: Double)] = []
        await pause(1)
        // 1. Every session of the server terminated.
        var t0 = timeline.now
        timeline.mark("pg_terminate_backend of every client backend")
        let admin = try PostgreSQLDatabase(url: pg.url)
        let terminated = try admin.terminateOtherBackends()
        timeline.mark("terminated \(terminated) backends")
        await pause(2)
        windows.append(("terminate", t0, t0 + 0.5, timeline.now))
        // 2, 3. Restarts.
        for mode in ["fast", "immediate"] {
            t0 = timeline.now
            timeline.mark("pg_ctl restart -m \(mode)")
            try pg.restart(mode: mode)
            let back = timeline.now
            timeline.mark("PostgreSQL accepts connections again")
            await pause(3)
            windows.append(("restart -m \(mode)", t0, back + 2, timeline.now))
        }
        // 4. Frozen: connections accepted, nothing answered.
        t0 = timeline.now
        timeline.mark("PostgreSQL frozen (SIGSTOP)")
        pg.freeze(true)
        await pause(4)
        pg.freeze(false)
        let thawed = timeline.now
        timeline.mark("PostgreSQL thawed (SIGCONT)")
        await pause(3.5)
        windows.append(("frozen", t0, thawed + 2, timeline.now))
        // 5. Down, then SIGTERM while it is down.
        timeline.mark("pg_ctl stop -m fast")
        try pg.halt(mode: "fast")
        let stoppedAt = timeline.now
        timeline.mark("PostgreSQL stopped")
        await pause(2.5)
        let sigtermAt = timeline.now
        timeline.mark("SIGTERM to cql serve")
        let status = server.stop(signal: SIGTERM, within: 10)
        timeline.mark("cql serve exited: \(status.map(String.init) ?? "no, killed after 10 s")")
        await clients.shutdown()
        try? pg.launch()

        print("FaultTestsPostgreSQL timeline (answers per half second, by when asked; 503/100: database unavailable, 503/124: time limit):\n"
              + timeline.summary())
        // The server's own account (its warnings, and the slow answers).
        let told = server.stderr.split(separator: "\n").filter { line in
            !line.contains(" info ") || line.split(separator: " ").last.flatMap { Double($0.dropLast(2)) }.map { $0 > 1000 } == true
        }
        print("cql serve said (warnings, errors, answers slower than 1 s):\n" + told.suffix(60).joined(separator: "\n"))
        let before = timeline.all.filter { $0.finished < sigtermAt }
        // A COMMIT under way when the connection went: its outcome is unknown (500).
        func commitLost(_ e: Timeline.Entry) -> Bool { e.status == 500 && e.code == 1 && e.error?.contains("during COMMIT") == true }
        // No request unanswered, none slower than the limit and a little more.
        // (A request sent in the instant of SIGTERM may find its connection closing.)
        let unanswered = timeline.all.filter { $0.at < sigtermAt - 0.2 && $0.status <= 0 }
        XCTAssertTrue(unanswered.isEmpty, "\(unanswered.count) requests got no answer, e.g. \(unanswered.prefix(3))")
        let slow = before.filter { $0.seconds > Self.timeout + Self.slack }
        XCTAssertTrue(slow.isEmpty, "\(slow.count) answers slower than \(Self.timeout + Self.slack) s, e.g. \(slow.prefix(3))")
        // Every failure says the database is unavailable or the time is up.
        let wrong = before.filter { $0.status >= 300 && !($0.status == 503 && ($0.code == 100 || $0.code == 124)) && !commitLost($0) }
        XCTAssertTrue(wrong.isEmpty, "failures other than 503/100 and 503/124: \(wrong.prefix(5))")
        // Recovery by itself: every kind answers, and nothing fails, once settled.
        for w in windows {
            let after = timeline.all.filter { $0.at >= w.settled && $0.finished < w.until }
            for kind in ["get", "include", "create"] {
                XCTAssertTrue(after.contains { $0.what == kind && $0.status < 300 }, "\(w.name): no \(kind) answered after the recovery")
            }
            let failed = after.filter { $0.status >= 300 || $0.status <= 0 }
            XCTAssertTrue(failed.isEmpty, "\(w.name): \(failed.count) failures 2 s after PostgreSQL was back: \(failed.prefix(3))")
        }
        // Terminated backends: each request runs again on a new connection.
        let duringTerminate = timeline.all.filter { $0.finished >= windows[0].from && $0.finished < windows[0].until && $0.status >= 300 && !commitLost($0) }
        XCTAssertTrue(duringTerminate.isEmpty, "terminated backends failed requests: \(duringTerminate.prefix(3))")
        // While down: answered at once, 503/100.
        let down = timeline.all.filter { $0.at >= stoppedAt + 0.2 && $0.finished < sigtermAt }
        XCTAssertFalse(down.isEmpty, "no answers while PostgreSQL was down")
        XCTAssertTrue(down.allSatisfy { $0.status == 503 && $0.code == 100 && $0.seconds < 0.5 }, "while down: \(down.filter { $0.status != 503 || $0.code != 100 || $0.seconds >= 0.5 }.prefix(5))")
        XCTAssertEqual(status, 0, "SIGTERM while PostgreSQL is down: \(status.map(String.init) ?? "did not exit in 10 s")\n\(server.stderr.suffix(3000))")
    }
}

extension PostgreSQLDatabase {
    /// `pg_terminate_backend` of every client backend but this one: how many.
    func terminateOtherBackends() throws(QueryError) -> Int {
        try integer(SQLStatement(sql: "SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity "
                                 + "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'", arguments: []))
    }
}

extension ServerHarness {
    /// A GET with the app key's headers, its JSON body.
    static func get(_ url: String) async throws -> Value {
        let clients = LoadClients(base: "", timeline: Timeline(), patience: 10)
        defer { Task { try? await clients.client.shutdown() } }
        var request = HTTPClientRequest(url: url)
        for (name, value) in appHeaders { request.headers.add(name: name, value: value) }
        let response = try await clients.client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return try JSONReader.parse(String(buffer: bytes))
    }
}
