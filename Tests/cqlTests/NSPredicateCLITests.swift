import Foundation
import XCTest

/// `--from nspredicate` / `--to nspredicate` through the `cql` binary.
extension CLITests {
    func testNSPredicateMustShowTranslate() throws {
        let r = try cql(["translate", "--from", "nspredicate", "--class", "GameScore", "--args", #"["Dan Stemkosk", 18]"#,
                                "--to", "where", "--dialect", "parse", "playerName = %@ AND playerAge > %d"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, #"{"className":"GameScore","where":{"playerAge":{"$gt":18},"playerName":"Dan Stemkosk"}}"# + "\n")
    }

    func testNSPredicateToNSPredicateFromCQL() throws {
        // As written (--no-optimize) every condition stays; optimized, the two
        // inequalities become one `not in` (InequalitiesToNotIn) and `like 'x%'`
        // the canonical prefix, written back as BEGINSWITH.
        let r = try cql(["translate", "--no-optimize", "--to", "nspredicate", "select * from T where a != 1 and a != 2 and not (b < 3)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "a != 1 AND a != 2 AND NOT b < 3\n")
        let o = try cql(["translate", "--to", "nspredicate", "select * from T where a != 1 and a != 2 and not (b < 3) and c like 'x%'"])
        XCTAssertEqual(o.status, 0, o.stderr)
        XCTAssertEqual(o.stdout, "NOT a IN {1, 2} AND NOT b < 3 AND c BEGINSWITH \"x\"\n")
    }

    func testNSPredicateConditionOnly() throws {
        let r = try cql(["translate", "--from", "usergrid", "--to", "nspredicate", "--condition-only", "name = 'fred' and age > 3"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "name ==[c] \"fred\" AND age > 3\n")
        let u = try cql(["translate", "--to", "where", "--condition-only", "select * from T"])
        XCTAssertEqual(u.status, 2)
    }

    func testNSPredicateToNSPredicateNamedError() throws {
        let r = try cql(["translate", "--to", "nspredicate", "select * from T where a = 1 order by b"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("'order by' cannot be expressed in NSPredicate"), r.stderr)
    }

    func testNSPredicateMissingArgumentPointsAtThePlaceholder() throws {
        let r = try cql(["translate", "--from", "nspredicate", "--class", "T", "--args", "[1]", "a == %@ AND b == %@"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, """
            error: <input>:1:18: no argument for %@: the format's placeholder 2 has no value (1 given)
            a == %@ AND b == %@
                             ^~

            """)
    }

    func testNSPredicateBadArgsJSON() throws {
        let r = try cql(["translate", "--from", "nspredicate", "--args", "{\"a\":1}", "a == %@"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("error: <args>:1:1: --args must be a JSON array"), r.stderr)
    }

    func testNSPredicateArgsNeedNSPredicate() throws {
        let r = try cql(["translate", "--args", "[1]", "select * from T"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--args and --vars bind NSPredicate placeholders"), r.stderr)
    }

    func testNSPredicateNeverDetected() throws {
        // Reads like Usergrid: without --from it is Usergrid (and fails there).
        let r = try cql(["translate", "name == 'x'"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("'==' is not a Usergrid operator"), r.stderr)
    }

    func testNSPredicateFmtVarsAndEval() throws {
        let f = try cql(["fmt", "--from", "nspredicate", "--vars", #"{"N":"x"}"#, "name =[c] $N && NOT (score < 3)"])
        XCTAssertEqual(f.status, 0, f.stderr)
        XCTAssertEqual(f.stdout, "name ==[c] \"x\" AND NOT score < 3\n")
        let e = try cql(["eval", "--from", "nspredicate", "--class", "GameScore", "--data", "Corpus/data", "name ==[cd] 'zoe'"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertEqual(e.stdout.split(separator: "\n").count, 1, e.stdout)
        XCTAssertTrue(e.stdout.contains(#""objectId":"gs27""#), e.stdout)
    }

    func testNSPredicateExplainShowsTokensAndOutputs() throws {
        let r = try cql(["explain", "--from", "nspredicate", "--class", "T", "a BEGINSWITH[c] 'x'"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("language: nspredicate"), r.stdout)
        XCTAssertTrue(r.stdout.contains("beginsWith"), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"  nspredicate: a BEGINSWITH[c] "x""#), r.stdout)
    }
}
