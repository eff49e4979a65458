import CQLKit
import CQLServer
import Foundation
import Logging
import NIOHTTP1
import XCTest

/// A file's bytes belong to the `_File` that uploaded them; file URLs are
/// web URLs; tokens and keys stay out of the log; what the server creates
/// on disk is its owner's alone (issue 45, finding 7 and the Low findings
/// on files), on SQLite and PostgreSQL.
final class FileOwnershipTests: XCTestCase {
    typealias H = ServerHarness

    /// Uploads `content` as `name`: (objectId, key, url).
    static func upload(_ h: ServerHarness, _ name: String, _ content: [UInt8], headers: [(String, String)] = H.appHeaders) async throws
        -> (id: String, key: String, url: String)
    {
        var a = try await h.call(.POST, "/1.1/fileTokens", body: ["name": .string(name), "ACL": ["*": ["read": true]]], headers: headers)
        XCTAssertEqual(a.status, 200, a.text)
        let id = a.body["objectId"]?.string ?? "", key = a.body["key"]?.string ?? "", url = a.body["url"]?.string ?? ""
        let put = try await FilesTests.raw(h, .PUT, a.body["upload_url"]?.string ?? "", bytes: content).status
        XCTAssertEqual(put, 200)
        a = try await h.call(.POST, "/1.1/fileCallback", body: ["token": a.body["token"] ?? .null, "result": true])
        XCTAssertEqual(a.status, 200, a.text)
        return (id, key, url)
    }

