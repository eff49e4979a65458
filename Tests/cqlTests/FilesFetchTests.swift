import CorpusSupport
import Foundation
import XCTest

/// `cql files fetch`: an export's `_File` bytes copied from a local file
/// host (LeanCloud's file domains' stand-in) into the files directory, then
/// served by `cql serve` with the host stopped; resumed after kill -9; on
/// SQLite and PostgreSQL.
final class FilesFetchTests: XCTestCase {
    /// The files of the host: a Chinese name, a few MB, no metaData, one
    /// whose bytes do not match its checksum, one missing, one the host
    /// answers 503 the first time.
    struct Fixture {
        let dir: String
        let host: FileHost
        let export: String
        /// objectId → the bytes it must end with (copied files only).
        let bytes: [String: Data]
        let oldURLs: [String: String]
    }

    func makeFixture(delay: Double = 0) throws -> Fixture {
        let dir = try Migration.directory("fetch")
        let hosted = dir + "/host", export = dir + "/export"
        for d in [hosted, export] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        let host = try FileHost(root: hosted, delay: delay)
        // 3 MB and a bit, no two 64 KB blocks alike.
        var big = Data()
        let block = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 977) })
        for i in 0..<48 { big.append(block); big.append(UInt8(i)) }
        big.append(Data("end".utf8))
        let report = Data("季度报告：一切正常。\n".utf8)
        let plain = Data("no metadata at all\n".utf8)
        let flaky = Data("asked twice\n".utf8)
        try report.write(to: URL(fileURLWithPath: hosted + "/报告 2024.txt"))
        try big.write(to: URL(fileURLWithPath: hosted + "/big.bin"))
        try plain.write(to: URL(fileURLWithPath: hosted + "/plain.txt"))
        try Data("these bytes are not what the checksum says".utf8).write(to: URL(fileURLWithPath: hosted + "/bad.txt"))
        try flaky.write(to: URL(fileURLWithPath: hosted + "/flaky.txt"))
        let b = host.base
        let urls = [
            "f1": b + "/报告 2024.txt",                      // stored as UTF-8, with a space
            "f2": b + "/big.bin",
            "f3": b + "/missing.png",
            "f4": b + "/bad.txt",
            "f5": b + "/plain.txt",
            "f6": b + "/flaky/flaky.txt",
        ]
        func file(_ id: String, name: String, meta: String) -> String {
            #"{"objectId":"\#(id)","name":"\#(name)","url":"\#(urls[id]!)","key":"lc-key/\#(id)","bucket":"lc-bucket","provider":"qiniu","mime_type":"application/octet-stream","metaData":\#(meta),"createdAt":"2024-01-0\#(id.dropFirst())T00:00:00.000Z","updatedAt":"2024-01-0\#(id.dropFirst())T00:00:00.000Z"}"#
        }
        try Migration.writePart(export, className: "_File", [
            file("f1", name: "报告 2024.txt", meta: #"{"size":\#(report.count),"_checksum":"\#(Migration.md5(report))","owner":"u1"}"#),
            file("f2", name: "big.bin", meta: #"{"size":\#(big.count),"_checksum":"\#(Migration.md5(big).uppercased())"}"#),
            file("f3", name: "missing.png", meta: #"{"size":10}"#),
            file("f4", name: "bad.txt", meta: #"{"_checksum":"0123456789abcdef0123456789abcdef"}"#),
            file("f5", name: "plain.txt", meta: "{}"),
            file("f6", name: "flaky.txt", meta: #"{"size":\#(flaky.count)}"#),
        ])
        // Other classes refer to the files: by id, by id with the old url
        // copied in, as a plain string (an avatar), nested in an array.
        try Migration.writePart(export, className: "Post", [
            #"{"objectId":"p1","title":"one","image":{"__type":"File","id":"f2"},"createdAt":"2024-02-01T00:00:00.000Z","updatedAt":"2024-02-01T00:00:00.000Z"}"#,
            #"{"objectId":"p2","title":"two","image":{"__type":"File","id":"f1","name":"报告 2024.txt","url":"\#(urls["f1"]!)"},"cover":"\#(urls["f2"]!)","gallery":["x","\#(urls["f5"]!)"],"createdAt":"2024-02-02T00:00:00.000Z","updatedAt":"2024-02-02T00:00:00.000Z"}"#,
            #"{"objectId":"p3","title":"three","cover":"\#(urls["f3"]!)","createdAt":"2024-02-03T00:00:00.000Z","updatedAt":"2024-02-03T00:00:00.000Z"}"#,
        ])
        return Fixture(dir: dir, host: host, export: export, bytes: ["f1": report, "f2": big, "f5": plain, "f6": flaky], oldURLs: urls)
    }

    /// The whole flow on one database (`target`: the `--sqlite FILE` or
    /// `--postgres URL` arguments), files in `files`.
    func runFlow(_ f: Fixture, target: [String], files: String, serve: [String]) throws {
        XCTAssertEqual(try cql(["load"] + target + [f.export]).status, 0)
        let first = try cql(["files", "fetch"] + target + ["--files", files, "--jobs", "3"])
        XCTAssertEqual(first.status, 1, first.stderr)
        let lines = first.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("failed f3 \(f.oldURLs["f3"]!): HTTP 404 Not Found"), first.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("failed f4 \(f.oldURLs["f4"]!): MD5 ") && $0.hasSuffix(", metaData._checksum says 0123456789abcdef0123456789abcdef") }, first.stdout)
        XCTAssertEqual(lines.last, "copied 4 files (3.0 MB), 1 without size or checksum to check, 0 already present, 2 failed", first.stdout)
        XCTAssertTrue(first.stderr.contains("2 files not copied"), first.stderr)
        // Every copied file is whole under its new key; nothing else is left.
        let names = try FileManager.default.contentsOfDirectory(atPath: files)
        XCTAssertEqual(names.count, 4, "\(names)")
        XCTAssertFalse(names.contains { $0.contains(".fetch-") })
        // Resumed: only what failed is tried again.
        let second = try cql(["files", "fetch"] + target + ["--files", files])
        XCTAssertEqual(second.status, 1)
        XCTAssertEqual(second.stdout.split(separator: "\n").last.map(String.init), "copied 0 files (0 B), 4 already present, 2 failed", second.stdout)
        // The strings that equal an old URL: reported, then rewritten.
        let found = try cql(["files", "fetch"] + target + ["--files", files, "--find-urls"])
        let urlLines = found.stdout.split(separator: "\n").filter { $0.hasPrefix("url ") }.map(String.init)
        XCTAssertEqual(urlLines.count, 2, found.stdout)
        XCTAssertTrue(urlLines.contains { $0.hasPrefix("url Post p2 cover: \(f.oldURLs["f2"]!) -> /files/") }, found.stdout)
        XCTAssertTrue(urlLines.contains { $0.hasPrefix("url Post p2 gallery.1: \(f.oldURLs["f5"]!) -> /files/") }, found.stdout)
        XCTAssertTrue(found.stdout.contains("found 2 url strings in 1 object (--rewrite-urls --public-url URL replaces them)"), found.stdout)
        XCTAssertEqual(try cql(["files", "fetch"] + target + ["--files", files, "--rewrite-urls"]).status, 2)

        let server = try ServeChild(serve + ["--files", files], directory: f.dir)
        defer { server.stop() }
        let rewrite = try cql(["files", "fetch"] + target + ["--files", files, "--rewrite-urls", "--public-url", server.base + "/"])
        XCTAssertTrue(rewrite.stdout.contains("rewrote 2 url strings in 1 object"), rewrite.stdout + rewrite.stderr)
        // Served with the file host gone: each file at its own URL.
        f.host.stop()
        for (id, bytes) in f.bytes {
            let (status, body) = try server.get("/1.1/classes/_File/\(id)")
            XCTAssertEqual(status, 200, body)
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as! [String: Any]
            let url = try XCTUnwrap(object["url"] as? String)
            XCTAssertTrue(url.hasPrefix(server.base + "/files/"), url)
            XCTAssertEqual(object["source_url"] as? String, f.oldURLs[id])
            XCTAssertEqual(object["source_key"] as? String, "lc-key/\(id)")
            let (code, got) = try Migration.curl([url])
            XCTAssertEqual(code, 200)
            XCTAssertEqual(got, bytes, id)
        }
        // A file not copied keeps its old url.
        let (_, missing) = try server.get("/1.1/classes/_File/f3")
        XCTAssertTrue(missing.contains(#""url":"\#(f.oldURLs["f3"]!)""#), missing)
        // File values inside objects say where the bytes are now, the copied
        // old url too; the rewritten strings point here.
        let (_, p2) = try server.get("/1.1/classes/Post/p2")
        let post = try JSONSerialization.jsonObject(with: Data(p2.utf8)) as! [String: Any]
        let image = try XCTUnwrap(post["image"] as? [String: Any])
        XCTAssertTrue((image["url"] as? String)?.hasPrefix(server.base + "/files/") == true, p2)
        let (imageStatus, imageBytes) = try Migration.curl([image["url"] as! String])
        XCTAssertEqual(imageStatus, 200)
        XCTAssertEqual(imageBytes, f.bytes["f1"])
        let cover = try XCTUnwrap(post["cover"] as? String)
        XCTAssertTrue(cover.hasPrefix(server.base + "/files/"), cover)
        XCTAssertEqual(try Migration.curl([cover]).1, f.bytes["f2"])
        XCTAssertEqual(((post["gallery"] as? [Any])?[0] as? String), "x")
        let (_, p1) = try server.get("/1.1/classes/Post/p1")
        XCTAssertTrue(p1.contains(#""url":"\#(server.base)/files/"#), p1)
        // Untouched: the object's own dates, and a string of a file not copied.
        XCTAssertTrue(p2.contains(#""updatedAt":"2024-02-02T00:00:00.000Z""#), p2)
        let (_, p3) = try server.get("/1.1/classes/Post/p3")
        XCTAssertTrue(p3.contains(f.oldURLs["f3"]!), p3)
    }

    func testFetchVerifyResumeAndServeOnSQLite() throws {
        let f = try makeFixture()
        defer { f.host.stop(); try? FileManager.default.removeItem(atPath: f.dir) }
        try runFlow(f, target: ["--sqlite", f.dir + "/app.db"], files: f.dir + "/app.db.files", serve: ["--sqlite", f.dir + "/app.db"])
    }

    func testFetchVerifyResumeAndServeOnPostgreSQL() throws {
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let f = try makeFixture()
        defer { f.host.stop(); try? FileManager.default.removeItem(atPath: f.dir) }
        try runFlow(f, target: ["--postgres", pg.url], files: f.dir + "/files", serve: ["--postgres", pg.url])
    }

    /// kill -9 in the middle of a slow download: no partial file is kept
    /// under its key; the next run copies it whole.
    func testKilledFetchResumes() throws {
        let f = try makeFixture(delay: 0.05)   // the big file: ~49 writes 50 ms apart
        defer { f.host.stop(); try? FileManager.default.removeItem(atPath: f.dir) }
        let db = f.dir + "/app.db", files = f.dir + "/app.db.files"
        XCTAssertEqual(try cql(["load", "--sqlite", db, f.export]).status, 0)
        let p = Process()
        p.executableURL = CLITests.binary
        p.arguments = ["files", "fetch", "--sqlite", db]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Until the big file is being written aside.
        let deadline = Date().addingTimeInterval(30)
        var aside: [String] = []
        while Date() < deadline {
            aside = ((try? FileManager.default.contentsOfDirectory(atPath: files)) ?? []).filter { $0.contains(".fetch-") }
            if let a = aside.first, (try? FileManager.default.attributesOfItem(atPath: files + "/" + a)[.size] as? Int) ?? 0 > 200_000 { break }
            usleep(20_000)
        }
        XCTAssertFalse(aside.isEmpty, "no download in progress")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        // The key the big file will have is already in its object; nothing is under it yet.
        let row = try cql(["run", "--sqlite", db, "select key, url from _File where objectId = 'f2'"]).stdout
        let key = try XCTUnwrap(row.range(of: #""key":"[0-9a-f]{24}\.bin""#, options: .regularExpression).map { String(row[$0].dropFirst(7).dropLast()) }, row)
        XCTAssertFalse(FileManager.default.fileExists(atPath: files + "/" + key))
        let again = try cql(["files", "fetch", "--sqlite", db])
        XCTAssertEqual(again.status, 1, again.stdout)
        XCTAssertTrue(again.stdout.contains(", 2 failed"), again.stdout)
        XCTAssertEqual(FileManager.default.contents(atPath: files + "/" + key), f.bytes["f2"])
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: files).contains { $0.contains(".fetch-") })
        XCTAssertTrue(try cql(["run", "--sqlite", db, "select url from _File where objectId = 'f2'"]).stdout.contains("/files/\(key)"))
    }
}

extension FilesFetchTests {
    func cql(_ arguments: [String]) throws -> CLITests.Run { try CLITests.cql(arguments) }
}
