import CQLEval
import CQLKit
import CQLSQL
import Foundation
import GRDB
import XCTest

/// `cql run` copies each matching document to the writer's form as the
/// database hands it over (``SQLDatabaseWriter/forEachDocument(_:_:)``): a stored
/// text not in that form is written as the writer writes it, and a statement
/// that fails part way — a row the reader refuses, after rows already
/// copied — throws and leaves the output as it was.
final class StreamedRowsTests: XCTestCase {
    private func database(_ edit: [String: String]) throws -> (SQLiteDatabase, String) {
        let path = NSTemporaryDirectory() + "streamed-\(UUID().uuidString).db"
        let db = try SQLiteDatabase(path: path)
        try db.insert((1...5).map { ["objectId": .string("o\($0)"), "n": .int(Int64($0)), "tags": ["a", "中"]] }, into: "T")
        let raw = try DatabaseQueue(path: path)
        try raw.write { d in
            for (id, doc) in edit { try d.execute(sql: #"UPDATE "T" SET "doc" = ? WHERE "objectId" = ?"#, arguments: [doc, id]) }
        }
        return (db, path)
    }

    func testStoredTextOutOfTheWritersFormIsWrittenInIt() throws {
        let (db, path) = try database(["o2": #"{ "tags" : [ "a","\u4e2d" ], "objectId":"o2", "n":2.0 }"#])
        defer { try? FileManager.default.removeItem(atPath: path) }
        var out: [UInt8] = []
        _ = try SQLRunner.run(try Binder.bind(try CQLParser.parse("select * from T where n >= 2 and n <= 3"), parameters: []), on: db, writingTo: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), """
            {"n":2.0,"objectId":"o2","tags":["a","中"]}
            {"n":3,"objectId":"o3","tags":["a","中"]}

            """)
    }

    func testAFailurePartWayLeavesTheOutputAsItWas() throws {
        let (db, path) = try database(["o4": #"{"objectId":"o4","n":4,"tags":["#])
        defer { try? FileManager.default.removeItem(atPath: path) }
        var out = Array("before\n".utf8)
        // The rows before o4 are copied first; o4's text is not JSON.
        XCTAssertThrowsError(try SQLRunner.run(try Binder.bind(try CQLParser.parse("select * from T where objectId != 'x'"), parameters: []), on: db, writingTo: &out)) { error in
            XCTAssertEqual((error as? QueryError)?.kind, .data, "\(error)")
        }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "before\n")
    }
}
