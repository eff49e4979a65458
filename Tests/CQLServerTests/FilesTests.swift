import AsyncHTTPClient
import CQLKit
import CQLServer
import Foundation
import NIOCore
import NIOHTTP1
import XCTest

/// The SDKs' file upload (`fileTokens` → `PUT upload_url` → `fileCallback`),
/// serving, external files and deletion, over real HTTP on both databases.
final class FilesTests: XCTestCase {
    /// A request with no LeanCloud headers, as the SDK's `PUT` to `upload_url`.
    static func raw(_ h: ServerHarness, _ method: HTTPMethod, _ url: String, bytes: [UInt8]? = nil) async throws -> (status: Int, body: [UInt8], headers: HTTPHeaders) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let bytes {
            request.headers.add(name: "Content-Type", value: "text/plain")
            request.body = .bytes(ByteBuffer(bytes: bytes))
        }
        let response = try await h.client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 24)
        return (Int(response.status.code), Array(body.readableBytesView), response.headers)
    }

    func testUploadServeAndDelete() async throws {
        try await onEachDatabase { h, db in
            let content = Array("hello, files \(UUID().uuidString)".utf8)
            var a = try await h.call(.POST, "/1.1/fileTokens", body: ["name": "hello.txt", "mime_type": "text/plain", "metaData": ["size": .int(Int64(content.count))], "ACL": .null])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let id = a.body["objectId"]?.string ?? "", url = a.body["url"]?.string ?? "", token = a.body["token"]?.string ?? ""
            let uploadURL = a.body["upload_url"]?.string ?? ""
            XCTAssertEqual(a.body["provider"], "s3")
            XCTAssertEqual(a.body["mime_type"], "text/plain")
            XCTAssertTrue(url.hasPrefix(h.base + "/files/") && url.hasSuffix(".txt"), "\(db) \(url)")
            XCTAssertTrue(uploadURL.hasPrefix(h.base + "/uploads/"), "\(db) \(uploadURL)")
            // Not served before its bytes come; a wrong token uploads nothing.
            let v1 = try await Self.raw(h, .GET, url).status
            XCTAssertEqual(v1, 404)
            let v2 = try await Self.raw(h, .PUT, h.base + "/uploads/not-a-token", bytes: [1, 2]).status
            XCTAssertEqual(v2, 404)
            // The upload: no keys, the token once.
            let v3 = try await Self.raw(h, .PUT, uploadURL, bytes: content).status
            XCTAssertEqual(v3, 200)
            let v4 = try await Self.raw(h, .PUT, uploadURL, bytes: [66, 65, 68]).status
            XCTAssertEqual(v4, 404, "\(db): a token works once")
            a = try await h.call(.POST, "/1.1/fileCallback", body: ["token": .string(token), "result": true])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let v5 = try await h.call(.POST, "/1.1/fileCallback", body: ["token": .string(token), "result": false]).body["code"]
            XCTAssertEqual(v5, 1)
            // Served at its url, with its type and headers that keep browsers from running it.
            let served = try await Self.raw(h, .GET, url)
            XCTAssertEqual(served.status, 200)
            XCTAssertEqual(served.body, content, "\(db)")
            XCTAssertEqual(served.headers["Content-Type"].first, "text/plain")
            XCTAssertEqual(served.headers["X-Content-Type-Options"].first, "nosniff")
            let v6 = try await Self.raw(h, .GET, h.base + "/files/..%2Fapp.db").status
            XCTAssertEqual(v6, 404)
            // The file object, and a File in another object, expanded.
            a = try await h.call(.GET, "/1.1/files/\(id)")
            XCTAssertEqual(a.body["name"], "hello.txt", "\(db) \(a.text)")
            XCTAssertEqual(a.body["url"]?.string, url)
            a = try await h.call(.POST, "/1.1/classes/Doc", body: ["attachment": ["__type": "File", "id": .string(id)]])
            let doc = a.body["objectId"]?.string ?? ""
            a = try await h.call(.GET, "/1.1/classes/Doc/\(doc)")
            XCTAssertEqual(a.body["attachment"]?["url"]?.string, url, "\(db) \(a.text)")
            XCTAssertEqual(a.body["attachment"]?["objectId"]?.string, id)
            // Deleted: the object and its bytes.
            a = try await h.call(.DELETE, "/1.1/files/\(id)", headers: ServerHarness.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let v7 = try await Self.raw(h, .GET, url).status
            XCTAssertEqual(v7, 404)
            let v8 = try await h.call(.GET, "/1.1/files/\(id)").body
            XCTAssertEqual(v8, .object([:]))
            let key = String(url.split(separator: "/").last ?? "")
            XCTAssertFalse(FileManager.default.fileExists(atPath: h.directory + "/files/" + key), "\(db): the bytes are gone")
        }
    }

    func testFailedUploadExternalFilesAndLimits() async throws {
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database) { $0.maximumFileSize = 16 }
            // A failed upload (result false): the object goes.
            var a = try await h.call(.POST, "/1.1/fileTokens", body: ["name": "big.bin"])
            let id = a.body["objectId"]?.string ?? ""
            XCTAssertEqual(a.body["mime_type"], "application/octet-stream")
            let over = try await Self.raw(h, .PUT, a.body["upload_url"]?.string ?? "", bytes: Array(repeating: 7, count: 17))
            XCTAssertEqual(over.status, 413, "\(database)")
            a = try await h.call(.POST, "/1.1/fileCallback", body: ["token": a.body["token"] ?? .null, "result": false])
            XCTAssertEqual(a.status, 200, "\(database) \(a.text)")
            let v9 = try await h.call(.GET, "/1.1/files/\(id)").body
            XCTAssertEqual(v9, .object([:]))
            // An external file.
            a = try await h.call(.POST, "/1.1/files", body: ["name": "logo.png", "url": "https://example.com/logo.png", "metaData": ["owner": "unknown"]])
            XCTAssertEqual(a.status, 201, "\(database) \(a.text)")
            a = try await h.call(.GET, "/1.1/files/\(a.body["objectId"]?.string ?? "")")
            XCTAssertEqual(a.body["url"], "https://example.com/logo.png", "\(database) \(a.text)")
            XCTAssertEqual(a.body["mime_type"], "image/png")
            a = try await h.call(.POST, "/1.1/files", body: ["name": "x", "url": "javascript:alert(1)"])
            XCTAssertEqual(a.body["code"], 107, "\(database) \(a.text)")
            await h.stop()
        }
    }
}
