import CQLKit
@testable import CQLServer
import XCTest

/// The route table (``APIRouteTable``: each resource's declarations) and the
/// HTTP middleware in front of it (``ServerRouter``), in the order a request
/// meets them.
final class ServerRoutingTests: XCTestCase {
    /// Every declared route is the one its own path finds: no declaration is
    /// shadowed by another, and a literal beats a parameter
    /// (`users/me` before `users/:id`).
    func testEveryDeclaredRouteIsTheOneItsPathFinds() {
        XCTAssertGreaterThan(API.routes.all.count, 30)
        for route in API.routes.all {
            let segments = route.pattern.map { segment -> String in
                switch segment {
                case .literal(let s): return s
                case .className: return "Todo"
                case .parameter: return "X1"
                }
            }
            let found = API.routes.match(method: route.method, segments: APIRouteTable.normalized(segments))
            XCTAssertEqual(found?.route.label, route.label, "\(route.label) is found as \(found?.route.label ?? "nothing")")
        }
        func label(_ method: String, _ path: String) -> String? {
            API.routes.match(method: method, segments: APIRouteTable.normalized(path.split(separator: "/").map(String.init)))?.route.label
        }
        XCTAssertEqual(label("GET", "users/me"), "GET /1.1/users/me")
        XCTAssertEqual(label("GET", "users/abc"), "GET /1.1/users/<id>")
        XCTAssertEqual(label("POST", "classes/_user"), "POST /1.1/classes/_User")
        XCTAssertEqual(label("POST", "classes/Todo"), "POST /1.1/classes/<Class>")
        XCTAssertEqual(label("GET", "roles/abc"), "GET /1.1/classes/<Class>/<id>")
        XCTAssertEqual(label("POST", "functions/_ops/metadatas"), "POST /1.1/functions/_ops/metadatas")
        XCTAssertEqual(label("POST", "functions/hello"), "POST /1.1/functions/<name>")
        XCTAssertNil(label("PATCH", "classes/Todo"))
        XCTAssertNil(label("GET", "classes/Todo/a/b"))
        XCTAssertNil(label("GET", "nothing"))
        // What the handlers are given.
        let get = API.routes.match(method: "GET", segments: ["classes", "_role", "r1"])
        XCTAssertEqual(try get?.className(), "_Role")
        XCTAssertEqual(get?["id"], "r1")
        XCTAssertThrowsError(try API.routes.match(method: "GET", segments: ["classes", "_Join:x", "r1"])?.className())
        XCTAssertEqual(API.routes.match(method: "POST", segments: ["call", "f"])?.route.body, .anyJSON)
        XCTAssertEqual(API.routes.match(method: "POST", segments: ["classes", "Todo"])?.route.body, .object)
        XCTAssertEqual(API.routes.all.filter(\.isPublic).map(\.label), ["GET /1.1/date"])
    }

    /// The middleware, outermost first: CORS answers every preflight; the
    /// router's "no route" is the API's JSON 404; authentication refuses a
    /// request without keys before its body is read (except the public
    /// clock); the parameter check names the route as declared.
    func testTheMiddlewareInFrontOfTheRoutes() async throws {
        let h = try await ServerHarness.start(.sqlite)
        defer { Task { await h.stop() } }
        // A preflight of any path, answered before routing and keys.
        for path in ["/1.1/classes/Todo", "/nowhere", "/uploads/x"] {
            let a = try await h.call(.OPTIONS, path, headers: [("Origin", "https://blog.example"), ("Access-Control-Request-Headers", "X-LC-Id")])
            XCTAssertEqual(a.status, 204, path)
            XCTAssertEqual(a.headers.first(name: "access-control-allow-origin"), "https://blog.example", path)
            XCTAssertEqual(a.headers.first(name: "access-control-allow-headers"), "X-LC-Id", path)
        }
        // Paths no route has: JSON, with the origin named.
        let outside = try await h.call(.GET, "/nowhere", headers: [("Origin", "https://blog.example")])
        XCTAssertEqual(outside.status, 404)
        XCTAssertEqual(outside.body["error"], .string("no such API: /nowhere (the API is under /1.1/)"))
        XCTAssertEqual(outside.headers.first(name: "access-control-allow-origin"), "https://blog.example")
        do {
            let a = try await h.call(.GET, "/uploads/x")
            XCTAssertEqual(a.body["error"], .string("no such route: GET /uploads/x"))
        }
        do {
            let a = try await h.call(.POST, "/v1/route")
            XCTAssertEqual(a.body["error"], .string("no such API: /v1/route (the API is under /1.1/)"))
        }
        // Under /1.1/: keys first, then the route.
        do {
            let a = try await h.call(.PATCH, "/1.1/classes/Todo", headers: [])
            XCTAssertEqual(a.status, 401)
        }
        let patch = try await h.call(.PATCH, "/1.1/classes/Todo")
        XCTAssertEqual(patch.status, 404)
        XCTAssertEqual(patch.body["error"], .string("no such API: PATCH /1.1/classes/Todo"))
        do {
            let a = try await h.call(.GET, "/1.1", headers: [])
            XCTAssertEqual(a.status, 401)
        }
        do {
            let a = try await h.call(.GET, "/1.1")
            XCTAssertEqual(a.body["error"], .string("no such API: GET /1.1/"))
        }
        // The clock is public; nothing else is.
        let date = try await h.call(.GET, "/1.1/date", headers: [])
        XCTAssertEqual(date.status, 200)
        XCTAssertEqual(date.body["__type"], .string("Date"))
        do {
            let a = try await h.call(.POST, "/1.1/date", headers: [])
            XCTAssertEqual(a.status, 401)
        }
        // Refused before the body: not a 107 for a body that is no JSON.
        let noKey = try await h.call(.POST, "/1.1/classes/Todo", rawBody: "[not json", headers: [])
        XCTAssertEqual(noKey.status, 401)
        do {
            let a = try await h.call(.POST, "/1.1/classes/Todo", rawBody: "[not json")
            XCTAssertEqual(a.body["code"], .int(107))
        }
        // A function's parameters may be any JSON: past the body check (no engine: its own error).
        do {
            let a = try await h.call(.POST, "/1.1/functions/hello", rawBody: "[1]")
            XCTAssertNotEqual(a.body["code"], .int(107))
        }
        // The parameter check names the route as declared.
        let unknown = try await h.call(.GET, "/1.1/classes/Todo/abc?limt=5")
        XCTAssertEqual(unknown.body["error"], .string("unknown parameter 'limt' for GET /1.1/classes/<Class>/<id> (it reads include, keys, returnACL)"))
        let nowhere = try await h.call(.GET, "/1.1/nothing?x=1")
        XCTAssertEqual(nowhere.body["error"], .string("unknown parameter 'x' for GET /1.1/nothing (it reads none)"))
    }
}
