import Foundation
import XCTest

/// `translate --to rest`, `--from rest` and `fmt` on write statements.
extension CLITests {
    func testTranslateUpdateToREST() throws {
        let r = try cql(["translate", "--to", "rest",
                         "update Account set account=op('Decrement', {'amount': 50}) where objectId='558e20cbe4b060308e3eb36c' and amount>=100"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, #"{"body":{"account":{"__op":"Decrement","amount":50}},"method":"PUT","path":"/1.1/classes/Account/558e20cbe4b060308e3eb36c","where":{"amount":{"$gte":100}}}"# + "\n")
        // A write without --to prints its request too.
        let d = try cql(["translate", "delete from T where objectId = 'a'"])
        XCTAssertEqual(d.stdout, #"{"method":"DELETE","path":"/1.1/classes/T/a"}"# + "\n")
    }

    func testRESTRequestReadsBackAsCQL() throws {
        let put = #"{"body":{"account":{"__op":"Decrement","amount":50}},"method":"PUT","path":"/1.1/classes/Account/558e","where":{"amount":{"$gte":100}}}"#
        let r = try cql(["translate", "--from", "rest", "--to", "cql", put])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "update Account set account = op('Decrement', {'amount': 50}) where objectId = '558e' and amount >= 100\n")
        let f = try cql(["fmt", "INSERT INTO T(a,b) VALUES (1,'x'),(2,'y')"])
        XCTAssertEqual(f.stdout, "insert into T(a, b) values (1, 'x'), (2, 'y')\n")
    }

    func testWriteErrorsArePositioned() throws {
        let r = try cql(["translate", "--to", "rest", "update T set a = op('Add', {'objects': 1}) where objectId = 'x'"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, """
            error: <input>:1:40: op('Add') needs an array as 'objects', found 1
            update T set a = op('Add', {'objects': 1}) where objectId = 'x'
                                                   ^

            """)
        let q = try cql(["translate", "--to", "rest", "select * from T"])
        XCTAssertEqual(q.status, 1)
        XCTAssertTrue(q.stderr.contains("--to rest translates writes"), q.stderr)
    }
}
