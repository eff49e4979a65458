import CQLKit
import CQLServer
import XCTest

/// The requests Valine, Waline and MiniValine send (Server.md), replayed
/// over HTTP; and many clients writing at once.
final class CommentSystemTests: XCTestCase {
    func testValine() async throws {
        try await onEachDatabase { h, db in
            // New comments: insertedAt as a Date, readable by all.
            var ids: [String] = []
            for i in 0..<13 {
                let url: Value = i < 12 ? "/p/" : "/other/"
                let rid: Value = i == 5 ? "r" : (i == 7 ? .null : "")
                let insertedAt: Value = .string(String(format: "2026-11-%02dT10:00:00.000Z", i + 1))
                var object: [String: Value] = [
                    "comment": .string("第\(i)条评论"), "nick": "访客", "url": url, "rid": rid,
                    "insertedAt": ["__type": "Date", "iso": insertedAt], "ACL": ["*": ["read": true]],
                ]
                if i == 3 { object.removeValue(forKey: "rid") }
                let created = try await h.call(.POST, "/1.1/classes/Comment", body: .object(object))
                XCTAssertEqual(created.status, 201, "\(db) \(created.text)")
                ids.append(created.body["objectId"]?.string ?? "")
            }
            let condition = #"{"$or":[{"rid":{"$exists":false}},{"rid":""}],"url":"/p/"}"#
            let page = try await h.call(.GET, "/1.1/classes/Comment?where=\(ServerHarness.encode(condition))&limit=10&skip=0&order=-createdAt,-insertedAt")
            XCTAssertEqual(page.status, 200, page.text)
            // i = 5 (a reply) and 7 (rid null: neither missing nor "") are out; 12 is another page.
            let expected = [11, 10, 9, 8, 6, 4, 3, 2, 1, 0].map { "第\($0)条评论" }
            XCTAssertEqual(page.body["results"]?.array.compactMap { $0["comment"]?.string }, expected, "\(db)")
            let second = try await h.call(.GET, "/1.1/classes/Comment?where=\(ServerHarness.encode(condition))&limit=10&skip=10&order=-createdAt,-insertedAt")
            XCTAssertEqual(second.body["results"], [])
            let count = try await h.call(.GET, "/1.1/classes/Comment?where=\(ServerHarness.encode(condition))&limit=0&count=1")
            XCTAssertEqual(count.body, ["results": [], "count": 10])
            // Page counter: created readable and writable by all, then incremented.
            let counter = try await h.call(.POST, "/1.1/classes/Counter", body: ["url": "/p/", "title": "P", "time": 1, "ACL": ["*": ["read": true, "write": true]]])
            let counterId = try XCTUnwrap(counter.body["objectId"]?.string)
            let bumped = try await h.call(.PUT, "/1.1/classes/Counter/\(counterId)", body: ["time": ["__op": "Increment", "amount": 1]])
            XCTAssertEqual(bumped.status, 200)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Counter", query: [("where", #"{"url":"/p/"}"#)]).body["results"]?.array.first?["time"]
                XCTAssertEqual(value, 2)
            }
        }
    }

    func testWaline() async throws {
        try await onEachDatabase { h, db in
            var requests: [Value] = []
            for i in 0..<150 {
                let iso = Value.string(ISODate.format(DateValue(millisecondsSince1970: 1_760_000_000_000 + Int64(i) * 60_000)))
                let body: [String: Value] = [
                    "comment": .string("c\(i)"), "url": .string(i % 3 == 0 ? "/a/" : "/b/"), "status": .string(i % 10 == 0 ? "spam" : "approved"),
                    "sticky": i == 42 ? .int(1) : .null, "mail": .string("u\(i % 7)@example.com"),
                    "insertedAt": .object(["__type": "Date", "iso": iso]),
                ]
                requests.append(["method": "POST", "path": "/1.1/classes/Comment", "body": .object(body)])
            }
            let made = try await h.call(.POST, "/1.1/batch", body: ["requests": .array(requests)], headers: ServerHarness.masterHeaders)
            XCTAssertEqual(made.body.array.filter { $0["success"] != nil }.count, 150, "\(db)")
            let since = #"{"__type":"Date","iso":"2025-10-09T09:00:00.000Z"}"#
            let condition = #"{"url":{"$in":["/a/","/b/"]},"status":{"$nin":["spam","waiting"]},"mail":{"$ne":"u1@example.com"},"insertedAt":{"$gt":\#(since)},"rid":{"$exists":false},"comment":{"$regex":"^\\Qc\\E"}}"#
            var seen: [String] = []
            var skip = 0
            while true {
                let page = try await h.call(.GET, "/1.1/classes/Comment", query: [
                    ("where", condition), ("keys", "comment,insertedAt,sticky"), ("order", "-sticky,-insertedAt,-objectId"), ("limit", "100"), ("skip", String(skip)),
                ], headers: ServerHarness.masterHeaders)
                XCTAssertEqual(page.status, 200, page.text)
                let results = page.body["results"]?.array ?? []
                seen += results.compactMap { $0["comment"]?.string }
                if results.count < 100 { break }
                skip += 100
            }
            // Evaluated here the same way: every i but spam, u1's, and those before `since`.
            let cutoff = ISODate.parse("2025-10-09T09:00:00.000Z")!.millisecondsSince1970
            let kept: [Int] = (0..<150).filter { (i: Int) -> Bool in
                let at: Int64 = 1_760_000_000_000 + Int64(i) * 60_000
                return i % 10 != 0 && i % 7 != 1 && at > cutoff
            }
            var expected: [String] = kept.sorted(by: >).map { "c\($0)" }
            // sticky: descending puts the number before the missing ones (type bracketing: a value above missing).
            if let at = expected.firstIndex(of: "c42") { expected.remove(at: at); expected.insert("c42", at: 0) }
            XCTAssertEqual(seen, expected, "\(db)")
            // Bulk delete through batch, comma-joined ids.
            let ids = try await h.call(.GET, "/1.1/classes/Comment", query: [("where", #"{"status":"spam"}"#), ("keys", "objectId")], headers: ServerHarness.masterHeaders)
                .body["results"]?.array.compactMap { $0["objectId"]?.string } ?? []
            XCTAssertEqual(ids.count, 15)
            let deleted = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "DELETE", "path": .string("/1.1/classes/Comment/" + ids.joined(separator: ","))]]],
                                          headers: ServerHarness.masterHeaders)
            XCTAssertEqual(deleted.body, [["success": [:]]], deleted.text)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Comment", query: [("limit", "0"), ("count", "1")]).body["count"]
                XCTAssertEqual(value, 135)
            }
        }
    }

    /// 8 clients incrementing one counter 25 times each leave exactly 200.
    func testConcurrentIncrements() async throws {
        try await onEachDatabase { h, db in
            let counter = try await h.call(.POST, "/1.1/classes/Counter", body: ["time": 0])
            let id = try XCTUnwrap(counter.body["objectId"]?.string)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var failures = 0
                        for _ in 0..<25 {
                            let a = try await h.call(.PUT, "/1.1/classes/Counter/\(id)", body: ["time": ["__op": "Increment", "amount": 1]])
                            if a.status != 200 { failures += 1 }
                        }
                        return failures
                    }
                }
                var failures = 0
                for try await f in group { failures += f }
                XCTAssertEqual(failures, 0, "\(db)")
            }
            do {
                let value = try await h.call(.GET, "/1.1/classes/Counter/\(id)").body["time"]
                XCTAssertEqual(value, 200, "\(db)")
            }
        }
    }
}
