import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// LiveQuery across two `cql serve --postgres` processes (the built binary)
/// on one database: subscribers connect to and subscribe through A, every
/// write goes through B (Tests/Clients/livequery_processes.py). Create,
/// update and delete reach A with their content, a large object's too (its
/// notification spilled to the table), a private object only its reader;
/// then the listening connections are terminated (`pg_terminate_backend`),
/// and PostgreSQL restarted, and events resume each time.
final class LiveQueryProcessesTests: XCTestCase {
    func testWritesThroughOneProcessReachSubscribersOfAnother() async throws {
        guard FileManager.default.isExecutableFile(atPath: PythonSDKTests.python) else {
            XCTFail("\(PythonSDKTests.python) is missing: scripts/setup makes the virtualenv (with websockets and protobuf)")
            return
        }
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let dir = NSTemporaryDirectory() + "cql-lq-processes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try ServedProcess(["--postgres", pg.url, "--timeout", "2"], directory: dir)
        let b = try ServedProcess(["--postgres", pg.url, "--timeout", "2"], directory: dir)

        func phase(_ name: String, minimum: Int) throws {
            let (status, output, errors) = try PythonSDKTests.run(
                [PythonSDKTests.root + "/Tests/Clients/livequery_processes.py", name], port: a.port,
                environment: ["CQL_APP_ID": ServerHarness.keys.appId, "CQL_APP_KEY": ServerHarness.keys.appKey,
                              "CQL_MASTER_KEY": ServerHarness.keys.masterKey, "CQL_WRITE_SERVER": b.base,
                              "PYTHONPATH": PythonSDKTests.root + "/Tests/Clients"])
            XCTAssertEqual(status, 0, "\(name): the client failed:\n\(errors)\n\(output)")
            let checked = try PythonSDKTests.checkedAsserts(output, name)
            for (check, detail) in checked where check == "timing" || name == "resume" {
                print("LiveQueryProcessesTests \(name) \(check): \(JSONWriter.string(detail))")
            }
            let asserts = checked.count
            XCTAssertGreaterThanOrEqual(asserts, minimum, "\(name): asserts checked\n\(errors)\nA said:\n\(a.stderr.suffix(2000))")
        }

        /// Waits until A says it listens again (after `count` gaps in all).
        func listeningAgain(_ count: Int) async {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, a.stderr.components(separatedBy: "listening on PostgreSQL again").count - 1 < count {
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
            XCTAssertEqual(a.stderr.components(separatedBy: "listening on PostgreSQL again").count - 1, count,
                           "A did not say it listens again:\n\(a.stderr.suffix(2000))")
        }

        try phase("events", minimum: 17)
        // The database's own floor, measured in the same run: a bare
        // pg_notify committed by one connection, heard by a listening one.
        let floor = try await Self.bareNotifyRoundTrips(pg.url, count: 200).sorted()
        print("LiveQueryProcessesTests bare LISTEN/NOTIFY round trip, ms p50/p90/p99: "
              + [0.5, 0.9, 0.99].map { String(format: "%.2f", floor[Int($0 * Double(floor.count - 1))]) }.joined(separator: "/"))

        // The listening connections terminated, the other connections kept.
        let admin = try PostgreSQLDatabase(url: pg.url)
        let listeners = try admin.integer(SQLStatement(
            sql: "SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE application_name = $1",
            arguments: [.string("cql-livequery")]))
        XCTAssertEqual(listeners, 2, "one listening connection per process")
        await listeningAgain(1)
        try phase("resume", minimum: 1)

        // PostgreSQL restarted: every connection lost, the listeners made again.
        try pg.restart(mode: "fast")
        await listeningAgain(2)
        try phase("resume", minimum: 1)
        XCTAssertTrue(a.isRunning && b.isRunning)
    }

    /// Milliseconds from `SELECT pg_notify(...)` sent (autocommit) to its
    /// payload heard by a ``PostgreSQLListener``, `count` times in turn.
    static func bareNotifyRoundTrips(_ url: String, count: Int) async throws -> [Double] {
        let listener = try PostgreSQLListener(url: url, channel: "cql_floor", applicationName: "cql-floor")
        let sender = try PostgreSQLDatabase(url: url)
        let (heard, hear) = AsyncStream.makeStream(of: String.self)
        let task = Task {
            await listener.run(onListening: { _ in hear.yield("") }, onNotification: { payload in hear.yield(payload) })
        }
        defer { task.cancel() }
        var next = heard.makeAsyncIterator()
        _ = await next.next()   // listening
        var out: [Double] = []
        for n in 0..<count {
            let sent = ContinuousClock.now
            _ = try sender.integer(SQLStatement(sql: "SELECT 1::int8 FROM pg_notify($1, $2)", arguments: [.string("cql_floor"), .string("\(n)")]))
            guard await next.next() == "\(n)" else { throw PostgreSQLServer.Failure(description: "notification \(n) not heard in order") }
            out.append(FaultSupport.elapsed(since: sent) * 1000)
        }
        return out
    }
}
