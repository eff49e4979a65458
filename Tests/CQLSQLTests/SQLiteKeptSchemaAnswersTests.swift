import CQLEval
import CQLKit
@testable import CQLSQL
import Foundation
import XCTest

/// A server's SQLite reader keeps the preflight's answers and the indexed
/// keys (``SQLiteDatabase/keepsSchemaAnswers``) only while no other
/// connection commits: an index made, an array arriving at an indexed key
/// and the re-check mark each show at once, inside a read snapshot and out,
/// exactly as a connection that asks every time sees them.
final class SQLiteKeptSchemaAnswersTests: XCTestCase {
    /// A file with `count` comments, and three connections to it: the
    /// writer, a reader that keeps its schema answers, one that asks.
    func connections(_ count: Int, pages: Int) throws -> (path: String, writer: SQLiteDatabase, reader: SQLiteDatabase, asking: SQLiteDatabase) {
        let path = NSTemporaryDirectory() + "kept-\(UUID().uuidString).db"
        let writer = try SQLiteDatabase(path: path, shared: true)
        try writer.insert((0..<count).map { i in ["objectId": .string("o\(i)"), "url": .string("/p/\(i % pages)/"), "n": .int(Int64(i))] },
                          into: "Comment")
        let reader = try SQLiteDatabase(path: path, shared: true)
        reader.keepsSchemaAnswers = true
        return (path, writer, reader, try SQLiteDatabase(path: path, shared: true))
    }

    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func testAReaderKeepsSchemaAnswersOnlyUntilAnotherConnectionCommits() throws {
        let (path, writer, reader, asking) = try connections(10, pages: 2)
        defer { remove(path) }
        let keys: Set<String> = ["url", "n"]

        func agree(_ label: String) throws -> Preflight {
            let asked = try asking.preflight("Comment", keys: keys, tables: ["Comment"])
            let askedKeys = try asking.indexedKeys("Comment")
            for round in 0..<2 {
                let outside = try reader.preflight("Comment", keys: keys, tables: ["Comment"])
                XCTAssertEqual(outside, asked, "\(label), round \(round), outside a snapshot")
                XCTAssertEqual(try reader.indexedKeys("Comment"), askedKeys, "\(label), round \(round)")
                let inside = try reader.inReadSnapshot { () throws(QueryError) in
                    (try reader.preflight("Comment", keys: keys, tables: ["Comment"]), try reader.indexedKeys("Comment"))
                }
                XCTAssertEqual(inside.0, asked, "\(label), round \(round), in a snapshot")
                XCTAssertEqual(inside.1, askedKeys, "\(label), round \(round), in a snapshot")
            }
            // What was asked is kept: one answer each.
            XCTAssertEqual(reader.keptAnswers.preflights.count, 1, label)
            XCTAssertEqual(reader.keptAnswers.indexedKeys.count, 1, label)
            return asked
        }

        var answer = try agree("no index")
        XCTAssertEqual(answer.arrayFreeKeys, [])
        _ = try writer.addIndexes(keys: ["url"])
        answer = try agree("url indexed")
        XCTAssertEqual(answer.arrayFreeKeys, ["url"], "the index proves url holds no array")
        XCTAssertEqual(try reader.indexedKeys("Comment"), ["url"])
        try writer.insert([["objectId": "a1", "url": ["/p/0/", "/p/1/"]]], into: "Comment")
        answer = try agree("an array at url")
        XCTAssertEqual(answer.arrayFreeKeys, [], "an array arrived at the indexed key")
        XCTAssertFalse(answer.requiresRecheck)
        try writer.insert([["objectId": "d1", "createdAt": ["2020"]]], into: "Comment")
        answer = try agree("an array at createdAt")
        XCTAssertTrue(answer.requiresRecheck, "the database is marked for a re-check")

        // A connection that does not keep them keeps nothing.
        _ = try asking.preflight("Comment", keys: keys, tables: ["Comment"])
        XCTAssertTrue(asking.keptAnswers.preflights.isEmpty)
    }

    /// A query run on a reader that keeps its schema answers answers as one
    /// run on a connection that asks, before and after the writer changes
    /// what the SQL depends on.
    func testQueriesOnAKeepingReaderAnswerAsOnAnAskingOne() throws {
        let (path, writer, reader, asking) = try connections(40, pages: 4)
        defer { remove(path) }
        let queries = try [
            "select * from Comment where url = '/p/1/' order by -n limit 5",
            "select count(*) from Comment where url in ('/p/2/', '/p/3/')",
            "select * from Comment where url = '/p/0/' and n > 10 order by n",
        ].map { try Binder.bind(try CQLParser.parse($0), parameters: []) }
        let memos = queries.map { _ in SQLRunner.ReadMemo() }
        func check(_ label: String) throws {
            for (i, q) in queries.enumerated() {
                let expected = try SQLRunner.run(q, on: asking)
                for _ in 0..<2 {
                    let got = try reader.inReadSnapshot { () throws(QueryError) in try SQLRunner.run(q, on: reader, memo: memos[i]) }
                    XCTAssertEqual(got.objects, expected.objects, "\(label) \(i)")
                    XCTAssertEqual(got.count, expected.count, "\(label) \(i)")
                }
            }
        }
        try check("plain")
        _ = try writer.addIndexes(keys: ["url"])
        try check("url indexed")
        try writer.insert([["objectId": "a1", "url": ["/p/1/", "/p/2/"], "n": 100]], into: "Comment")
        try check("an array at url")
    }
}
