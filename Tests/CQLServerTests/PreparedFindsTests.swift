import CQLKit
import CQLSQL
@testable import CQLServer
import XCTest

/// Finds kept prepared (``PreparedFinds``): a kept query answers as a new
/// one would, for each caller apart, sees writes made after it was kept,
/// and queries that depend on the clock or fail are never kept. Through
/// ``API/handle(_:)``, on SQLite and PostgreSQL.
final class PreparedFindsTests: XCTestCase {
    static let master = Identity(isMaster: true)
    static let callers = [("anonymous", Identity(isMaster: false)), ("u1", Identity(isMaster: false, userId: "u1")), ("master", master)]

    func call(_ api: API, _ identity: Identity, _ method: String, _ path: String, _ parameters: [String: Value] = [:],
              body: Value? = nil) async -> (status: Int, body: Value) {
        let segments = path.split(separator: "/").map(String.init)
        do {
            let r = try await api.handle(APIRequest(method: method, segments: segments, parameters: parameters, body: body, identity: identity))
            return (r.status, r.body)
        } catch {
            return (error.status, error.body)
        }
    }

    /// The `n` of each object of a find's answer, in order.
    func numbers(_ answer: (status: Int, body: Value)) -> [Int64] {
        (answer.body["results"]?.array ?? []).compactMap { $0["n"]?.int }
    }

