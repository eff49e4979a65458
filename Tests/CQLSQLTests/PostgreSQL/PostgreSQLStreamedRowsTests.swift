import CQLEval
import CQLKit
@testable import CQLSQL
import Foundation
import XCTest

/// `cql run` on PostgreSQL copies each match as its row arrives, through an
/// unnamed statement when the connection keeps nothing prepared (the
/// command's own connection) as through a named prepared one (a server's):
/// the same bytes, a stored text out of the writer's form written in it, and
/// a row the reader refuses failing the run with the output left as it was.
extension PostgreSQLTests {
    func testRowsStreamTheSameWithAndWithoutPreparedStatements() throws {
        _ = try database()
        let url = try XCTUnwrap(Self.server).url
        var outputs: [String] = []
        for prepared in [true, false] {
            let db = try PostgreSQLDatabase(url: url)
            db.keepsStatementsPrepared = prepared
            try db.reset()
            try db.insert((1...5).map { ["objectId": .string("o\($0)"), "n": .int(Int64($0)), "tags": ["a", "中"]] }, into: "T")
            try db.execute(#"UPDATE "T" SET "raw" = $1 WHERE "objectId" = 'o2'"#,
                           [.string(#"{ "tags" : [ "a","\u4e2d" ], "objectId":"o2", "n":2 }"#)])
            let query = try Binder.bind(try CQLParser.parse("select * from T where n >= 2 and n <= 3"), parameters: [])
            var out: [UInt8] = []
            _ = try SQLRunner.run(query, on: db, writingTo: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), """
                {"n":2,"objectId":"o2","tags":["a","中"]}
                {"n":3,"objectId":"o3","tags":["a","中"]}

                """, "prepared: \(prepared)")
            outputs.append(String(decoding: out, as: UTF8.self))

            // o4's text is not JSON: the rows before it were copied, then the
            // run fails and takes them back.
            try db.execute(#"UPDATE "T" SET "raw" = $1 WHERE "objectId" = 'o4'"#, [.string(#"{"objectId":"o4","n":4,"tags":["#)])
            var failed = Array("before\n".utf8)
            let all = try Binder.bind(try CQLParser.parse("select * from T where objectId != 'x'"), parameters: [])
            XCTAssertThrowsError(try SQLRunner.run(all, on: db, writingTo: &failed)) { error in
                XCTAssertEqual((error as? QueryError)?.kind, .data, "\(error)")
            }
            XCTAssertEqual(String(decoding: failed, as: UTF8.self), "before\n", "prepared: \(prepared)")
            // The connection answers on after the failed statement.
            out = []
            _ = try SQLRunner.run(query, on: db, writingTo: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), outputs.last, "prepared: \(prepared)")
            let kept = try db.strings(try db.execute(#"SELECT statement FROM pg_prepared_statements WHERE name LIKE 'cql\_%'"#))
            XCTAssertEqual(kept.isEmpty, !prepared, "\(kept)")
        }
        XCTAssertEqual(outputs[0], outputs[1])
    }
}