    /// Finding 7: a `_File` a client makes cannot name another file's key
    /// (nor url, bucket, provider: 105, through the class API, a batch and
    /// CQL), so deleting it never removes another's bytes; the master key's
    /// own row cannot share a key either (137).
    func testAFileObjectCannotClaimAndDeleteAnotherFilesBytes() async throws {
        try await onEachDatabase { h, db in
            let content = Array("the victim's bytes".utf8)
            let victim = try await Self.upload(h, "victim.txt", content)
            let eve = try await UniqueKeysTests.signUp(h, ["username": "eve", "password": "pw"])
            let headers = H.sessionHeaders(eve.token)
            for body: Value in [["name": "x", "key": .string(victim.key)], ["name": "x", "url": .string(victim.url)],
                                ["name": "x", "provider": "s3"], ["name": "x", "bucket": "b"]] {
                let a = try await h.call(.POST, "/1.1/classes/_File", body: body, headers: headers)
                XCTAssertEqual(a.body["code"], 105, "\(db) \(body): \(a.text)")
            }
            var a = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "POST", "path": "/1.1/classes/_File",
                                                                                "body": ["name": "x", "key": .string(victim.key)]]]], headers: headers)
            XCTAssertEqual(a.body.array.first?["error"]?["code"], 105, "\(db) batch: \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into _File(name, key) values ('x', '\(victim.key)')")], headers: headers)
            XCTAssertEqual(a.body["code"], 105, "\(db) cql: \(a.text)")
            // Eve's own row, and an update of it to the victim's key.
            a = try await h.call(.POST, "/1.1/classes/_File", body: ["name": "x", "ACL": [eve.id: ["read": true, "write": true]]], headers: headers)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let own = a.body["objectId"]?.string ?? ""
            a = try await h.call(.PUT, "/1.1/classes/_File/\(own)", body: ["key": .string(victim.key)], headers: headers)
            XCTAssertEqual(a.body["code"], 105, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "update _File set key = '\(victim.key)' where objectId = '\(own)'")], headers: headers)
            XCTAssertEqual(a.body["code"], 105, "\(db) \(a.text)")
            a = try await h.call(.DELETE, "/1.1/files/\(own)", headers: headers)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            // The master key's row cannot share the key.
            a = try await h.call(.POST, "/1.1/classes/_File", body: ["name": "x", "key": .string(victim.key)], headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 137, "\(db) \(a.text)")
            let served = try await FilesTests.raw(h, .GET, victim.url)
            XCTAssertEqual(served.status, 200, "\(db)")
            XCTAssertEqual(served.body, content, "\(db): the victim's bytes are still there")
        }
    }

    /// A file's url is http or https, whoever writes it: a File value
    /// expands to it, and a `javascript:` URL in a page runs.
    func testAFileURLIsHTTPOrHTTPSOnly() async throws {
        try await onEachDatabase { h, db in
            for url in ["javascript:alert(1)", "JavaScript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>", "http:no-host"] {
                var a = try await h.call(.POST, "/1.1/files", body: ["name": "x", "url": .string(url)])
                XCTAssertEqual(a.body["code"], 107, "\(db) \(url): \(a.text)")
                a = try await h.call(.POST, "/1.1/classes/_File", body: ["name": "x", "url": .string(url)])
                XCTAssertEqual(a.body["code"], 105, "\(db) \(url): \(a.text)")
                a = try await h.call(.POST, "/1.1/classes/_File", body: ["name": "x", "url": .string(url)], headers: H.masterHeaders)
                XCTAssertEqual(a.body["code"], 107, "\(db) master \(url): \(a.text)")
            }
            var a = try await h.call(.POST, "/1.1/classes/_File", body: ["name": "x", "url": "https://example.com/x.png"], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let id = a.body["objectId"]?.string ?? ""
            a = try await h.call(.PUT, "/1.1/classes/_File/\(id)", body: ["url": "javascript:alert(1)"], headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 107, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/files/\(id)")
            XCTAssertEqual(a.body["url"], "https://example.com/x.png", "\(db) \(a.text)")
        }
    }

    /// Neither an upload's token nor a file's key reaches the access log
    /// (a token read there deleted a file through `fileCallback`).
    func testTheAccessLogHoldsNoUploadTokenNorFileKey() async throws {
        for database in ServerHarness.Database.allCases {
            let lines = LogLines()
            var logger = Logger(label: "cql.serve.test") { _ in LogLines.Handler(lines: lines) }
            logger.logLevel = .info
            let h = try await ServerHarness.start(database, logger: logger)
            var a = try await h.call(.POST, "/1.1/fileTokens", body: ["name": "a.txt"])
            let token = a.body["token"]?.string ?? "", key = a.body["key"]?.string ?? ""
            XCTAssertFalse(token.isEmpty || key.isEmpty, "\(database) \(a.text)")
            _ = try await FilesTests.raw(h, .PUT, a.body["upload_url"]?.string ?? "", bytes: [1, 2, 3])
            a = try await h.call(.POST, "/1.1/fileCallback", body: ["token": .string(token), "result": true])
            _ = try await FilesTests.raw(h, .GET, a.body["url"]?.string ?? h.base + "/files/\(key)")
            _ = try await FilesTests.raw(h, .GET, h.base + "/files/\(key)")
            await h.stop()
            let log = lines.all.joined(separator: "\n")
            XCTAssertTrue(log.contains("PUT /uploads/"), "\(database): the access lines are there: \(log)")
            XCTAssertFalse(log.contains(token), "\(database): the upload token is in the log: \(log)")
            XCTAssertFalse(log.contains(key), "\(database): the file key is in the log: \(log)")
        }
    }

    /// The database, its WAL and shared memory, and the uploaded files are
    /// created readable by their owner only, whatever the umask.
    func testTheDatabaseWALAndFilesAreReadableByTheOwnerOnly() async throws {
        let old = umask(0o022)
        defer { umask(old) }
        try await onEachDatabase { h, db in
            _ = try await UniqueKeysTests.signUp(h, ["username": "ann", "password": "pw"])
            let file = try await Self.upload(h, "a.txt", [1, 2, 3])
            func mode(_ path: String) throws -> Int {
                (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
            }
            var paths = [(h.directory + "/files", 0o700), (h.directory + "/files/" + file.key, 0o600)]
            if db == .sqlite { paths += ["", "-wal", "-shm"].map { (h.directory + "/app.db" + $0, 0o600) } }
            for (path, expected) in paths {
                let found = try mode(path)
                XCTAssertEqual(found, expected, "\(db) \(path): mode \(String(found, radix: 8))")
            }
        }
    }
}

/// Log lines a test's server wrote.
final class LogLines: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    func append(_ s: String) { lock.lock(); lines.append(s); lock.unlock() }

    struct Handler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.append("\(event.level) \(event.message)") }
    }
}
