import CQLKit
import CQLServer
import Foundation
import XCTest

/// Cloud functions and hooks with the real Python engine: LeanCloud's
/// `leancloud.Engine` (PyPI `leancloud` 3.0.2) served by `wsgiref`
/// (Tests/Clients/leancloud_engine_app.py) beside the server, on SQLite and
/// PostgreSQL, driven by the Python SDK (Tests/Clients/leancloud_engine_client.py)
/// and by raw HTTP for the error paths.
/// The Python processes are waited for on threads of their own, never on
/// the concurrency pool the in-process server answers them on.
final class CloudCodeTests: XCTestCase {
    static let hookKey = "test-hook-key"

    /// `cloud.run` and `cloud.rpc` through the server: results, the caller's
    /// user (the engine asks `GET /1.1/users/me`), objects out and in, the
    /// engine's errors passed through.
    func testFunctionsThroughThePythonSDK() async throws {
        try await onEachDatabaseWithEngine { h, _, db in
            try await Self.runClient("functions", h, db, asserts: 10)
        }
    }

    /// Every write hook kind through the SDK: the class API, batch and CQL
    /// writes; beforeSave's changes stored, refusals 142 with nothing
    /// written, after-hooks run once, an afterSave's own update marked
    /// `__ignore_hooks` running no hook again.
    func testHooksThroughThePythonSDK() async throws {
        try await onEachDatabaseWithEngine { h, _, db in
            try await Self.runClient("hooks", h, db, asserts: 16)
        }
    }

    /// `_User` onLogin through the SDK's login: one user refused (142), another not.
    func testOnLoginThroughThePythonSDK() async throws {
        try await onEachDatabaseWithEngine { h, _, db in
            try await Self.runClient("login", h, db, asserts: 2)
        }
    }

    /// The error paths over raw HTTP: the engine's statuses and codes passed
    /// through, a hook's name refused as a function, the metadata route (master key only), a wrong hook key.
    func testFunctionErrorsOverHTTP() async throws {
        try await onEachDatabaseWithEngine { h, _, db in
            let hello = try await h.call(.POST, "/1.1/functions/hello", body: .object(["name": "Bo"]))
            XCTAssertEqual(hello.status, 200, db.rawValue)
            XCTAssertEqual(hello.body["result"], "Hello, Bo!", db.rawValue)
            let refuse = try await h.call(.POST, "/1.1/functions/refuse", body: .object([:]))
            XCTAssertEqual(refuse.status, 400, db.rawValue)
            XCTAssertEqual(refuse.body["code"]?.int, 3001, db.rawValue)
            let crash = try await h.call(.POST, "/1.1/functions/crash")
            XCTAssertEqual([crash.status, Int(crash.body["code"]?.int ?? 0)], [500, 141], db.rawValue)
            let missing = try await h.call(.POST, "/1.1/functions/nope")
            XCTAssertEqual(missing.status, 404, db.rawValue)
            // A hook is not a function a client may call.
            let hook = try await h.call(.POST, "/1.1/functions/__before_save_for_Review", body: .object(["object": .object([:])]))
            XCTAssertEqual([hook.status, Int(hook.body["code"]?.int ?? 0)], [404, 404], db.rawValue)
            let metadata = try await h.call(.GET, "/1.1/functions/_ops/metadatas", headers: ServerHarness.masterHeaders)
            XCTAssertTrue(metadata.body["result"]?.array.contains("hello") == true, "\(db): \(metadata.text)")
            XCTAssertTrue(metadata.body["result"]?.array.contains("__before_save_for_Review") == true, "\(db): \(metadata.text)")
            let appKey = try await h.call(.GET, "/1.1/functions/_ops/metadatas")
            XCTAssertEqual([appKey.status, Int(appKey.body["code"]?.int ?? 0)], [403, 119], db.rawValue)
            // The engine's calls back carry the hook key: the right one is accepted, a wrong one refused.
            let right = try await h.call(.GET, "/1.1/classes/Todo", headers: ServerHarness.appHeaders + [("X-LC-Hook-Key", Self.hookKey)])
            XCTAssertEqual(right.status, 200, db.rawValue)
            let wrong = try await h.call(.GET, "/1.1/classes/Todo", headers: ServerHarness.appHeaders + [("X-LC-Hook-Key", "not-the-key")])
            XCTAssertEqual([wrong.status, Int(wrong.body["code"]?.int ?? 0)], [401, 401], db.rawValue)
            XCTAssertTrue(wrong.text.contains("X-LC-Hook-Key"), wrong.text)
        }
    }

