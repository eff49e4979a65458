import AsyncHTTPClient
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import NIOCore
import NIOHTTP1
import XCTest

/// Two `cql serve --postgres` processes (the built binary) over one
/// database answer as one server: LeanCloud's Python SDK's flows
/// (Tests/Clients/leancloud_sdk_client.py) pass through a round-robin
/// forwarder (Tests/Clients/round_robin.py: every request to the other
/// process than the one before); a login throttle counts failures made
/// through both; an upload token issued by one is honoured by the other,
/// once.
final class ServerProcessesTests: XCTestCase {
    /// The client's phases, each group on a fresh database, and the asserts each checks.
    static let groups: [[(phase: String, asserts: Int)]] = [[("queries", 0), ("writes", 0)], [("users", 22)], [("files", 6)], [("acl", 18)],
                                                             [("compat", 7)]]

    func testTheSDKsFlowsThroughTwoProcessesInTurn() async throws {
        guard FileManager.default.isExecutableFile(atPath: PythonSDKTests.python) else {
            XCTFail("\(PythonSDKTests.python) is missing: scripts/setup makes the virtualenv with the leancloud SDK (CQL_SETUP_PYTHON=1)")
            return
        }
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        for group in Self.groups {
            let servers = try TwoServers(pg)
            let forwarder = try RoundRobin([servers.a.base, servers.b.base], directory: servers.directory)
            for (phase, expected) in group {
                let (status, output, errors) = try PythonSDKTests.runClient(port: forwarder.port, phase: phase)
                XCTAssertEqual(status, 0, "\(phase): the client failed:\n\(errors)\n\(output)")
                let asserts = try PythonSDKTests.checkedAsserts(output, phase).count
                if expected > 0 { XCTAssertEqual(asserts, expected, "\(phase): asserts checked") }
                if phase == "queries" {
                    let queries = output.split(separator: "\n").filter { $0.contains(#""query":"#) && !$0.contains(#""ids":[]"#) }
                    XCTAssertEqual(queries.count, 27, "queries: each found objects")
                }
            }
            let log = forwarder.log
            // In turn: each process served half the requests.
            let served = ["0", "1"].map { backend in log.filter { $0.hasPrefix(backend + " ") }.count }
            XCTAssertGreaterThanOrEqual(served.min() ?? 0, 3, "both processes served requests:\n\(log.joined(separator: "\n"))")
            XCTAssertLessThanOrEqual(abs(served[0] - served[1]), 1, "\(served)")
            if group.first?.phase == "files" {
                // The bytes went to the other process than the one that issued their token.
                let puts = log.indices.filter { log[$0].contains(" PUT /uploads/") }
                XCTAssertFalse(puts.isEmpty, "an upload went through the forwarder")
                for i in puts {
                    XCTAssertTrue(log[i].hasSuffix(" 200"), log[i])
                    XCTAssertTrue(i > 0 && log[i - 1].contains("POST /1.1/fileTokens") && log[i - 1].first != log[i].first, log.joined(separator: "\n"))
                }
            }
            forwarder.stop()
            servers.stop()
        }
    }

    /// The SDK's own suite (``PythonSDKSuiteTests``) through the forwarder
    /// over two processes: the same tests pass as against one server.
    func testTheSDKsOwnSuiteThroughTwoProcessesInTurn() async throws {
        guard FileManager.default.isExecutableFile(atPath: PythonSDKTests.python),
              FileManager.default.fileExists(atPath: PythonSDKSuiteTests.suite + "/test_query.py") else {
            XCTFail("\(PythonSDKSuiteTests.suite) is missing: scripts/setup downloads the leancloud 3.0.2 sdist and installs pynose (CQL_SETUP_PYTHON=1)")
            return
        }
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let servers = try TwoServers(pg)
        defer { servers.stop() }
        let forwarder = try RoundRobin([servers.a.base, servers.b.base], directory: servers.directory)
        defer { forwarder.stop() }
        try PythonSDKSuiteTests.runSuite(port: forwarder.port, label: "two processes")
        let log = forwarder.log
        XCTAssertGreaterThan(log.filter { $0.hasPrefix("0 ") }.count, 100, "A served its half")
        XCTAssertGreaterThan(log.filter { $0.hasPrefix("1 ") }.count, 100, "B served its half")
    }

    /// 3 failures (`--login-attempts 3`) made through A and B lock the
    /// account on both, also when made at the same instant; an upload token
    /// issued by A takes its bytes through B, once; of two callbacks (or
    /// two `PUT`s) racing on one token through the two, exactly one wins.
    func testThrottleAndUploadTokensAreSharedByTheProcesses() async throws {
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let servers = try TwoServers(pg, arguments: ["--login-attempts", "3"])
        defer { servers.stop() }
        let http = TwoServers.Client()
        let a = servers.a.base, b = servers.b.base

        for name in ["ann", "bob"] {
            let made = try await http.call(.POST, a + "/1.1/users", ["username": .string(name), "password": "right"])
            XCTAssertEqual(made.status, 201, made.text)
        }
        func login(_ base: String, _ name: String, _ password: String) async throws -> TwoServers.Answer {
            try await http.call(.POST, base + "/1.1/login", ["username": .string(name), "password": .string(password)])
        }
        // In turn: A, B, A.
        for base in [a, b, a] {
            let wrong = try await login(base, "ann", "wrong")
            XCTAssertEqual(wrong.body["code"], 210, wrong.text)
        }
        for base in [a, b] {
            let locked = try await login(base, "ann", "right")
            XCTAssertEqual(locked.body["code"], 219, "\(base) \(locked.text)")
        }
        // At once: two through A, one through B; none lost.
        let wrongs = try await withThrowingTaskGroup(of: TwoServers.Answer.self) { group in
            for base in [a, a, b] { group.addTask { try await login(base, "bob", "wrong") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(wrongs.map { $0.body["code"] }, [210, 210, 210], wrongs.map(\.text).joined(separator: "\n"))
        let locked = try await login(b, "bob", "right")
        XCTAssertEqual(locked.body["code"], 219, locked.text)

        // A token from A, its bytes through B, the callback through A.
        func token() async throws -> (token: String, key: String) {
            let made = try await http.call(.POST, a + "/1.1/fileTokens", ["name": "a.txt", "mime_type": "text/plain"], master: true)
            XCTAssertEqual(made.status, 200, made.text)
            return (made.body["token"]?.string ?? "", made.body["key"]?.string ?? "")
        }
        let first = try await token()
        let put = try await http.call(.PUT, b + "/uploads/\(first.token)", bytes: Array("hello".utf8))
        XCTAssertEqual(put.status, 200, put.text)
        let again = try await http.call(.PUT, a + "/uploads/\(first.token)", bytes: Array("other".utf8))
        XCTAssertEqual(again.status, 404, again.text)
        let bytes = try await http.call(.GET, a + "/files/\(first.key)")
        XCTAssertEqual(bytes.text, "hello")
        // Two callbacks at once, one through each: exactly one succeeds.
        let callbacks = try await withThrowingTaskGroup(of: Int.self) { group in
            for base in [a, b] {
                group.addTask { try await http.call(.POST, base + "/1.1/fileCallback", ["token": .string(first.token), "result": true]).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(callbacks.sorted(), [200, 400], "exactly one callback finishes the token")
        // Two PUTs at once, one through each: exactly one stores bytes.
        let second = try await token()
        let puts = try await withThrowingTaskGroup(of: Int.self) { group in
            for base in [a, b] { group.addTask { try await http.call(.PUT, base + "/uploads/\(second.token)", bytes: Array("x".utf8)).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(puts.sorted(), [200, 404], "exactly one PUT takes the token")
        // The tokens are stored as hashes only.
        let admin = try PostgreSQLDatabase(url: servers.url)
        let stored = try admin.documents(SQLStatement(sql: "SELECT \"token\" AS \"doc\" FROM \"cql:uploads\"", arguments: []))
        XCTAssertEqual(stored.count, 1)
        XCTAssertFalse(stored.contains(second.token))
    }
}
