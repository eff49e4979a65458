import CorpusSupport
import Foundation
import XCTest

/// `cql dump`: LeanCloud's export format out of SQLite and PostgreSQL, and
/// `cql load` of it giving back exactly the same objects (every value type,
/// relations' `_Join` tables, `_User`'s hashes), parts split by size.
final class DumpTests: XCTestCase {
    func cql(_ arguments: [String]) throws -> CLITests.Run { try CLITests.cql(arguments) }

    /// Objects holding every value type the REST API has, some in arrays and
    /// objects, strings that need escapes, numbers at the edges.
    static let export: [String: [String]] = [
        "Thing": [
            #"{"objectId":"a1","createdAt":"2024-03-01T08:00:00.000Z","updatedAt":"2024-03-02T08:00:00.123Z","ACL":{"*":{"read":true},"u1":{"write":true}},"nothing":null,"yes":true,"no":false,"int":42,"negative":-7,"big":9007199254740993,"double":1.5,"tiny":1e-300,"huge":1.7976931348623157e308,"text":"line\nbreak \"quoted\" \\ tab\t 中文 😀 \u0001","empty":"","list":[1,"two",3.5,null,[false],{"k":"v"}],"nested":{"deep":{"deeper":[{"d":{"__type":"Date","iso":"2020-02-29T12:00:00.000Z"}}]}},"born":{"__type":"Date","iso":"1969-12-31T23:59:59.999Z"},"owner":{"__type":"Pointer","className":"_User","objectId":"u1"},"loc":{"__type":"GeoPoint","latitude":39.9042,"longitude":116.4074},"blob":{"__type":"Bytes","base64":"AAEC/w=="},"doc":{"__type":"File","id":"f1"},"old":{"__type":"File","name":"a.txt","url":"https://lc.example.com/a.txt"},"likes":{"__type":"Relation","className":"_User"},"pointers":[{"__type":"Pointer","className":"Thing","objectId":"a2"}]}"#,
            #"{"objectId":"a2","createdAt":"2024-03-03T00:00:00.000Z","updatedAt":"2024-03-03T00:00:00.000Z","int":0,"double":-0.25,"text":"second","likes":{"__type":"Relation","className":"_User"}}"#,
            #"{"objectId":"a3","title":"no dates at all"}"#,
        ],
        "_User": [
            #"{"objectId":"u1","username":"alice","password":"LCHASH==","salt":"s4lt","email":"alice@example.com","emailVerified":false,"createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-02T00:00:00.000Z","ACL":{"*":{"read":true},"u1":{"write":true}}}"#,
            #"{"objectId":"u2","username":"bob","password":"pbkdf2_sha256$210000$abc$def","createdAt":"2024-01-03T00:00:00.000Z","updatedAt":"2024-01-03T00:00:00.000Z"}"#,
        ],
        "_File": [
            #"{"objectId":"f1","name":"报告.pdf","url":"/files/0123456789abcdef01234567.pdf","key":"0123456789abcdef01234567.pdf","source_url":"https://lc.example.com/r.pdf","source_key":"lc/r.pdf","mime_type":"application/pdf","metaData":{"size":10,"_checksum":"0123456789abcdef0123456789abcdef","owner":"u1"},"createdAt":"2024-01-05T00:00:00.000Z","updatedAt":"2024-01-05T00:00:00.000Z"}"#,
        ],
        "_Role": [
            #"{"objectId":"r1","name":"admin","users":{"__type":"Relation","className":"_User"},"roles":{"__type":"Relation","className":"_Role"},"ACL":{"*":{"read":true}},"createdAt":"2024-01-06T00:00:00.000Z","updatedAt":"2024-01-06T00:00:00.000Z"}"#,
        ],
        "_Join:likes:Thing": [#"{"owningId":"a1","relatedId":"u1"}"#, #"{"owningId":"a1","relatedId":"u2"}"#, #"{"owningId":"a2","relatedId":"u2"}"#],
        "_Join:users:_Role": [#"{"owningId":"r1","relatedId":"u1"}"#],
        // An empty class stays a class.
        "Empty": [],
    ]

    /// Many more objects, so parts split: Comment with 500 objects.
    static var comments: [String] {
        (0..<500).map { i in
            #"{"objectId":"c\#(String(format: "%04d", i))","body":"comment \#(i) \#(String(repeating: "x", count: i % 50))","n":\#(i),"at":{"__type":"Date","iso":"2024-05-01T00:00:\#(String(format: "%02d", i % 60)).000Z"},"createdAt":"2024-05-01T00:00:00.000Z","updatedAt":"2024-05-01T00:00:00.000Z"}"#
        }
    }

    func writeExport(_ dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (c, lines) in Self.export { try Migration.writePart(dir, className: c, lines) }
        try Migration.writePart(dir, className: "Comment", Self.comments)
    }

    func contents(_ dir: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            out[name] = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
        }
        return out
    }

    func testRoundTripOnSQLiteAndPostgreSQL() throws {
        let dir = try Migration.directory("dump")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeExport(dir + "/export")
        let a = dir + "/a.db"
        let loaded = try cql(["load", "--sqlite", a, dir + "/export"])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)

        // Out of SQLite, in parts of at most ~8 KB.
        let dumped = try cql(["dump", "--sqlite", a, "--part-size", "8000", dir + "/d1"])
        XCTAssertEqual(dumped.status, 0, dumped.stderr)
        // It prints what load printed.
        XCTAssertEqual(dumped.stdout, loaded.stdout)
        let d1 = try contents(dir + "/d1")
        let commentParts = d1.keys.filter { $0.hasPrefix("Comment.") }.sorted()
        XCTAssertGreaterThan(commentParts.count, 3, "\(d1.keys.sorted())")
        XCTAssertTrue(d1.keys.allSatisfy { $0.hasSuffix(".jsonl") }, "\(d1.keys.sorted())")
        for (name, text) in d1 {
            let className = String(name.prefix(upTo: name.range(of: ".", options: .backwards, range: name.startIndex..<name.index(name.endIndex, offsetBy: -6))!.lowerBound))
            XCTAssertTrue(text.hasPrefix("#filetype:JSON-streaming;version=1.0;class=\(className)\n"), name)
            XCTAssertLessThanOrEqual(text.utf8.count, 8000 + 300, name)
        }
        XCTAssertEqual(d1["Empty.0.jsonl"], "#filetype:JSON-streaming;version=1.0;class=Empty\n")
        XCTAssertNotNil(d1["_Join:likes:Thing.0.jsonl"])
        XCTAssertTrue(d1["_User.0.jsonl"]!.contains(#""password":"LCHASH==""#) && d1["_User.0.jsonl"]!.contains(#""salt":"s4lt""#))
        // The server's own tables stay out.
        XCTAssertFalse(d1.keys.contains { $0.hasPrefix("cql:") })
        // Into a dump's directory again: refused.
        XCTAssertEqual(try cql(["dump", "--sqlite", a, dir + "/d1"]).status, 1)

        // Loaded back, the same objects: dumped again, the same bytes.
        let b = dir + "/b.db"
        let reloaded = try cql(["load", "--sqlite", b, dir + "/d1"])
        XCTAssertEqual(reloaded.status, 0, reloaded.stderr)
        XCTAssertEqual(reloaded.stdout, loaded.stdout)
        XCTAssertEqual(try cql(["dump", "--sqlite", b, "--part-size", "8000", dir + "/d2"]).status, 0)
        XCTAssertEqual(try contents(dir + "/d2"), d1)

        // The same through PostgreSQL.
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let intoPG = try cql(["load", "--postgres", pg.url, dir + "/d1"])
        XCTAssertEqual(intoPG.status, 0, intoPG.stderr)
        let outOfPG = try cql(["dump", "--postgres", pg.url, "--part-size", "8000", dir + "/d3"])
        XCTAssertEqual(outOfPG.status, 0, outOfPG.stderr)
        XCTAssertEqual(outOfPG.stdout, loaded.stdout)
        XCTAssertEqual(try contents(dir + "/d3"), d1)

        // Typed values stay typed: the queries on them answer the same everywhere.
        let queries = [
            "select objectId from Thing where born < date('1970-01-01T00:00:00.000Z')",
            "select objectId from Thing where loc near geopoint(116.4, 39.9) limit 1",
            "select objectId from Thing where owner = pointer('_User', 'u1')",
            "select objectId from _User where related likes to pointer('Thing', 'a1') order by objectId",
            "select objectId from Thing where big = 9007199254740993",
            "select count(*) from Comment where at >= date('2024-05-01T00:00:30.000Z')",
            "select * from Thing order by objectId",
        ]
        for q in queries {
            let expected = try cql(["run", "--sqlite", a, q])
            XCTAssertEqual(expected.status, 0, "\(q): \(expected.stderr)")
            XCTAssertFalse(expected.stdout.isEmpty, q)
            XCTAssertEqual(try cql(["run", "--sqlite", b, q]).stdout, expected.stdout, q)
            XCTAssertEqual(try cql(["run", "--postgres", pg.url, q]).stdout, expected.stdout, q)
        }
    }

    /// What a server wrote (users signed up with this server's hashes,
    /// relations added through the API, an uploaded file) comes out and
    /// goes back in the same.
    func testDumpOfAServedDatabaseLoadsBack() throws {
        let dir = try Migration.directory("dump-served")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServeChild(["--sqlite", dir + "/app.db"], directory: dir)
        let client = ["-H", "X-LC-Id: a", "-H", "X-LC-Key: k", "-H", "Content-Type: application/json"]
        var ids: [String] = []
        for name in ["carol", "dave"] {
            let (s, body) = try Migration.curlText(["-X", "POST"] + client + ["-d", #"{"username":"\#(name)","password":"pw-\#(name)"}"#, server.base + "/1.1/users"])
            XCTAssertEqual(s, 201, body)
            ids.append(String(body.range(of: #""objectId":"[^"]+""#, options: .regularExpression).map { body[$0].dropFirst(12).dropLast() } ?? ""))
        }
        let (s, post) = try Migration.curlText(["-X", "POST"] + client + ["-d", #"{"title":"t","fans":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"\#(ids[0])"},{"__type":"Pointer","className":"_User","objectId":"\#(ids[1])"}]},"at":{"__type":"Date","iso":"2025-01-01T00:00:00.000Z"}}"#, server.base + "/1.1/classes/Post"])
        XCTAssertEqual(s, 201, post)
        server.stop()
        XCTAssertEqual(try cql(["dump", "--sqlite", dir + "/app.db", dir + "/out"]).status, 0)
        let out = try contents(dir + "/out")
        XCTAssertEqual(out["_Join:fans:Post.0.jsonl"]?.split(separator: "\n").count, 3)
        XCTAssertTrue(out["_User.0.jsonl"]?.contains(#""password":"pbkdf2"#) == true, out["_User.0.jsonl"] ?? "")
        XCTAssertEqual(try cql(["load", "--sqlite", dir + "/copy.db", dir + "/out"]).status, 0)
        XCTAssertEqual(try cql(["dump", "--sqlite", dir + "/copy.db", dir + "/out2"]).status, 0)
        XCTAssertEqual(try contents(dir + "/out2"), out)
        // The copy serves: carol logs in with her password.
        let copy = try ServeChild(["--sqlite", dir + "/copy.db"], directory: dir)
        defer { copy.stop() }
        let (login, answer) = try Migration.curlText(["-X", "POST"] + client + ["-d", #"{"username":"carol","password":"pw-carol"}"#, copy.base + "/1.1/login"])
        XCTAssertEqual(login, 200, answer)
    }
}