    func page(_ p: Int) -> [String: Value] { ["where": .string(#"{"url":"/p/\#(p)/"}"#), "order": "n"] }

    func testKeptFindsAnswerAsNewOnesForEachCaller() async throws {
        for database in ServerHarness.Database.allCases {
            let storage = try await ACLHostileAccessTests.storage(database)
            let api = API(storage: storage)
            // Pages 0 and 1: every third comment private to u1, the others public.
            var readable: [String: [Int: [Int64]]] = [:]
            for n in 0..<9 {
                let own = n % 3 == 0
                let acl: Value = own ? ["u1": ["read": true, "write": true]] : ["*": ["read": true]]
                let made = await call(api, Self.master, "POST", "classes/Comment", body: ["url": .string("/p/\(n % 2)/"), "n": .int(Int64(n)), "ACL": acl])
                XCTAssertEqual(made.status, 201, "\(database): \(JSONWriter.string(made.body))")
                for (name, _) in Self.callers where !own || name != "anonymous" {
                    readable[name, default: [:]][n % 2, default: []].append(Int64(n))
                }
            }
            let before = api.finds.outcomes
            for _ in 0..<3 {
                for (name, identity) in Self.callers {
                    for p in 0..<2 {
                        let answer = await call(api, identity, "GET", "classes/Comment", page(p))
                        XCTAssertEqual(numbers(answer), readable[name]?[p] ?? [], "\(database) \(name) page \(p): \(JSONWriter.string(answer.body))")
                    }
                }
            }
            let after = api.finds.outcomes
            XCTAssertEqual(after.misses - before.misses, 6, "\(database): one query made per caller and page")
            XCTAssertEqual(after.hits - before.hits, 12, "\(database): the two rounds after the first are kept queries")

            // A write after the query was kept shows at once: the query is kept, not its answer.
            _ = await call(api, Self.master, "POST", "classes/Comment", body: ["url": "/p/0/", "n": 100, "ACL": ["*": ["read": true]]])
            let anonymous = await call(api, Identity(isMaster: false), "GET", "classes/Comment", page(0))
            XCTAssertEqual(numbers(anonymous), (readable["anonymous"]?[0] ?? []) + [100], "\(database)")

            // A query read against the clock is made anew each time.
            let clock = ["where": Value.string(#"{"createdAt":{"$lt":{"$relativeTime":"in 1 day"}},"url":"/p/1/"}"#), "order": "n"]
            let made = api.finds.outcomes.misses
            for _ in 0..<2 {
                let answer = await call(api, Identity(isMaster: false), "GET", "classes/Comment", clock)
                XCTAssertEqual(numbers(answer), readable["anonymous"]?[1] ?? [], "\(database): \(JSONWriter.string(answer.body))")
            }
            XCTAssertEqual(api.finds.outcomes.misses, made + 2, "\(database): a query against the clock was kept")

            // A request that fails to make its query fails alike each time and is not kept.
            let malformed = ["where": Value.string(#"{"url":"#)]
            for _ in 0..<2 {
                let answer = await call(api, Identity(isMaster: false), "GET", "classes/Comment", malformed)
                XCTAssertEqual(answer.status, 400, "\(database): \(JSONWriter.string(answer.body))")
                XCTAssertEqual(answer.body["code"]?.int, 107, "\(database): \(JSONWriter.string(answer.body))")
            }
            XCTAssertEqual(api.finds.outcomes.misses, made + 4, "\(database)")
            // One whose query fails when run (a bad pattern) is kept, and fails alike each time.
            let bad = ["where": Value.string(#"{"url":{"$regex":"("}}"#)]
            let first = await call(api, Identity(isMaster: false), "GET", "classes/Comment", bad)
            let second = await call(api, Identity(isMaster: false), "GET", "classes/Comment", bad)
            XCTAssertEqual(first.status, 400, "\(database): \(JSONWriter.string(first.body))")
            XCTAssertEqual(JSONWriter.string(first.body), JSONWriter.string(second.body), "\(database)")
            await storage.shutdown()
        }
    }

    /// A request as HTTP makes it: its query string as sent, decoded only
    /// when a route reads it (``APIRequest/rawQuery``).
    func callRaw(_ api: API, _ identity: Identity, _ path: String, _ rawQuery: String) async -> (status: Int, body: Value) {
        var r = APIRequest(method: "GET", segments: path.split(separator: "/").map(String.init), identity: identity)
        r.rawQuery = rawQuery
        do {
            let answer = try await api.handle(r)
            return (answer.status, answer.body)
        } catch {
            return (error.status, error.body)
        }
    }

    /// Finds keyed by their query string as sent answer as finds made from
    /// their parameters; the same parameters spelled otherwise make a query
    /// of their own with the same answer; other routes decode the string.
    func testFindsKeyedByTheirQueryStringAnswerAsByParameters() async throws {
        for database in ServerHarness.Database.allCases {
            let storage = try await ACLHostileAccessTests.storage(database)
            let api = API(storage: storage)
            var ids: [String] = []
            for n in 0..<6 {
                let made = await call(api, Self.master, "POST", "classes/Comment",
                                      body: ["url": .string("/p/\(n % 2)/"), "n": .int(Int64(n)), "ACL": ["*": ["read": true]]])
                ids.append(made.body["objectId"]?.string ?? "")
            }
            let anonymous = Identity(isMaster: false)
            let expected = await call(api, anonymous, "GET", "classes/Comment", page(0))
            XCTAssertEqual(numbers(expected), [0, 2, 4], "\(database)")
            let sent = "where=%7B%22url%22%3A%22%2Fp%2F0%2F%22%7D&order=n"
            let before = api.finds.outcomes
            for _ in 0..<2 {
                let answer = await callRaw(api, anonymous, "classes/Comment", sent)
                XCTAssertEqual(JSONWriter.string(answer.body), JSONWriter.string(expected.body), "\(database)")
            }
            XCTAssertEqual(api.finds.outcomes.misses - before.misses, 1, "\(database)")
            XCTAssertEqual(api.finds.outcomes.hits - before.hits, 1, "\(database)")
            let reordered = await callRaw(api, anonymous, "classes/Comment", "order=n&where=%7B%22url%22%3A%22%2Fp%2F0%2F%22%7D")
            XCTAssertEqual(JSONWriter.string(reordered.body), JSONWriter.string(expected.body), "\(database)")
            XCTAssertEqual(api.finds.outcomes.misses - before.misses, 2, "\(database)")
            // Another caller with the same string: a query of its own.
            let master = await callRaw(api, Self.master, "classes/Comment", sent)
            XCTAssertEqual(numbers(master), [0, 2, 4], "\(database)")
            XCTAssertEqual(api.finds.outcomes.misses - before.misses, 3, "\(database)")
            // A malformed where fails alike each time, and is not kept.
            for _ in 0..<2 {
                let answer = await callRaw(api, anonymous, "classes/Comment", "where=%7B%22url%22")
                XCTAssertEqual(answer.body["code"]?.int, 107, "\(database): \(JSONWriter.string(answer.body))")
            }
            XCTAssertEqual(api.finds.outcomes.misses - before.misses, 5, "\(database)")
            // A get reads its decoded parameters (keys), and so does a count.
            let got = await callRaw(api, anonymous, "classes/Comment/\(ids[1])", "keys=n")
            XCTAssertEqual(got.body["n"]?.int, 1, "\(database): \(JSONWriter.string(got.body))")
            XCTAssertNil(got.body["url"], "\(database): \(JSONWriter.string(got.body))")
            let counted = await callRaw(api, anonymous, "classes/Comment", "where=%7B%22url%22%3A%22%2Fp%2F1%2F%22%7D&count=1&limit=0")
            XCTAssertEqual(counted.body["count"]?.int, 3, "\(database): \(JSONWriter.string(counted.body))")
            XCTAssertEqual(counted.body["results"]?.array.count, 0, "\(database)")
            await storage.shutdown()
        }
    }

    /// Past its capacity the cache starts again, and answers stay right.
    func testTheCacheIsBounded() throws {
        let finds = PreparedFinds()
        for i in 0..<(PreparedFinds.capacity + 10) {
            let key = PreparedFinds.Key(className: "T", parameters: [.string("\(i)")], grantees: ["*"])
            let entry = finds.entry(for: key) {
                PreparedFinds.Made(query: Query(className: "T\(i)"), returnACL: false, countAsked: false, cacheable: true)
            }
            XCTAssertEqual(entry.query.className, "T\(i)")
        }
        XCTAssertLessThanOrEqual(finds.count, PreparedFinds.capacity)
        XCTAssertEqual(finds.outcomes.misses, PreparedFinds.capacity + 10)
    }
}
