import AsyncHTTPClient
import CQLKit
import CQLSQL
import CQLServer
import CorpusSupport
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import XCTest

/// A `cql serve` in the test process on a free port of 127.0.0.1, over a
/// fresh SQLite file or a fresh PostgreSQL schema, and an HTTP client
/// (async-http-client) that talks to it.
final class ServerHarness: @unchecked Sendable {
    static let keys = AppKeys(appId: "test-app", appKey: "test-app-key", masterKey: "test-master-key")

    enum Database: String, CaseIterable { case sqlite, postgres }

    let server: CQLServer
    let task: Task<Void, any Error>
    let port: Int
    let client: HTTPClient
    let directory: String
    var base: String { "http://127.0.0.1:\(port)" }

    /// The private PostgreSQL of this test run, started on first use.
    nonisolated(unsafe) static var postgres: PostgreSQLServer?
    static let postgresLock = NSLock()

    static func postgresURL() throws -> String {
        postgresLock.lock()
        defer { postgresLock.unlock() }
        if let p = postgres { return p.url }
        let p = try PostgreSQLServer()
        try p.start()
        postgres = p
        atexit { ServerHarness.postgres?.stop() }
        return p.url
    }

    /// - Parameters:
    ///   - seed: objects per class, stored before the server starts (fast,
    ///     for data larger than requests make).
    ///   - load: a data directory (or LeanCloud export) loaded first, as
    ///     `cql load` loads it.
    ///   - passwordIterations: PBKDF2 iterations of new passwords: few by
    ///     default, for speed (one test runs the server's default).
    ///   - configure: any other setting.
    static func start(_ database: Database, readers: Int = 4, timeout: Double = 10, maximumBody: Int? = nil,
                      seed: [String: [[String: Value]]] = [:], load: String? = nil, passwordIterations: Int = 1000, logger given: Logger? = nil,
                      configure: (inout CQLServer.Configuration) -> Void = { _ in }) async throws -> ServerHarness {
        let directory = NSTemporaryDirectory() + "cql-serve-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let location: ServerStorage.Location
        switch database {
        case .sqlite: location = .sqlite(path: directory + "/app.db")
        case .postgres:
            let url = try postgresURL()
            // A fresh database: every table of the previous test dropped.
            try PostgreSQLDatabase(url: url).reset()
            location = .postgres(url: url)
        }
        if !seed.isEmpty || load != nil {
            let db: any SQLDatabaseWriter
            switch location {
            case .sqlite(let path): db = try SQLiteDatabase(path: path)
            case .postgres(let url): db = try PostgreSQLDatabase(url: url)
            }
            for (className, objects) in seed { try db.insert(objects, into: className) }
            // As `cql load DIR` does.
            if let load { try db.load(path: load, className: nil, indexes: []) }
        }
        var configuration = CQLServer.Configuration(storage: location, port: 0, keys: keys)
        configuration.readers = readers
        configuration.requestTimeout = timeout
        if let maximumBody { configuration.maximumBodySize = maximumBody }
        configuration.passwordIterations = passwordIterations
        configuration.filesDirectory = directory + "/files"
        configure(&configuration)
        // Quiet: a test's server is cancelled, not signalled, and Hummingbird
        // logs the cancellation as an error; access lines would drown the log.
        var logger = Logger(label: "cql.serve.test")
        logger.logLevel = .critical
        let server = try CQLServer(configuration: configuration, logger: given ?? logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run(handleSignals: false) { port in continuation.yield(port) } }
        var port = 0
        for await p in ports { port = p; break }
        return ServerHarness(server: server, task: task, port: port, directory: directory)
    }

    init(server: CQLServer, task: Task<Void, any Error>, port: Int, directory: String) {
        self.server = server
        self.task = task
        self.port = port
        self.directory = directory
        client = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    func stop() async {
        try? await client.shutdown()
        task.cancel()
        _ = await task.result
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct Answer {
        var status: Int
        var body: Value
        var headers: HTTPHeaders
        var text: String
    }

    /// The app key's headers (`X-LC-Id`, `X-LC-Key`).
    static var appHeaders: [(String, String)] { [("X-LC-Id", keys.appId), ("X-LC-Key", keys.appKey)] }
    static var masterHeaders: [(String, String)] { [("X-LC-Id", keys.appId), ("X-LC-Key", keys.masterKey + ",master")] }
    /// The app key's headers with a session (`X-LC-Session`).
    static func sessionHeaders(_ token: String) -> [(String, String)] { appHeaders + [("X-LC-Session", token)] }

    /// `X-LC-Sign` as the SDKs make it: md5(timestamp + key), timestamp in ms.
    static func signature(key: String, timestamp: Int64 = Int64(Date().timeIntervalSince1970 * 1000), master: Bool = false) -> String {
        let digest = Insecure.MD5.hash(data: Data("\(timestamp)\(key)".utf8)).map { String(format: "%02x", $0) }.joined()
        return "\(digest),\(timestamp)\(master ? ",master" : "")"
    }

    /// One request. `path` may carry a query string (values already encoded);
    /// `query` adds parameters, encoded here. `body` `.null`: none (`rawBody`
    /// sends text as it is).
    @discardableResult
    func call(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: Value = .null, rawBody: String? = nil,
              headers: [(String, String)] = ServerHarness.appHeaders) async throws -> Answer {
        var url = base + path
        if !query.isEmpty {
            url += (path.contains("?") ? "&" : "?") + query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        let text = rawBody ?? (body == .null ? nil : JSONWriter.string(body))
        let (status, answerHeaders, answer) = try await Self.send(method, url, headers: headers, body: text.map { Array($0.utf8) },
                                                                  contentType: text == nil ? nil : "application/json", client: client,
                                                                  timeout: .seconds(60), upTo: 64 << 20)
        let value = answer.isEmpty ? Value.null : try JSONReader.parse(answer)
        return Answer(status: status, body: value, headers: answerHeaders, text: answer)
    }

    /// One request to `url` with `headers` and `body` (with its
    /// `Content-Type`): the status, headers and text of the answer.
    static func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)], body: [UInt8]?, contentType: String?,
                     client: HTTPClient, timeout: TimeAmount, upTo limit: Int) async throws -> (Int, HTTPHeaders, String) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: timeout)
        return (Int(response.status.code), response.headers, String(buffer: try await response.body.collect(upTo: limit)))
    }

    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed)!
    }
}

extension Value {
    subscript(_ key: String) -> Value? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    var array: [Value] {
        if case .array(let a) = self { return a }
        return []
    }
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    var int: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }
}

extension XCTestCase {
    /// Runs `body` against a fresh server on each database (`configure`:
    /// any setting of its configuration).
    func onEachDatabase(configure: (inout CQLServer.Configuration) -> Void = { _ in },
                        _ body: (ServerHarness, ServerHarness.Database) async throws -> Void) async throws {
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database, configure: configure)
            do {
                try await body(h, database)
            } catch {
                await h.stop()
                XCTFail("\(database): \(error)")
                throw error
            }
            await h.stop()
        }
    }
}
