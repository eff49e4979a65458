import CQLEval
import CQLKit
import CQLServer
import Foundation
import XCTest

/// The real LeanCloud Python SDK (PyPI `leancloud` 3.0.2, in the virtualenv
/// scripts/setup makes) against the server, on SQLite and PostgreSQL:
/// Tests/Clients/leancloud_sdk_client.py saves, fetches, queries with every
/// query method the SDK offers, counts, includes, selects, runs cloud
/// queries, conditional saves, ops, scan and destroy_all. Each query's
/// results are compared with the in-memory evaluator (what `cql eval` runs)
/// over the same objects, in order.
final class PythonSDKTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static var python: String { ProcessInfo.processInfo.environment["CQL_TEST_PYTHON"] ?? root + "/.build-python/venv/bin/python" }

    func testLeanCloudPythonSDK() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            XCTFail("\(Self.python) is missing: scripts/setup makes the virtualenv with the leancloud SDK (CQL_SETUP_PYTHON=1)")
            return
        }
        try await onEachDatabase { h, db in
            var queries = 0, asserts = 0
            for phase in ["queries", "writes"] {
                let (status, output, errors) = try Self.runClient(port: h.port, phase: phase)
                XCTAssertEqual(status, 0, "\(db) \(phase): the client failed:\n\(errors)\n\(output)")
                // The objects every query of the first phase saw.
                let store = phase == "queries" ? try await Self.objects(h, ["Todo", "Person"]) : DocumentStore()
                for line in output.split(separator: "\n") {
                    let record = try JSONReader.parse(String(line))
                    if case .string(let name)? = record["assert"] {
                        asserts += 1
                        XCTAssertEqual(record["ok"], true, "\(db) \(name): \(JSONWriter.string(record["detail"] ?? .null))")
                    } else if case .string(let name)? = record["query"], case .string(let className)? = record["className"] {
                        queries += 1
                        let expected = try Self.evaluate(record["params"] ?? .null, className: className, store: store)
                        let ids = (record["ids"]?.array ?? []).compactMap(\.string)
                        XCTAssertEqual(ids, expected.ids, "\(db) \(name): \(JSONWriter.string(record["params"] ?? .null))")
                        XCTAssertEqual(record["count"]?.int, Int64(expected.count), "\(db) \(name) count")
                        XCTAssertFalse(ids.isEmpty, "\(db) \(name): a query that finds nothing proves little")
                    }
                }
            }
            XCTAssertEqual(queries, 27, "\(db): queries checked")
            XCTAssertGreaterThanOrEqual(asserts, 20, "\(db): asserts checked")
        }
    }

    /// The SDK's user flows (the client's `users` phase): sign-up, login
    /// (by username and email, wrong password, unknown user), become,
    /// current user, saving oneself, another user refused, token refresh,
    /// password change, logout.
    func testLeanCloudPythonSDKUsers() async throws {
        try await runPhase("users", asserts: 22)
    }

    /// The SDK's file flows (the client's `files` phase): upload (provider
    /// `s3`, the server itself), the bytes served at the url, fetch, a File
    /// inside an object, an external URL, destroy.
    func testLeanCloudPythonSDKFiles() async throws {
        try await runPhase("files", asserts: 6)
    }

    /// ACLs and roles as the SDK sets them (the client's `acl` phase): a
    /// private note, one shared with a role; another user's session, an
    /// anonymous caller and a role member find, count, get, cloud-query and
    /// update as the ACLs allow and no further.
    func testLeanCloudPythonSDKACLsAndRoles() async throws {
        try await runPhase("acl", asserts: 18)
    }

    /// Where LeanCloud's answers were matched (the client's `compat`
    /// phase): a stale cached session, anonymous login then registration,
    /// a relation's query on an object made without data.
    func testLeanCloudPythonSDKCompatibility() async throws {
        try await runPhase("compat", asserts: 7)
    }

    /// A client's `{"assert": name, "ok": bool, "detail": ...}` lines, each
    /// of which must be ok (a failure named after `label` and the assert):
    /// their names and details, in order.
    static func checkedAsserts(_ output: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> [(name: String, detail: Value)] {
        var checked: [(name: String, detail: Value)] = []
        for text in output.split(separator: "\n") {
            let record = try JSONReader.parse(String(text))
            guard case .string(let name)? = record["assert"] else { continue }
            let detail = record["detail"] ?? .null
            checked.append((name, detail))
            XCTAssertEqual(record["ok"], true, "\(label) \(name): \(JSONWriter.string(detail))", file: file, line: line)
        }
        return checked
    }

    /// Runs one phase of the client on each database; every assert must hold.
    func runPhase(_ phase: String, asserts expected: Int) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            XCTFail("\(Self.python) is missing: scripts/setup makes the virtualenv with the leancloud SDK (CQL_SETUP_PYTHON=1)")
            return
        }
        try await onEachDatabase { h, db in
            let (status, output, errors) = try Self.runClient(port: h.port, phase: phase)
            XCTAssertEqual(status, 0, "\(db) \(phase): the client failed:\n\(errors)\n\(output)")
            let asserts = try Self.checkedAsserts(output, "\(db)").count
            XCTAssertEqual(asserts, expected, "\(db) \(phase): asserts checked")
        }
    }

    /// Every object of the classes, through the API with the master key.
    static func objects(_ h: ServerHarness, _ classes: [String]) async throws -> DocumentStore {
        var store = DocumentStore()
        for c in classes {
            let page = try await h.call(.GET, "/1.1/classes/\(c)", query: [("limit", "1000"), ("returnACL", "true")], headers: ServerHarness.masterHeaders)
            var objects: [[String: Value]] = []
            for o in page.body["results"]?.array ?? [] {
                if case .object(let fields) = try o.decodingTypedValues() { objects.append(fields) }
            }
            store.add(objects, to: c)
        }
        return store
    }

    /// The SDK's query (its own `dump()`) evaluated in memory: ids in order, and the count.
    static func evaluate(_ params: Value, className: String, store: DocumentStore) throws -> (ids: [String], count: Int) {
        guard case .object(var request) = params else { throw QueryError(.data, "params: not an object") }
        request["className"] = .string(className)
        let query = try Optimizer.optimize(try Binder.bind(try WhereJSONReader.read(.object(request)), parameters: []))
        let ids = try QueryPlan(query, store: store).run(over: store.objects(in: className)).objects.compactMap { $0["objectId"]?.stringValue }
        var counting = query
        counting.count = .only
        counting.limit = nil
        counting.skip = nil
        let count = try QueryPlan(counting, store: store).run(over: store.objects(in: className)).count ?? -1
        return (ids, count)
    }

    static func runClient(port: Int, phase: String) throws -> (Int32, String, String) {
        try run([root + "/Tests/Clients/leancloud_sdk_client.py", phase], port: port,
                environment: ["CQL_APP_ID": ServerHarness.keys.appId, "CQL_APP_KEY": ServerHarness.keys.appKey,
                              "CQL_MASTER_KEY": ServerHarness.keys.masterKey])
    }

    /// The virtualenv's Python with `arguments`, pointed at the server on
    /// `port`: its exit status, standard output and standard error.
    static func run(_ arguments: [String], port: Int, directory: String? = nil, environment: [String: String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var env = ProcessInfo.processInfo.environment
        env["LEANCLOUD_API_SERVER"] = "http://127.0.0.1:\(port)"
        env["PYTHONIOENCODING"] = "utf-8"
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting (a full pipe would block the child).
        let errors = LockedData()
        let reader = Thread { errors.data = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errors.done { usleep(1000) }
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors.data, as: UTF8.self))
    }
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Data()
    private var finished = false
    var data: Data {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; finished = true; lock.unlock() }
    }
    var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
}