    /// Users' routes run `_User`'s hooks: sign-up is a save (refused: 142 and
    /// no user; passed: beforeSave's change stored and the password still
    /// the user's), a user's update is an update; a slow function is 503/124
    /// at its limit.
    func testUsersHooksAndASlowFunctionOverHTTP() async throws {
        try await onEachDatabaseWithEngine(functionTimeout: 1) { h, _, db in
            let refused = try await h.call(.POST, "/1.1/users", body: ["username": "reserved", "password": "pw"])
            XCTAssertEqual([refused.status, Int(refused.body["code"]?.int ?? 0)], [400, 142], "\(db): \(refused.text)")
            XCTAssertTrue(refused.text.contains("that username is reserved"), refused.text)
            let none = try await h.call(.GET, "/1.1/classes/_User", query: [("where", #"{"username":"reserved"}"#)], headers: ServerHarness.masterHeaders)
            XCTAssertEqual(none.body["results"]?.array.count, 0, "\(db): a refused sign-up makes no user: \(none.text)")
            let made = try await h.call(.POST, "/1.1/users", body: ["username": "ann", "password": "pw"])
            XCTAssertEqual(made.status, 201, "\(db): \(made.text)")
            let id = made.body["objectId"]?.stringValue ?? "", token = made.body["sessionToken"]?.stringValue ?? ""
            let login = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw"])
            XCTAssertEqual(login.status, 200, "\(db): the hooked sign-up kept the password: \(login.text)")
            XCTAssertEqual(login.body["greeted"], true, "\(db): beforeSave's change stored: \(login.text)")
            let session = ServerHarness.appHeaders + [("X-LC-Session", token)]
            let bad = try await h.call(.PUT, "/1.1/users/\(id)", body: ["nickname": "forbidden"], headers: session)
            XCTAssertEqual([bad.status, Int(bad.body["code"]?.int ?? 0)], [400, 142], "\(db): \(bad.text)")
            let good = try await h.call(.PUT, "/1.1/users/\(id)", body: ["nickname": "annie"], headers: session)
            XCTAssertEqual(good.status, 200, "\(db): \(good.text)")
            let me = try await h.call(.GET, "/1.1/users/me", headers: session)
            XCTAssertEqual(me.body["nickname"], "annie", "\(db): \(me.text)")
            // `__ignore_hooks` skips the hooks it names only with the hook key (or the master key); a bad one is 107 from anyone.
            let marked: Value = ["stars": 9, "__ignore_hooks": ["beforeSave"]]
            let byClient = try await h.call(.POST, "/1.1/classes/Review", body: marked)
            XCTAssertEqual([byClient.status, Int(byClient.body["code"]?.int ?? 0)], [400, 142], "\(db): \(byClient.text)")
            let byEngine = try await h.call(.POST, "/1.1/classes/Review", body: marked, headers: ServerHarness.appHeaders + [("X-LC-Hook-Key", Self.hookKey)])
            XCTAssertEqual(byEngine.status, 201, "\(db): \(byEngine.text)")
            let malformed = try await h.call(.POST, "/1.1/classes/Review", body: ["stars": 3, "__ignore_hooks": ["beforeSafe"]])
            XCTAssertEqual([malformed.status, Int(malformed.body["code"]?.int ?? 0)], [400, 107], "\(db): \(malformed.text)")
            let started = Date()
            let slow = try await h.call(.POST, "/1.1/functions/slow", body: ["seconds": 3])
            XCTAssertEqual([slow.status, Int(slow.body["code"]?.int ?? 0)], [503, 124], "\(db): \(slow.text)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2.5, "\(db): answered at the 1 s limit")
        }
    }

    /// An engine that is not listening: a function is a clear error at once,
    /// never a hang, and storage goes on (without hooks).
    func testEngineDownIsAClearErrorAndStorageGoesOn() async throws {
        let port = try Self.freePort()
        for db in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(db) { $0.engine = CloudEngine.Configuration(url: "http://127.0.0.1:\(port)") }
            let started = Date()
            let call = try await h.call(.POST, "/1.1/functions/hello")
            XCTAssertEqual([call.status, Int(call.body["code"]?.int ?? 0)], [502, 1], "\(db): \(call.text)")
            XCTAssertTrue(call.text.contains("cannot be reached"), call.text)
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, "\(db): a down engine answers at once")
            let create = try await h.call(.POST, "/1.1/classes/Review", body: .object(["stars": 9]))
            XCTAssertEqual(create.status, 201, "\(db): \(create.text)")
            let metadata = try await h.call(.GET, "/1.1/functions/_ops/metadatas", headers: ServerHarness.masterHeaders)
            XCTAssertEqual(metadata.status, 502, "\(db): \(metadata.text)")
            await h.stop()
        }
    }

    /// Without `--engine`: the function routes say so.
    func testNoEngine() async throws {
        let h = try await ServerHarness.start(.sqlite)
        let call = try await h.call(.POST, "/1.1/functions/hello")
        XCTAssertEqual(call.status, 404)
        XCTAssertTrue(call.text.contains("--engine"), call.text)
        await h.stop()
    }

    // MARK: Support

    /// Runs the SDK client's `phase`; every assert must hold, and there must be `asserts` of them.
    static func runClient(_ phase: String, _ h: ServerHarness, _ db: ServerHarness.Database, asserts expected: Int) async throws {
        let port = h.port
        let (status, output, errors) = try await offThePool {
            try PythonSDKTests.run(
                [PythonSDKTests.root + "/Tests/Clients/leancloud_engine_client.py", phase], port: port,
                environment: ["CQL_APP_ID": ServerHarness.keys.appId, "CQL_APP_KEY": ServerHarness.keys.appKey, "CQL_MASTER_KEY": ServerHarness.keys.masterKey])
        }
        XCTAssertEqual(status, 0, "\(db) \(phase): the client failed:\n\(errors)\n\(output)")
        var asserts = 0
        for line in output.split(separator: "\n") {
            let record = try JSONReader.parse(String(line))
            guard case .string(let name)? = record["assert"] else { continue }
            asserts += 1
            XCTAssertEqual(record["ok"], true, "\(db) \(name): \(JSONWriter.string(record["detail"] ?? .null))")
        }
        XCTAssertEqual(asserts, expected, "\(db) \(phase): asserts checked")
    }

    /// A fresh server on each database with the engine app beside it, its
    /// functions and hooks discovered.
    func onEachDatabaseWithEngine(functionTimeout: Double = 15,
                                  _ body: (ServerHarness, EngineApp, ServerHarness.Database) async throws -> Void) async throws {
        guard FileManager.default.isExecutableFile(atPath: PythonSDKTests.python) else {
            XCTFail("\(PythonSDKTests.python) is missing: scripts/setup makes the virtualenv with the leancloud SDK (CQL_SETUP_PYTHON=1)")
            return
        }
        for db in ServerHarness.Database.allCases {
            // The engine first, told the server's port, so that it serves before the server asks it.
            let serverPort = try Self.freePort()
            let engine = try await Self.offThePool { try EngineApp.start(hookKey: Self.hookKey, apiServer: "http://127.0.0.1:\(serverPort)") }
            let h = try await ServerHarness.start(db) { configuration in
                configuration.port = serverPort
                var e = CloudEngine.Configuration(url: "http://127.0.0.1:\(engine.port)")
                e.functionTimeout = functionTimeout
                configuration.engine = e
                configuration.keys.hookKey = Self.hookKey
            }
            do {
                try await Self.waitForDiscovery(h)
                try await body(h, engine, db)
            } catch {
                engine.stop()
                await h.stop()
                XCTFail("\(db): \(error)")
                throw error
            }
            engine.stop()
            await h.stop()
        }
    }

    /// Asks the server to discover the engine until it answers.
    static func waitForDiscovery(_ h: ServerHarness) async throws {
        for _ in 0..<100 {
            let answer = try await h.call(.GET, "/1.1/functions/_ops/metadatas", headers: ServerHarness.masterHeaders)
            if answer.status == 200 { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw QueryError(.data, "the engine app did not answer its metadata")
    }

    /// `body`, which blocks (a child process waited for), on a thread of its own.
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// A port nothing listens on (bound, then closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw QueryError(.data, "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Tests/Clients/leancloud_engine_app.py running: LeanCloud's Python engine
/// on a free port of 127.0.0.1, started with the variables an engine app
/// gets (the test server's keys and hook key).
final class EngineApp: @unchecked Sendable {
    let process: Process
    let input: Pipe
    let port: Int

    static func start(hookKey: String, apiServer: String) throws -> EngineApp {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PythonSDKTests.python)
        process.arguments = [PythonSDKTests.root + "/Tests/Clients/leancloud_engine_app.py"]
        var env = ProcessInfo.processInfo.environment
        env["LEANCLOUD_API_SERVER"] = apiServer
        env["LEANCLOUD_APP_ID"] = ServerHarness.keys.appId
        env["LEANCLOUD_APP_KEY"] = ServerHarness.keys.appKey
        env["LEANCLOUD_APP_MASTER_KEY"] = ServerHarness.keys.masterKey
        env["LEANCLOUD_APP_HOOK_KEY"] = hookKey
        env["LEANCLOUD_APP_PORT"] = "0"
        env["PYTHONUNBUFFERED"] = "1"
        process.environment = env
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        // Its first line: {"port": N}.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw QueryError(.data, "the engine app exited before listening") }
            line.append(chunk)
        }
        guard let port = try JSONReader.parse(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))["port"]?.int else {
            throw QueryError(.data, "the engine app did not say its port")
        }
        return EngineApp(process: process, input: input, port: Int(port))
    }

    init(process: Process, input: Pipe, port: Int) {
        self.process = process
        self.input = input
        self.port = port
    }

    func stop() {
        // SIGKILL: a child spawned from a test thread inherits its blocked signals, SIGTERM among them.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
