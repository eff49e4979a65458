import CQLEval
import CQLKit
@testable import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// SQLite keeps the statements a connection repeats compiled
/// (`SQLiteDatabase.cachedStatement`): their answers stay the evaluator's
/// when the tables they name come and go, and the cache is bounded.
final class SQLiteCompiledStatementTests: XCTestCase {
    private func query(_ text: String, _ parameters: [Value] = []) throws -> Query {
        try Binder.bind(try CQLParser.parse(text), parameters: parameters)
    }

    /// A query on a class the database lacks runs against a temporary
    /// stand-in, which is dropped; once the real table arrives the kept
    /// statement reads it (SQLite recompiles on the schema change).
    func testAKeptStatementReadsATableMadeAfterIt() throws {
        let db = try SQLiteDatabase(path: nil)
        let q = try query("select * from Later where n >= ? order by -createdAt limit 5", [.int(10)])
        var tally = Differential.Tally()
        XCTAssertNil(Differential.compare(q, store: DocumentStore(), db: db, tally: &tally))
        let objects = StoredColumnTests.todos(60)
        try db.insert(objects, into: "Later")
        XCTAssertNil(Differential.compare(q, store: DocumentStore(["Later": objects]), db: db, tally: &tally))
        XCTAssertGreaterThan(tally.rows, 0)
        XCTAssertFalse(db.compiledSQL.isEmpty)
    }

    /// Ever new query shapes: the kept statements never pass the bound,
    /// and every answer is the evaluator's.
    func testKeptStatementsAreBounded() throws {
        let db = try SQLiteDatabase(path: nil)
        let objects = StoredColumnTests.todos(30).enumerated().map { i, o in o.merging(["k\(i % 7)": .int(Int64(i))]) { $1 } }
        try db.insert(objects, into: "Todo")
        let store = DocumentStore(["Todo": objects])
        var tally = Differential.Tally()
        for i in 0..<(SQLiteDatabase.compiledStatementCapacity + 30) {
            // A new key each time: new SQL text.
            let q = try query("select * from Todo where k\(i % 7) >= ? or x\(i) = 1 order by n limit 4", [.int(Int64(i % 20))])
            XCTAssertNil(Differential.compare(q, store: store, db: db, tally: &tally))
            XCTAssertLessThanOrEqual(db.compiledSQL.count, SQLiteDatabase.compiledStatementCapacity)
        }
        XCTAssertGreaterThan(tally.rows, 0)
    }
}
