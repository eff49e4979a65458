import Foundation
import XCTest

/// `cql eval --data` as a new user tries it: which class a file or directory
/// gives the query (issue 7).
extension CLITests {
    /// A temporary directory holding `files` (name → content), removed by the caller.
    func temporaryData(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, content) in files {
            try Data(content.utf8).write(to: dir.appendingPathComponent(name))
        }
        return dir
    }

    /// A single data file names its class, so a Usergrid query without
    /// `--class` reads it (it printed nothing and exited 0 when the query
    /// had an order and so was not streamed).
    func testSingleFileNamesTheClassOfAUsergridQuery() throws {
        let dir = try temporaryData(["one.ndjson": """
            {"objectId":"b","title":"Bravo"}
            {"objectId":"a","title":"Alpha"}
            {"objectId":"c","title":"Charlie"}

            """])
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("one.ndjson").path
        let expected = """
            {"objectId":"a","title":"Alpha"}
            {"objectId":"b","title":"Bravo"}
            {"objectId":"c","title":"Charlie"}

            """
        let usergrid = try cql(["eval", "--from", "usergrid", "--data", file, "order by title"])
        XCTAssertEqual(usergrid.status, 0, usergrid.stderr)
        XCTAssertEqual(usergrid.stdout, expected)
        XCTAssertEqual(usergrid.stderr, "")
        // The same with --class, and in CQL.
        let withClass = try cql(["eval", "--from", "usergrid", "--class", "one", "--data", file, "order by title"])
        XCTAssertEqual(withClass.stdout, expected, withClass.stderr)
        let cqlText = try cql(["eval", "--data", file, "select * from one order by title"])
        XCTAssertEqual(cqlText.stdout, expected, cqlText.stderr)
        // A bare where-JSON condition has no class either.
        let whereJSON = try cql(["eval", "--data", file, "--count", #"{"title":{"$gte":"B"}}"#])
        XCTAssertEqual(whereJSON.stdout, #"{"count":2}"# + "\n", whereJSON.stderr)
    }

    /// A directory without the queried class: exit 0 and no output, but a
    /// warning on stderr naming the class and the directory.
    func testDirectoryWithoutTheClassWarns() throws {
        let r = try cql(["eval", "--data", "Corpus/data", "select * from GameScores where score > 1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(
            r.stderr,
            "warning: the directory 'Corpus/data' has no data for the class 'GameScores' (no GameScores.ndjson or GameScores.json); the query matches nothing\n")
        // --count still prints its count.
        let c = try cql(["eval", "--data", "Corpus/data", "--count", "select * from Nope"])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(c.stdout, #"{"count":0}"# + "\n")
        XCTAssertTrue(c.stderr.hasPrefix("warning: the directory 'Corpus/data' has no data for the class 'Nope'"), c.stderr)
        // A Usergrid query without --class over a directory names no class.
        let u = try cql(["eval", "--from", "usergrid", "--data", "Corpus/data", "score > 1"])
        XCTAssertEqual(u.status, 0, u.stderr)
        XCTAssertEqual(u.stdout, "")
        XCTAssertTrue(u.stderr.hasPrefix("warning: the query names no class, so nothing in the directory 'Corpus/data' is read"), u.stderr)
        // A class that is there, even with an empty file, gives no warning.
        let dir = try temporaryData(["Empty.ndjson": ""])
        defer { try? FileManager.default.removeItem(at: dir) }
        let e = try cql(["eval", "--data", dir.path, "select * from Empty order by a"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertEqual(e.stderr, "")
    }
}
