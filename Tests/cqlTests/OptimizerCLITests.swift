import Foundation
import XCTest

/// The optimizer in the `cql` command: on by default in translate, eval and
/// explain; `--no-optimize` turns it off.
extension CLITests {
    private var redundant: String { "select * from T where (a = 1 or a = 2) and not (b = 3) and a != 5" }

    func testOptimizerTranslateOptimizesUnlessTold() throws {
        let on = try cql(["translate", redundant])
        XCTAssertEqual(on.status, 0, on.stderr)
        XCTAssertEqual(on.stdout, #"{"className":"T","where":{"a":{"$in":[1,2],"$ne":5},"b":{"$ne":3}}}"# + "\n")
        let off = try cql(["translate", "--no-optimize", redundant])
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertEqual(off.stdout, #"{"className":"T","where":{"$or":[{"a":1},{"a":2}],"a":{"$ne":5},"b":{"$ne":3}}}"# + "\n")
        let text = try cql(["translate", "--to", "cql", redundant])
        XCTAssertEqual(text.stdout, "select * from T where a in (1, 2) and b != 3 and a != 5\n")
        let same = try cql(["translate", "--to", "cql", "--no-optimize", redundant])
        XCTAssertEqual(same.stdout, "select * from T where (a = 1 or a = 2) and not (b = 3) and a != 5\n")
    }

    func testOptimizerEvalGivesTheSameAnswerEitherWay() throws {
        let q = "select * from GameScore where (score > 100 and score >= 1000) or (score > 100 and playerName like 'D%') order by -score"
        let on = try cql(["eval", "--data", "Corpus/data", q])
        let off = try cql(["eval", "--data", "Corpus/data", "--no-optimize", q])
        XCTAssertEqual(on.status, 0, on.stderr)
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertFalse(on.stdout.isEmpty)
        XCTAssertEqual(on.stdout, off.stdout)
    }

    func testOptimizerExplainShowsEachRuleAndTheOutputs() throws {
        let r = try cql(["explain", redundant])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("""
            optimizer:
              PushNegation
                before: select * from T where (a = 1 or a = 2) and not (b = 3) and a != 5
                after:  select * from T where (a = 1 or a = 2) and b != 3 and a != 5
              EqualitiesToIn
                before: select * from T where (a = 1 or a = 2) and b != 3 and a != 5
                after:  select * from T where a in (1, 2) and b != 3 and a != 5
            """), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"  where (leancloud): {"className":"T","where":{"a":{"$in":[1,2],"$ne":5},"b":{"$ne":3}}}"#), r.stdout)
        let off = try cql(["explain", "--no-optimize", redundant])
        XCTAssertTrue(off.stdout.contains("optimizer: off (--no-optimize)"), off.stdout)
    }

    func testOptimizerUsergridCannotSayACaseSensitivePrefix() throws {
        let r = try cql(["translate", "--to", "usergrid", "select * from T where name like 'ab%'"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("a case-sensitive prefix match"), r.stderr)
    }
}
