import CQLKit
import CQLServer
import XCTest

/// `/1.1/batch`, `/1.1/cloudQuery`, `/1.1/scan/classes`, `/1.1/schemas`.
final class ServerBatchQueryTests: XCTestCase {
    func testBatch() async throws {
        try await onEachDatabase { h, db in
            let created = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "POST", "path": "/1.1/classes/Note", "body": ["n": 1, "__ignore_hooks": true]],
                ["method": "POST", "path": "/1.1/classes/Note", "body": ["n": 2]],
                ["method": "POST", "path": "/1.1/classes/Note", "body": ["n": 3]],
                ["method": "PUT", "path": "/1.1/classes/Note/missing", "body": ["n": 4]],
                ["method": "POST", "path": "/1.1/classes/bad-name", "body": ["n": 5]],
            ]])
            XCTAssertEqual(created.status, 200, "\(db)")
            let answers = created.body.array
            XCTAssertEqual(answers.count, 5)
            let ids = answers.prefix(3).compactMap { $0["success"]?["objectId"]?.string }
            XCTAssertEqual(ids.count, 3)
            // Errors in place; the other sub-requests took effect.
            XCTAssertEqual(answers[3]["error"]?["code"], 101)
            XCTAssertEqual(answers[4]["error"]?["code"], 103)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Note/\(ids[0])").body["__ignore_hooks"]
                XCTAssertNil(value)
            }
            // GET sub-requests with params (how clients send long queries).
            let got = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "GET", "path": "/1.1/classes/Note", "params": ["where": ["n": ["$gte": 2]], "order": "-n", "count": 1]],
                ["method": "GET", "path": .string("/1.1/classes/Note/\(ids[0])")],
            ]])
            XCTAssertEqual(got.body.array[0]["success"]?["results"]?.array.map { $0["n"] }, [3, 2], got.text)
            XCTAssertEqual(got.body.array[0]["success"]?["count"], 2)
            XCTAssertEqual(got.body.array[1]["success"]?["n"], 1)
            // DELETE with comma-joined ids (Waline's bulk delete).
            let deleted = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "DELETE", "path": .string("/1.1/classes/Note/\(ids[0]),\(ids[1])")],
            ]])
            XCTAssertEqual(deleted.body, [["success": [:]]], deleted.text)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Note").body["results"]?.array.count
                XCTAssertEqual(value, 1)
            }
            // Malformed batches.
            do {
                let value = try await h.call(.POST, "/1.1/batch", body: ["requests": 5]).body["code"]
                XCTAssertEqual(value, 107)
            }
            do {
                let value = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "GET"]]]).body.array.first?["error"]?["code"]
                XCTAssertEqual(value, 107)
            }
        }
    }

    func testCloudQuery() async throws {
        try await onEachDatabase { h, db in
            for (i, rid) in ["", "", "r1", ""].enumerated() {
                _ = try await h.call(.POST, "/1.1/classes/Comment", body: ["i": .int(Int64(i)), "rid": .string(rid), "url": i < 3 ? "/p/" : "/q/"])
            }
            // pvalues as a JSON array and as the Python SDK's string holding one.
            for pvalues in [#"["/p/"]"#, #""[\"/p/\"]""#] {
                let a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from Comment where url = ? order by -i"), ("pvalues", pvalues)])
                XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
                XCTAssertEqual(a.body["className"], "Comment")
                XCTAssertEqual(a.body["results"]?.array.map { $0["i"] }, [2, 1, 0])
            }
            // count(*): the count and no objects.
            let count = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select count(*) from Comment where url = '/p/'")])
            XCTAssertEqual(count.body["count"], 3, count.text)
            XCTAssertEqual(count.body["results"], [])
            // MiniValine's spliced query.
            let mini = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select count(*) from Comment where (rid='' or rid is not exists) and (url='/p/' or url='/p//') order by -createdAt")])
            XCTAssertEqual(mini.body["count"], 2, mini.text)
            // Valine's replies, also with an empty list.
            let replies = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from Comment where rid in ('r1','r2') order by -createdAt,-createdAt")])
            XCTAssertEqual(replies.body["results"]?.array.count, 1, replies.text)
            let none = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from Comment where rid in () order by -createdAt,-createdAt")])
            XCTAssertEqual(none.body["results"], [], none.text)
            // A syntax error: 400, code 300, with the line and column.
            let bad = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from Comment\nwhere url = = 1")])
            XCTAssertEqual(bad.status, 400)
            XCTAssertEqual(bad.body["code"], 300)
            XCTAssertTrue(bad.body["error"]?.string?.hasPrefix("CQL syntax error. Detail: 2:") == true, bad.text)
            do {
                let value = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from Comment where url = ?")]).body["code"]
                XCTAssertEqual(value, 300)
            }
            // Writes.
            let inserted = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into Comment(i, url) values(?, ?)"), ("pvalues", "[9, \"/z/\"]")])
            let newId = try XCTUnwrap(inserted.body["results"]?.array.first?["objectId"]?.string, inserted.text)
            let updated = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "update Comment set i = op('Increment', {'amount': 1}) where objectId = ?"), ("pvalues", "[\"\(newId)\"]")])
            XCTAssertEqual(updated.status, 200, updated.text)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Comment/\(newId)").body["i"]
                XCTAssertEqual(value, 10)
            }
            let removed = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "delete from Comment where objectId = '\(newId)'")])
            XCTAssertEqual(removed.body["results"], [], removed.text)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Comment/\(newId)").body
                XCTAssertEqual(value, .object([:]))
            }
        }
    }

    func testScanVisitsEveryObjectOnce() async throws {
        try await onEachDatabase { h, db in
            var requests: [Value] = []
            for i in 0..<25 { requests.append(["method": "POST", "path": "/1.1/classes/Item", "body": ["i": .int(Int64(i)), "odd": .bool(i % 2 == 1)]]) }
            _ = try await h.call(.POST, "/1.1/batch", body: ["requests": .array(requests)])
            for scanKey in ["objectId", "-objectId", "i", "-i"] {
                var seen: [Int64] = []
                var cursor: String?
                var pages = 0
                repeat {
                    var query = [("limit", "4"), ("where", #"{"odd":false}"#), ("scan_key", scanKey)]
                    if let cursor { query.append(("cursor", cursor)) }
                    let page = try await h.call(.GET, "/1.1/scan/classes/Item", query: query, headers: ServerHarness.masterHeaders)
                    XCTAssertEqual(page.status, 200, page.text)
                    seen += page.body["results"]?.array.compactMap { $0["i"]?.int } ?? []
                    cursor = page.body["cursor"]?.string
                    pages += 1
                } while cursor != nil && pages < 20
                XCTAssertEqual(seen.sorted(), Array(stride(from: 0, to: 25, by: 2)).map(Int64.init), "\(db) \(scanKey)")
                XCTAssertEqual(pages, 4, "\(db) \(scanKey)")
            }
        }
    }

    func testSchemas() async throws {
        try await onEachDatabase { h, db in
            _ = try await h.call(.POST, "/1.1/classes/Post", body: [
                "title": "t", "n": 1.5, "at": ["__type": "Date", "iso": "2026-01-01T00:00:00.000Z"],
                "author": ["__type": "Pointer", "className": "_User", "objectId": "u1"], "where": ["__type": "GeoPoint", "latitude": 1, "longitude": 2],
                "ACL": ["*": ["read": true]],
            ])
            let one = try await h.call(.GET, "/1.1/schemas/Post", headers: ServerHarness.masterHeaders)
            XCTAssertEqual(one.body["title"], ["type": "String"], "\(db) \(one.text)")
            XCTAssertEqual(one.body["n"], ["type": "Number"])
            XCTAssertEqual(one.body["at"], ["type": "Date"])
            XCTAssertEqual(one.body["createdAt"], ["type": "Date"])
            XCTAssertEqual(one.body["author"], ["type": "Pointer", "className": "_User"])
            XCTAssertEqual(one.body["where"], ["type": "GeoPoint"])
            XCTAssertEqual(one.body["ACL"], ["type": "ACL"])
            let all = try await h.call(.GET, "/1.1/schemas", headers: ServerHarness.masterHeaders)
            XCTAssertEqual(all.body["Post"], one.body)
            do {
                let value = try await h.call(.GET, "/1.1/schemas/Nothing", headers: ServerHarness.masterHeaders).body["code"]
                XCTAssertEqual(value, 101)
            }
        }
    }

    /// A stored File reference comes back with objectId, name and url (the
    /// Python SDK's decoder needs them), from the `_File` object of its id.
    func testFileReferencesAreExpanded() async throws {
        try await onEachDatabase { h, db in
            let file = try await h.call(.POST, "/1.1/classes/_File", body: ["name": "a.png", "url": "https://files.example/a.png", "mime_type": "image/png"],
                                        headers: ServerHarness.masterHeaders)
            let fileId = try XCTUnwrap(file.body["objectId"]?.string, file.text)
            let post = try await h.call(.POST, "/1.1/classes/Post", body: ["image": ["__type": "File", "id": .string(fileId)],
                                                                           "other": ["__type": "File", "id": "nope"]])
            let id = try XCTUnwrap(post.body["objectId"]?.string)
            let got = try await h.call(.GET, "/1.1/classes/Post/\(id)")
            XCTAssertEqual(got.body["image"], ["__type": "File", "id": .string(fileId), "objectId": .string(fileId), "name": "a.png",
                                              "url": "https://files.example/a.png", "mime_type": "image/png"], "\(db) \(got.text)")
            // An id with no _File object: the keys are there, null.
            XCTAssertEqual(got.body["other"], ["__type": "File", "id": "nope", "objectId": "nope", "name": nil, "url": nil])
        }
    }
}
