import CorpusSupport
import Crypto
import Foundation
import XCTest

/// `cql pull` from a source `cql serve` (LeanCloud's stand-in: any
/// LeanCloud-compatible server is a valid source): thousands of objects of
/// several classes and every value type, relations, roles, files; pulled
/// into SQLite and PostgreSQL, compared object by object through both
/// servers' APIs and row by row through `cql dump`; changed, added and
/// deleted on the source and pulled again (only the delta moves); killed
/// and resumed; users keep the password hashes of the export.
final class PullTests: XCTestCase {
    func cql(_ arguments: [String]) throws -> CLITests.Run { try CLITests.cql(arguments) }

    /// LeanCloud's stored password form (Passwords.swift).
    static func leanCloudHash(_ password: String, salt: String) -> String {
        var h = Array(SHA512.hash(data: Array(salt.utf8) + Array(password.utf8)))
        for _ in 0..<512 { h = Array(SHA512.hash(data: h)) }
        return Data(h).base64EncodedString()
    }

    static func id(_ prefix: String, _ i: Int) -> String { prefix + String(format: "%05d", i) }

    /// The source app's export: `_User` (with LeanCloud hashes), `_Role`
    /// with a users relation, `Post` with every value type and a `likes`
    /// relation, `Comment` pointing at posts, `_File`s.
    static func writeSource(_ dir: String, posts: Int = 1500, comments: Int = 2500) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let users = 40
        try Migration.writePart(dir, className: "_User", (0..<users).map { i in
            #"{"objectId":"\#(id("u", i))","username":"user\#(i)","password":"\#(leanCloudHash("secret" + String(i), salt: "salt" + String(i)))","salt":"salt\#(i)","email":"user\#(i)@example.com","emailVerified":\#(i % 2 == 0),"createdAt":"2023-01-01T00:00:00.000Z","updatedAt":"2023-06-01T00:00:00.000Z","ACL":{"*":{"read":true},"\#(id("u", i))":{"write":true}}}"#
        })
        try Migration.writePart(dir, className: "_Role", [
            #"{"objectId":"r00001","name":"admin","users":{"__type":"Relation","className":"_User"},"ACL":{"*":{"read":true}},"createdAt":"2023-01-02T00:00:00.000Z","updatedAt":"2023-01-02T00:00:00.000Z"}"#,
        ])
        try Migration.writePart(dir, className: "_Join:users:_Role", (0..<5).map { #"{"owningId":"r00001","relatedId":"\#(id("u", $0))"}"# })
        try Migration.writePart(dir, className: "_File", (0..<10).map { i in
            #"{"objectId":"\#(id("f", i))","name":"图片\#(i).png","url":"https://lc-files.example.com/\#(i).png","key":"lc/\#(i).png","mime_type":"image/png","metaData":{"size":\#(100 + i)},"createdAt":"2023-02-01T00:00:00.000Z","updatedAt":"2023-02-01T00:00:00.000Z"}"#
        })
        var postLines: [String] = []
        var likes: [String] = []
        for i in 0..<posts {
            var fields = [
                #""objectId":"\#(id("p", i))""#, #""title":"post \#(i) «\#(i % 7)» \"q\"""#, #""n":\#(i)"#, #""score":\#(Double(i) / 4)"#,
                #""flag":\#(i % 3 == 0)"#, #""at":{"__type":"Date","iso":"2024-0\#(1 + i % 9)-1\#(i % 10)T0\#(i % 10):00:00.\#(String(format: "%03d", i % 1000))Z"}"#,
                #""author":{"__type":"Pointer","className":"_User","objectId":"\#(id("u", i % users))"}"#,
                #""loc":{"__type":"GeoPoint","latitude":\#(Double(i % 180) - 89.5),"longitude":\#(Double(i % 360) - 179.5)}"#,
                #""tags":["t\#(i % 5)","t\#(i % 11)",\#(i)]"#, #""meta":{"views":\#(i * 3),"nested":{"ok":true,"at":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"}}}"#,
                #""createdAt":"2024-01-01T00:00:\#(String(format: "%02d", i % 60)).000Z""#, #""updatedAt":"2024-02-01T00:00:00.000Z""#,
            ]
            if i % 4 == 0 { fields.append(#""image":{"__type":"File","id":"\#(id("f", i % 10))"}"#) }
            if i % 5 == 0 { fields.append(#""blob":{"__type":"Bytes","base64":"AAEC\#(i % 10)w=="}"#) }
            if i % 6 == 0 { fields.append(#""empty":null"#) }
            if i % 2 == 0 { fields.append(#""ACL":{"*":{"read":true},"\#(id("u", i % users))":{"read":true,"write":true}}"#) }
            if i % 10 == 0 {
                fields.append(#""likes":{"__type":"Relation","className":"_User"}"#)
                for u in 0..<(1 + i % 3) { likes.append(#"{"owningId":"\#(id("p", i))","relatedId":"\#(id("u", (i + u) % users))"}"#) }
            }
            postLines.append("{" + fields.joined(separator: ",") + "}")
        }
        try Migration.writePart(dir, className: "Post", postLines)
        try Migration.writePart(dir, className: "_Join:likes:Post", likes)
        try Migration.writePart(dir, className: "Comment", (0..<comments).map { i in
            #"{"objectId":"\#(id("c", i))","post":{"__type":"Pointer","className":"Post","objectId":"\#(id("p", i % posts))"},"body":"comment \#(i) 中文","createdAt":"2024-03-01T00:00:00.000Z","updatedAt":"2024-03-01T00:00:00.000Z"}"#
        })
    }

    /// Only the export's `_User` part (what a move loads before pulling, for the hashes).
    static func usersOnly(_ source: String, into dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source + "/_User.0.jsonl", toPath: dir + "/_User.0.jsonl")
    }

    func contents(_ dir: String) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let lines = try String(contentsOfFile: dir + "/" + name, encoding: .utf8).split(separator: "\n").map(String.init)
            // Join rows in any order (relations are sets).
            out[name] = name.hasPrefix("_Join:") ? lines.sorted() : lines
        }
        return out
    }

    /// Every object of every class, as the server answers a master-key scan.
    func everything(_ server: ServeChild, classes: [String]) throws -> [String: [Any]] {
        var out: [String: [Any]] = [:]
        for c in classes {
            var objects: [Any] = []
            var cursor: String?
            repeat {
                var parameters = ["limit=1000", "returnACL=true"]
                if let cursor { parameters.append("cursor=\(cursor)") }
                let (status, body) = try server.get("/1.1/scan/classes/\(c)", parameters)
                XCTAssertEqual(status, 200, body)
                let page = try JSONSerialization.jsonObject(with: Data(body.utf8)) as! [String: Any]
                objects += page["results"] as! [Any]
                cursor = page["cursor"] as? String
            } while cursor != nil
            out[c] = objects
        }
        return out
    }

    func assertSameThroughAPIs(_ source: ServeChild, _ target: ServeChild, classes: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let a = try everything(source, classes: classes), b = try everything(target, classes: classes)
        for c in classes {
            XCTAssertEqual(a[c]?.count, b[c]?.count, c, file: file, line: line)
            XCTAssertTrue(NSArray(array: a[c] ?? []).isEqual(to: b[c] ?? []), "\(c) differs", file: file, line: line)
        }
    }

    /// `run` printed each of `expected` as a line, and last a line starting with `last`.
    func assertLines(_ run: CLITests.Run, _ expected: [String], last: String, file: StaticString = #filePath, line: UInt = #line) {
        let lines = run.stdout.split(separator: "\n").map(String.init)
        for e in expected { XCTAssertTrue(lines.contains(e), "\(e) in:\n\(run.stdout)\(run.stderr)", file: file, line: line) }
        XCTAssertTrue(lines.last?.hasPrefix(last) == true, run.stdout, file: file, line: line)
    }

    func pull(_ source: ServeChild, _ target: [String], _ extra: [String] = []) throws -> CLITests.Run {
        try cql(["pull", "--from", source.base, "--app-id", "a", "--master-key", "m"] + target + extra)
    }

    static let classes = ["Comment", "Post", "_File", "_Role", "_User"]

    func runFlow(target: [String], serveTarget: [String], dir: String) throws {
        try Self.writeSource(dir + "/export")
        XCTAssertEqual(try cql(["load", "--sqlite", dir + "/src.db", dir + "/export"]).status, 0)
        let source = try ServeChild(["--sqlite", dir + "/src.db"], directory: dir)
        defer { source.stop() }
        // The move: the export's users first (their hashes), then the pull.
        try Self.usersOnly(dir + "/export", into: dir + "/users")
        XCTAssertEqual(try cql(["load"] + target + [dir + "/users"]).status, 0)
        let first = try pull(source, target)
        XCTAssertEqual(first.status, 0, first.stderr)
        assertLines(first, ["Post: 1,500 objects, 300 relation rows, 0 deleted", "Comment: 2,500 objects, 0 deleted",
                            "_Role: 1 object, 5 relation rows, 0 deleted", "_User: 40 objects, 0 deleted, 40 password hashes kept"],
                    last: "pulled 4,051 objects of 5 classes (full); the next pull brings what changed since 20")
        // Row for row what the source holds (dump of both).
        XCTAssertEqual(try cql(["dump", "--sqlite", dir + "/src.db", dir + "/dump-src"]).status, 0)
        XCTAssertEqual(try cql(["dump"] + target + [dir + "/dump-dst"]).status, 0)
        XCTAssertEqual(try contents(dir + "/dump-dst"), try contents(dir + "/dump-src"))

        // Changes on the source: updates, an op, a new object, a new
        // relation row, a deletion, a new user (no hash comes for it).
        let client = ServeChild.master + ["-H", "Content-Type: application/json"]
        func write(_ method: String, _ path: String, _ body: String) throws {
            let (s, answer) = try Migration.curlText(["-X", method] + client + ["-d", body, source.base + path])
            XCTAssertTrue(s == 200 || s == 201, "\(method) \(path): \(s) \(answer)")
        }
        try write("PUT", "/1.1/classes/Post/p00003", #"{"title":"changed","at":{"__type":"Date","iso":"2030-01-01T00:00:00.000Z"}}"#)
        try write("PUT", "/1.1/classes/Post/p00004", #"{"n":{"__op":"Increment","amount":10}}"#)
        try write("PUT", "/1.1/classes/Post/p00010", #"{"likes":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"u00039"}]}}"#)
        try write("POST", "/1.1/classes/Comment", #"{"body":"new one","post":{"__type":"Pointer","className":"Post","objectId":"p00001"}}"#)
        try write("DELETE", "/1.1/classes/Comment/c00007", "{}")
        try write("POST", "/1.1/users", #"{"username":"newcomer","password":"pw"}"#)
        // (--overlap 0: the next pull starts at this one's start, so that a
        // third finds nothing; by default it starts a minute earlier.)
        // (And the indexes the app had, in the form LeanCloud's index API takes.)
        try Data(#"{"Comment":[{"keys":{"body":1}}]}"#.utf8).write(to: URL(fileURLWithPath: dir + "/indexes.json"))
        let second = try pull(source, target, ["--overlap", "0", "--indexes-from", dir + "/indexes.json"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("indexes: Comment: body\n"), second.stderr)
        assertLines(second, ["Post: 3 objects, 3 relation rows, 0 deleted", "Comment: 1 object, 1 deleted", "_User: 1 object, 0 deleted",
                             "_File: 0 objects, 0 deleted"], last: "pulled 5 objects of 5 classes (changes since 20")
        // The same objects through both servers' APIs.
        let targetServer = try ServeChild(serveTarget, directory: dir)
        defer { targetServer.stop() }
        try assertSameThroughAPIs(source, targetServer, classes: Self.classes)
        // And row for row, but the new user's hash (the REST API never gives it).
        try? FileManager.default.removeItem(atPath: dir + "/dump-src")
        try? FileManager.default.removeItem(atPath: dir + "/dump-dst")
        XCTAssertEqual(try cql(["dump", "--sqlite", dir + "/src.db", dir + "/dump-src"]).status, 0)
        XCTAssertEqual(try cql(["dump"] + target + [dir + "/dump-dst"]).status, 0)
        var src = try contents(dir + "/dump-src"), dst = try contents(dir + "/dump-dst")
        let newcomer = { (lines: [String]) in lines.filter { $0.contains(#""username":"newcomer""#) } }
        XCTAssertEqual(newcomer(src["_User.0.jsonl"]!).count, 1)
        XCTAssertTrue(newcomer(src["_User.0.jsonl"]!)[0].contains(#""password":"#))
        XCTAssertFalse(newcomer(dst["_User.0.jsonl"]!)[0].contains(#""password":"#))
        src["_User.0.jsonl"]!.removeAll { $0.contains("newcomer") }
        dst["_User.0.jsonl"]!.removeAll { $0.contains("newcomer") }
        XCTAssertEqual(dst, src)
        // An imported user logs in on the new server with the LeanCloud password.
        let (login, answer) = try Migration.curlText(["-X", "POST", "-H", "X-LC-Id: a", "-H", "X-LC-Key: k", "-H", "Content-Type: application/json",
                                                      "-d", #"{"username":"user7","password":"secret7"}"#, targetServer.base + "/1.1/login"])
        XCTAssertEqual(login, 200, answer)
        // A third pull with nothing changed moves nothing.
        let third = try pull(source, target)
        XCTAssertTrue(third.stdout.hasSuffix("\n") && third.stdout.contains("pulled 0 objects of 5 classes"), third.stdout)
    }

    func testPullDeltaAndCompareOnSQLite() throws {
        let dir = try Migration.directory("pull")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try runFlow(target: ["--sqlite", dir + "/dst.db"], serveTarget: ["--sqlite", dir + "/dst.db"], dir: dir)
    }

    func testPullDeltaAndCompareOnPostgreSQL() throws {
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let dir = try Migration.directory("pull-pg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try runFlow(target: ["--postgres", pg.url], serveTarget: ["--postgres", pg.url], dir: dir)
    }

    /// kill -9 in the middle of a pull: the next run goes on from the last
    /// stored page and ends with exactly the source's objects.
    func testKilledPullResumes() throws {
        let dir = try Migration.directory("pull-kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.writeSource(dir + "/export", posts: 300, comments: 20000)
        XCTAssertEqual(try cql(["load", "--sqlite", dir + "/src.db", dir + "/export"]).status, 0)
        let source = try ServeChild(["--sqlite", dir + "/src.db"], directory: dir)
        defer { source.stop() }
        let dst = dir + "/dst.db"
        let p = Process()
        p.executableURL = CLITests.binary
        p.arguments = ["pull", "--from", source.base, "--app-id", "a", "--master-key", "m", "--sqlite", dst, "--page-size", "50"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Until part of Comment (the first class) is stored.
        let deadline = Date().addingTimeInterval(60)
        var stored = 0
        while Date() < deadline && stored < 1000 {
            usleep(50_000)
            let r = try cql(["run", "--sqlite", dst, "select count(*) from Comment"])
            stored = Int(r.stdout.split(separator: ":").last?.dropLast(2) ?? "") ?? 0
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        XCTAssertGreaterThanOrEqual(stored, 1000)
        XCTAssertLessThan(stored, 20000, "the pull ended before it was stopped")
        let resumed = try cql(["pull", "--from", source.base, "--app-id", "a", "--master-key", "m", "--sqlite", dst, "--page-size", "500"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stdout.contains("Comment: 20,000 objects, 0 deleted"), resumed.stdout)
        XCTAssertTrue(resumed.stdout.contains("(full)"), resumed.stdout)
        XCTAssertEqual(try cql(["dump", "--sqlite", dir + "/src.db", dir + "/dump-src"]).status, 0)
        XCTAssertEqual(try cql(["dump", "--sqlite", dst, dir + "/dump-dst"]).status, 0)
        // (The users were not loaded first: their hashes stay out.)
        var src = try contents(dir + "/dump-src")
        src["_User.0.jsonl"] = src["_User.0.jsonl"]?.map { line in
            line.replacingOccurrences(of: #","password":"[^"]*""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #","salt":"[^"]*""#, with: "", options: .regularExpression)
        }
        XCTAssertEqual(try contents(dir + "/dump-dst"), src)
    }

    /// Requests are signed, never carry the key; a wrong key is refused.
    func testWrongMasterKeyIsRefused() throws {
        let dir = try Migration.directory("pull-key")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try ServeChild(["--sqlite", dir + "/src.db"], directory: dir)
        defer { source.stop() }
        let r = try cql(["pull", "--from", source.base, "--app-id", "a", "--master-key", "wrong", "--sqlite", dir + "/dst.db"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("HTTP 401"), r.stderr)
    }
}
