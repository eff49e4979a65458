import CorpusSupport
import Foundation
import XCTest

/// `cql serve` as a user runs it: generated keys, curl, SIGTERM, kill -9.
final class ServeCommandTests: XCTestCase {
    /// A running `cql serve` child and what it printed on stderr.
    final class ServeProcess: @unchecked Sendable {
        let process = Process()
        let errors = Pipe()
        var port = 0
        var banner = ""

        init(_ arguments: [String], environment: [String: String] = [:], directory: String) throws {
            process.executableURL = CLITests.binary
            process.arguments = ["serve", "--port", "0"] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            var env = ProcessInfo.processInfo.environment
            for key in ["CQL_APP_ID", "CQL_APP_KEY", "CQL_MASTER_KEY"] { env.removeValue(forKey: key) }
            env.merge(environment) { $1 }
            process.environment = env
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // Read stderr until the listening line.
            let deadline = Date().addingTimeInterval(60)
            while port == 0 && Date() < deadline {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                banner += String(decoding: chunk, as: UTF8.self)
                if let r = banner.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    port = Int(banner[r].split(separator: ":").last!)!
                }
            }
            if port == 0 { process.terminate(); throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no listening line: \(banner)"]) }
        }

        func stop(signal: Int32) -> Int32 {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// curl: the status line's code and the body.
    func curl(_ arguments: [String]) throws -> (Int, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-s", "-w", "\n%{http_code}"] + arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let code = Int(text.split(separator: "\n").last ?? "") ?? 0
        return (code, String(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().joined(separator: "\n")))
    }

    func testGeneratedKeysCurlAndGracefulStop() throws {
        let dir = NSTemporaryDirectory() + "cql-serve-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServeProcess([], directory: dir)
        // The default database and the keys beside it, shown once.
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/cql.db"))
        let keysText = try String(contentsOfFile: dir + "/cql.db.keys", encoding: .utf8)
        let keys = Dictionary(uniqueKeysWithValues: keysText.split(separator: "\n").map { line -> (String, String) in
            let parts = line.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), String(parts[1]))
        })
        let appId = try XCTUnwrap(keys["CQL_APP_ID"]), appKey = try XCTUnwrap(keys["CQL_APP_KEY"]), master = try XCTUnwrap(keys["CQL_MASTER_KEY"])
        XCTAssertTrue(server.banner.contains(appKey) && server.banner.contains(master), server.banner)
        let base = "http://127.0.0.1:\(server.port)"
        // curl without a key: 401 JSON.
        let (denied, deniedBody) = try curl([base + "/1.1/classes/Todo"])
        XCTAssertEqual(denied, 401)
        XCTAssertEqual(deniedBody, #"{"code":401,"error":"Unauthorized."}"#)
        // With the key: a write and a read.
        let (created, body) = try curl(["-X", "POST", "-H", "X-LC-Id: \(appId)", "-H", "X-LC-Key: \(appKey)", "-H", "Content-Type: application/json",
                                        "-d", #"{"title":"hello"}"#, base + "/1.1/classes/Todo"])
        XCTAssertEqual(created, 201, body)
        // A bad CQL: 400 with code 300 and the line and column.
        let (bad, badBody) = try curl(["-G", "-H", "X-LC-Id: \(appId)", "-H", "X-LC-Key: \(appKey)", "--data-urlencode", "cql=select * from Todo where", base + "/1.1/cloudQuery"])
        XCTAssertEqual(bad, 400)
        XCTAssertTrue(badBody.hasPrefix(#"{"code":300,"error":"CQL syntax error. Detail: 1:"#), badBody)
        // The access log is written in batches, at most 50 ms late: its lines
        // come while the server runs, not only when it exits.
        var early = ""
        let stderrFD = server.errors.fileHandleForReading.fileDescriptor
        let until = Date().addingTimeInterval(10)
        while early.components(separatedBy: " /1.1/").count - 1 < 3 && Date() < until {
            var p = pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 200) > 0 { early += String(decoding: server.errors.fileHandleForReading.availableData, as: UTF8.self) }
        }
        XCTAssertEqual(early.components(separatedBy: " /1.1/").count - 1, 3, early)
        // SIGTERM: exit 0.
        XCTAssertEqual(server.stop(signal: SIGTERM), 0)
        // One access-log line per request: UTC time, method, path, status,
        // milliseconds; never a key, a query string or a body.
        let log = server.banner + early + String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let access = log.split(separator: "\n").filter { $0.contains(" /1.1/") }
        XCTAssertEqual(access.count, 3, log)
        for (line, expected) in zip(access, ["GET /1.1/classes/Todo 401 ", "POST /1.1/classes/Todo 201 ", "GET /1.1/cloudQuery 400 "]) {
            XCTAssertNotNil(line.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info cql\.serve: "#, options: .regularExpression), String(line))
            XCTAssertTrue(line.contains(": " + expected) && line.hasSuffix("ms"), String(line))
        }
        // The keys are in the start-up banner only (shown once); nothing after it holds one.
        let afterBanner = log.dropFirst(server.banner.count)
        for secret in [appKey, master, "hello", "select"] { XCTAssertFalse(afterBanner.contains(secret), secret) }
        // Restarted, the same keys (not shown again) and the same data.
        let again = try ServeProcess([], directory: dir)
        XCTAssertFalse(again.banner.contains(master), again.banner)
        let (found, foundBody) = try curl(["-H", "X-LC-Id: \(appId)", "-H", "X-LC-Key: \(appKey)", "http://127.0.0.1:\(again.port)/1.1/classes/Todo"])
        XCTAssertEqual(found, 200)
        XCTAssertTrue(foundBody.contains("hello"), foundBody)
        XCTAssertEqual(again.stop(signal: SIGINT), 0)
    }

    /// Every acknowledged write survives a kill -9 in the middle of writing.
    func testKillDuringWritesLosesNoAcknowledgedWrite() throws {
        let dir = NSTemporaryDirectory() + "cql-serve-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["CQL_APP_ID": "a", "CQL_APP_KEY": "k", "CQL_MASTER_KEY": "m"]
        let server = try ServeProcess(["--sqlite", "app.db"], environment: env, directory: dir)
        let base = "http://127.0.0.1:\(server.port)/1.1/classes/Log"
        var acknowledged: [String] = []
        let killer = Thread { usleep(700_000); kill(server.process.processIdentifier, SIGKILL) }
        killer.start()
        for i in 0..<100_000 {
            guard let (status, body) = try? curl(["-X", "POST", "-H", "X-LC-Id: a", "-H", "X-LC-Key: k", "-d", "{\"i\":\(i)}", base]), status == 201 else { break }
            if let r = body.range(of: #""objectId":"[0-9a-f]+""#, options: .regularExpression) { acknowledged.append(String(body[r].dropFirst(12).dropLast())) }
        }
        server.process.waitUntilExit()
        XCTAssertGreaterThan(acknowledged.count, 0)
        let again = try ServeProcess(["--sqlite", "app.db"], environment: env, directory: dir)
        defer { _ = again.stop(signal: SIGTERM) }
        let (status, body) = try curl(["-G", "-H", "X-LC-Id: a", "-H", "X-LC-Key: m,master", "--data-urlencode", "limit=0", "--data-urlencode", "count=1",
                                       "http://127.0.0.1:\(again.port)/1.1/classes/Log"])
        XCTAssertEqual(status, 200)
        let count = body.range(of: #""count":\d+"#, options: .regularExpression).flatMap { Int(body[$0].dropFirst(8)) } ?? -1
        XCTAssertGreaterThanOrEqual(count, acknowledged.count, body)
        for id in acknowledged.suffix(5) {
            let (s, b) = try curl(["-H", "X-LC-Id: a", "-H", "X-LC-Key: k", "http://127.0.0.1:\(again.port)/1.1/classes/Log/\(id)"])
            XCTAssertEqual(s, 200)
            XCTAssertTrue(b.contains(id), b)
        }
    }
}

/// `cql index`: a key indexed on every class after the load, used by the plan.
extension CLITests {
    func testIndexAddsTheLoadIndexesToEveryClass() throws {
        let dir = NSTemporaryDirectory() + "cql-index-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Enough rows that the planner (with the statistics load and index
        // gather) prefers the index to a scan.
        let lines = (0..<20_000).map { #"{"objectId":"t\#($0)","name":"n\#($0 % 300)"}"# }.joined(separator: "\n")
        try Data((lines + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/data/T.ndjson"))
        let db = dir + "/app.db"
        XCTAssertEqual(try cql(["load", "--sqlite", db, dir + "/data"]).status, 0)
        let query = "select * from T where name = 'n5' limit 1"
        let before = try cql(["run", "--sqlite", db, "--explain", query]).stdout
        XCTAssertFalse(before.contains("USING INDEX T:name"), before)
        let indexed = try cql(["index", "--sqlite", db, "name"])
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        XCTAssertEqual(indexed.stdout, #"{"indexed":["T"],"keys":["name"]}"# + "\n")
        let after = try cql(["run", "--sqlite", db, "--explain", query]).stdout
        XCTAssertTrue(after.contains("USING INDEX T:name:value"), after)
        XCTAssertEqual(try cql(["run", "--sqlite", db, query]).stdout, #"{"name":"n5","objectId":"t5"}"# + "\n")
        XCTAssertEqual(try cql(["index", "--sqlite", db, " , "]).status, 2)
    }
}
