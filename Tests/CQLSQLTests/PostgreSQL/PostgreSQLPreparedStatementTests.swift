import CQLEval
import CQLKit
@testable import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// Repeated statements run as named prepared statements of their connection
/// (`PreparedStatementNames`): prepared once, right after the tables they
/// read change, re-prepared after a failure, bounded in number.
extension PostgreSQLTests {
    /// The SQL of this connection's own prepared statements.
    private func preparedStatements(_ db: PostgreSQLDatabase) throws -> [String] {
        try db.strings(try db.execute(#"SELECT statement FROM pg_prepared_statements WHERE name LIKE 'cql\_%' ORDER BY name"#))
    }

    private func query(_ text: String, _ parameters: [Value] = []) throws -> Query {
        try Binder.bind(try CQLParser.parse(text), parameters: parameters)
    }

    func testARepeatedQueryIsPreparedOnceAndStaysRightWhenItsTableIsReplaced() throws {
        _ = try database()
        let db = try PostgreSQLDatabase(url: try XCTUnwrap(Self.server).url)
        var objects = StoredColumnTests.todos(120)
        try db.insert(objects, into: "Todo")
        var tally = Differential.Tally()
        for n in [3, 40, 77] {
            let q = try query("select * from Todo where n >= ? and url != '/post/3' order by -createdAt limit 7", [.int(Int64(n))])
            XCTAssertNil(Differential.compare(q, store: DocumentStore(["Todo": objects]), db: db, tally: &tally))
        }
        let afterThree = try preparedStatements(db)
        XCTAssertFalse(afterThree.isEmpty)
        XCTAssertTrue(afterThree.contains { $0.contains(#"FROM "Todo""#) }, "\(afterThree)")
        let q = try query("select * from Todo where n >= ? and url != '/post/3' order by -createdAt limit 7", [.int(90)])
        XCTAssertNil(Differential.compare(q, store: DocumentStore(["Todo": objects]), db: db, tally: &tally))
        XCTAssertEqual(try preparedStatements(db), afterThree, "the same query shape prepared again")

        // The table dropped and made again with other rows: the prepared
        // statements read the new table.
        try db.reset()
        objects = StoredColumnTests.todos(45).map { o in o.merging(["n": .int(1000 - (o["n"]?.intValue ?? 0))]) { $1 } }
        try db.insert(objects, into: "Todo")
        XCTAssertNil(Differential.compare(q, store: DocumentStore(["Todo": objects]), db: db, tally: &tally))
        XCTAssertEqual(tally.errors, 0)
        XCTAssertGreaterThan(tally.rows, 0)
    }

    /// postgres-nio keeps a failed preparation's error under its name: the
    /// statement must be prepared afresh once the table it names exists.
    func testAStatementThatFailedIsPreparedAgainOnceItsTableExists() throws {
        _ = try database()
        let db = try PostgreSQLDatabase(url: try XCTUnwrap(Self.server).url)
        let statement = SQLStatement(sql: #"SELECT t0."raw" AS "doc" FROM "Later" AS t0 WHERE t0."objectId" = $1"#, arguments: [.string("o1")])
        XCTAssertThrowsError(try db.documents(statement)) { error in
            XCTAssertTrue("\(error)".contains("Later"), "\(error)")
        }
        try db.insert(StoredColumnTests.todos(3), into: "Later")
        let docs = try db.documents(statement)
        XCTAssertEqual(docs.count, 1)
        XCTAssertTrue(docs.first?.contains(#""objectId":"o1""#) == true, "\(docs)")
    }

    /// Ever new SQL texts do not grow the connection's prepared statements
    /// past the bound; past it they run unnamed, with the same answers.
    func testPreparedStatementsPerConnectionAreBounded() throws {
        _ = try database()
        let db = try PostgreSQLDatabase(url: try XCTUnwrap(Self.server).url)
        let extra = 40
        for i in 0..<(PreparedStatementNames.capacity + extra) {
            let rows = try db.executePrepared("SELECT $1::bigint + \(i)", [.int(1)])
            XCTAssertEqual(rows.first?.makeRandomAccess()[data: 0].int, 1 + i)
        }
        XCTAssertEqual(try preparedStatements(db).count, PreparedStatementNames.capacity)
    }
}

private extension Value {
    var intValue: Int64? { if case .int(let i) = self { return i } else { return nil } }
}
