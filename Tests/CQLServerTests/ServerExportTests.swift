import CQLEval
import CQLKit
import CQLSQL
import CQLServer
import CorpusSupport
import XCTest

/// LeanCloud's own export (header lines, several parts of one class, typed
/// values, `_User` with password and salt), loaded as `cql load` loads it and
/// served: every query answers as `cql eval --data` over the export does.
final class ServerExportTests: XCTestCase {
    func testServesALoadedExport() async throws {
        let export = try LeanCloudExport.write()
        defer { try? FileManager.default.removeItem(at: export) }
        let store = try DocumentStore.load(path: export.path)
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database, load: export.path)
            for cql in LeanCloudExport.queries {
                let answer = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", cql)], headers: ServerHarness.masterHeaders)
                XCTAssertEqual(answer.status, 200, "\(database) \(cql): \(answer.text)")
                let expected = try QueryPlan(try Binder.bind(try CQLParser.parse(cql), parameters: [], now: .now), store: store).run()
                XCTAssertEqual(answer.body["results"]?.array.compactMap { $0["objectId"]?.string },
                               expected.objects.compactMap { $0["objectId"]?.stringValue }, "\(database) \(cql)")
            }
            // A Valine-style page through the REST API, newest first: the app
            // key alone is the anonymous caller, who reads what `*` may.
            let page = try await h.call(.GET, "/1.1/classes/Todo", query: [("order", "-createdAt"), ("limit", "3"), ("keys", "title")])
            let anonymous = ACLRule.restricting(try CQLParser.parse("select * from Todo order by -createdAt limit 3"), to: [])
            let newest = try QueryPlan(anonymous, store: store).run()
            XCTAssertEqual(page.body["results"]?.array.compactMap { $0["objectId"]?.string }, newest.objects.compactMap { $0["objectId"]?.stringValue })
            // _User keeps its password and salt in storage (for the login of
            // imported users), never in an answer.
            let user = try await h.call(.GET, "/1.1/classes/_User/u1", headers: ServerHarness.masterHeaders)
            XCTAssertEqual(user.body["username"], "alice", "\(database)")
            await h.stop()
        }
    }
}
