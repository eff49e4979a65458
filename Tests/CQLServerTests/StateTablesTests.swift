import CQLKit
import CQLSQL
import CQLServer
import Foundation
import XCTest

/// The rows of the login throttle (`cql:loginFailures`) and of the upload
/// tokens (`cql:uploads`) do not outlive their meaning, on each database:
/// expired rows are deleted by the next failure or the next token.
final class StateTablesTests: XCTestCase {
    func testExpiredRowsArePruned() async throws {
        try await onEachDatabase(configure: { c in
            c.loginAttempts = 5
            c.loginWindow = 0.3
            c.loginLockout = 0.3
        }) { h, db in
            let storage: any SQLDatabaseWriter = db == .sqlite ? try SQLiteDatabase(path: h.directory + "/app.db")
                                                         : try PostgreSQLDatabase(url: try ServerHarness.postgresURL())
            func count(_ table: String) throws -> Int {
                try storage.integer(SQLStatement(sql: "SELECT count(*) FROM \"\(table)\"", arguments: []))
            }
            for name in ["ann", "bob"] {
                let made = try await h.call(.POST, "/1.1/users", body: ["username": .string(name), "password": "pw"])
                XCTAssertEqual(made.status, 201, made.text)
            }
            _ = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "wrong"])
            XCTAssertEqual(try count(LoginFailureRows.table), 1, "\(db)")
            try await Task.sleep(for: .seconds(0.5))
            _ = try await h.call(.POST, "/1.1/login", body: ["username": "bob", "password": "wrong"])
            XCTAssertEqual(try count(LoginFailureRows.table), 1, "\(db): ann's expired row is gone, bob's is there")
            let bob = try await h.call(.POST, "/1.1/login", body: ["username": "bob", "password": "pw"])
            XCTAssertEqual(bob.status, 200, bob.text)
            XCTAssertEqual(try count(LoginFailureRows.table), 0, "\(db): a success forgets the failures")

            // An expired token (written as the server writes one), then a new one: the expired row goes.
            try storage.inWriteTransaction { session throws(QueryError) in
                _ = try session.execute(try UploadTokenRows.insert(hash: "old", doc: #"{"fileId":"f","key":"k"}"#, expires: 1, dialect: session.dialect))
            }
            let made = try await h.call(.POST, "/1.1/fileTokens", body: ["name": "a.txt"], headers: ServerHarness.masterHeaders)
            XCTAssertEqual(made.status, 200, made.text)
            XCTAssertEqual(try count(UploadTokenRows.table), 1, "\(db): only the new token")
        }
    }
}
