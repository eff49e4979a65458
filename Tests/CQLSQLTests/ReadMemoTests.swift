import CQLEval
import CQLKit
@testable import CQLSQL
import Foundation
import XCTest

/// A query run again with its memo (``SQLRunner/ReadMemo``) on SQLite: the
/// same answer as without, as objects and as stored text, and SQL that
/// follows the class's indexed keys. (PostgreSQL's asynchronous reads:
/// `testAMemoAnswersAsWithoutAndFollowsThePreflight`.)
final class ReadMemoTests: XCTestCase {
    func testASQLiteMemoAnswersAsWithoutAndFollowsTheIndexedKeys() throws {
        let path = NSTemporaryDirectory() + "memo-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try SQLiteDatabase(path: path)
        try db.insert((0..<30).map { i in
            ["objectId": .string("o\(i)"), "url": .string("/p/\(i % 3)/"), "n": .int(Int64(i)), "tags": ["a", "中"]]
        }, into: "Comment")
        let queries = try [
            "select * from Comment where url = '/p/1/' and n > 3 order by -n limit 5",
            "select count(*) from Comment where url = '/p/2/'",
            "select n from Comment where url = '/p/0/' order by n",
        ].map { try Binder.bind(try CQLParser.parse($0), parameters: []) }
        let memos = queries.map { _ in SQLRunner.ReadMemo() }
        let plain = try queries.map { try SQLRunner.run($0, on: db) }
        func check(_ label: String) throws {
            for (i, q) in queries.enumerated() {
                let again = try SQLRunner.run(q, on: db, memo: memos[i])
                XCTAssertEqual(again.objects, plain[i].objects, "\(label) \(i)")
                XCTAssertEqual(again.count, plain[i].count, "\(label) \(i)")
                let stored = try SQLRunner.run(q, on: db, storedText: true, memo: memos[i])
                let objects = try stored.storedText.map { try $0.map { try DataFiles.object(json: $0) } } ?? stored.objects
                XCTAssertEqual(objects, plain[i].objects, "\(label) \(i): stored text")
                XCTAssertEqual(stored.count, plain[i].count, "\(label) \(i)")
            }
        }
        try check("before the index")
        XCTAssertNotNil(try SQLRunner.run(queries[0], on: db, storedText: true).storedText, "nothing reshapes a select *")
        XCTAssertNil(try SQLRunner.run(queries[2], on: db, storedText: true).storedText, "keys reshape")
        let before = try XCTUnwrap(memos[0].generatedSQL)
        _ = try db.addIndexes(keys: ["url"])
        try check("after the index")
        let after = try XCTUnwrap(memos[0].generatedSQL)
        XCTAssertNotEqual(before, after, "the SQL was not generated again for the indexed key")
    }
}
