import CorpusSupport
import Foundation
import XCTest

/// `--indexes-from`: the indexes a MongoDB dump (LeanCloud's backup export)
/// lists per class, made by `load`, `index` and `pull` on each class alone,
/// with what is left out said on standard error (the migration article,
/// "Indexes").
final class ExportedIndexesTests: XCTestCase {
    func cql(_ arguments: [String]) throws -> CLITests.Run { try CLITests.cql(arguments) }

    /// A dump folder as mongodump writes it: extended JSON v2 (GameScore),
    /// the older form with `ns` (Comment), and a class the export lacks.
    static func writeDump(_ dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let gameScore = #"""
            {"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"},
            {"v":{"$numberInt":"2"},"key":{"score":{"$numberInt":"-1"},"playerName":{"$numberInt":"1"}},"name":"score_-1_playerName_1"},
            {"v":{"$numberInt":"2"},"key":{"playerName":{"$numberInt":"1"}},"name":"playerName_1","unique":true},
            {"v":{"$numberInt":"2"},"key":{"location":"2dsphere"},"name":"location_2dsphere"},
            {"v":{"$numberInt":"2"},"key":{"createdAt":{"$numberInt":"-1"}},"name":"createdAt_-1"}],
            "uuid":"5d2b0c1e9f8a4b7c8d6e5f4a3b2c1d0e","collectionName":"GameScore","type":"collection"}
            """#
        let comment = #"""
            {"options":{},"indexes":[{"v":1,"key":{"_id":1},"name":"_id_","ns":"app.Comment"},
            {"v":1,"key":{"url":1,"_created_at":-1},"name":"url_1__created_at_-1","ns":"app.Comment","background":true},
            {"v":1,"key":{"_p_author":1},"name":"_p_author_1","ns":"app.Comment"},
            {"v":1,"key":{"_rperm":1},"name":"_rperm_1","ns":"app.Comment"}]}
            """#
        let absent = #"{"indexes":[{"v":2,"key":{"level":1},"name":"level_1"}],"collectionName":"Level"}"#
        for (name, text) in [("GameScore", gameScore), ("Comment", comment), ("Level", absent)] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(dir)/\(name).metadata.json"))
        }
        try Data("not read".utf8).write(to: URL(fileURLWithPath: "\(dir)/GameScore.bson"))
    }

    static func writeExport(_ dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var scores: [String] = [], comments: [String] = []
        for i in 0..<300 {
            scores.append(#"{"objectId":"g\#(i)","score":\#(i % 50),"playerName":"p\#(i)","location":{"__type":"GeoPoint","latitude":1,"longitude":2}}"#)
            comments.append(#"{"objectId":"c\#(i)","url":"/p/\#(i % 7)/","author":{"__type":"Pointer","className":"_User","objectId":"u\#(i % 5)"}}"#)
        }
        try Migration.writePart(dir, className: "GameScore", scores)
        try Migration.writePart(dir, className: "Comment", comments)
    }

    func testLoadMakesTheIndexesOfADumpClassByClass() throws {
        let dir = try Migration.directory("indexes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.writeDump(dir + "/dump/app")
        try Self.writeExport(dir + "/export")
        let load = try cql(["load", "--sqlite", dir + "/app.db", "--indexes-from", dir + "/dump/app", dir + "/export"])
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(load.stdout, #"{"Comment":300,"GameScore":300}"# + "\n")
        let said = load.stderr.split(separator: "\n").map(String.init)
        for line in [
            "indexes: Comment: url, author",
            "indexes: GameScore: playerName, score",
            "indexes: GameScore: GameScore.metadata.json: indexes[0] (_id_): _id is objectId, the table's key already",
            "indexes: GameScore: GameScore.metadata.json: indexes[2] (playerName_1): unique in the source; indexed, not kept unique here (only _User's, _Role's and _File's own keys are)",
            "indexes: GameScore: GameScore.metadata.json: indexes[3] (location_2dsphere): a 2dsphere index on location is not made (no 2dsphere index here; near queries scan)",
            "indexes: Comment: Comment.metadata.json: indexes[2] (_p_author_1): _p_author is indexed as author",
            "indexes: Comment: Comment.metadata.json: indexes[3] (_rperm_1): _rperm is the ACL, which reads filter another way; not indexed",
            "indexes: Level: no such class in the database; its indexes (level) are not made",
        ] {
            XCTAssertTrue(said.contains(line), "\(line) in:\n\(load.stderr)")
        }
        // Each class has its own keys' indexes, and not the other's.
        func plan(_ query: String) throws -> String {
            let r = try cql(["run", "--sqlite", dir + "/app.db", "--explain", query])
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout + r.stderr
        }
        XCTAssertTrue(try plan("select * from GameScore where score = 7").contains("USING INDEX GameScore:score:"))
        XCTAssertTrue(try plan("select * from Comment where url = '/p/1/'").contains("USING INDEX Comment:url:"))
        XCTAssertFalse(try plan("select * from Comment where score = 7").contains("Comment:score:"))
        XCTAssertFalse(try plan("select * from GameScore where url = 'x'").contains("GameScore:url:"))
    }

    func testIndexFromADumpOnPostgreSQL() throws {
        let pg = try PostgreSQLServer()
        try pg.start()
        defer { pg.stop() }
        let dir = try Migration.directory("indexes-pg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.writeDump(dir + "/dump")
        try Self.writeExport(dir + "/export")
        XCTAssertEqual(try cql(["load", "--postgres", pg.url, dir + "/export"]).status, 0)
        let r = try cql(["index", "--postgres", pg.url, "--indexes-from", dir + "/dump"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, #"{"indexed":{"Comment":["url","author"],"GameScore":["playerName","score"]}}"# + "\n")
        // The indexes are there: a second run makes none again and says the same.
        let again = try cql(["index", "--postgres", pg.url, "--indexes-from", dir + "/dump/GameScore.metadata.json"])
        XCTAssertEqual(again.stdout, #"{"indexed":{"GameScore":["playerName","score"]}}"# + "\n", again.stderr)
        let listed = try cql(["run", "--postgres", pg.url, "--explain", "select * from GameScore where score = 7"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
    }

    func testABadIndexFileStopsTheLoadBeforeItStarts() throws {
        let dir = try Migration.directory("indexes-bad")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.writeExport(dir + "/export")
        try Data(#"{"GameScore":[{"name":"no key"}]}"#.utf8).write(to: URL(fileURLWithPath: dir + "/indexes.json"))
        let r = try cql(["load", "--sqlite", dir + "/app.db", "--indexes-from", dir + "/indexes.json", dir + "/export"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, #"error: --indexes-from: indexes.json: GameScore[0]: an index needs "key": {"<key>": 1, ...}"# + "\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app.db"), "the load ran")
        try Data("{".utf8).write(to: URL(fileURLWithPath: dir + "/broken.json"))
        let broken = try cql(["index", "--sqlite", dir + "/app.db", "--indexes-from", dir + "/broken.json"])
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.stderr.hasPrefix("error: --indexes-from: broken.json: "), broken.stderr)
        let none = try cql(["index", "--sqlite", dir + "/app.db", "--indexes-from", dir + "/export"])
        XCTAssertTrue(none.stderr.contains("holds no <Class>.metadata.json"), none.stderr)
        let both = try cql(["index", "--sqlite", dir + "/app.db", "--indexes-from", dir + "/indexes.json", "url"])
        XCTAssertEqual(both.status, 2, both.stderr)
    }
}
