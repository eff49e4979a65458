import ArgumentParser
import CorpusSupport
import XCTest

@testable import cql

/// `TranslateInvocation.read` (the start-up fast path of `cql translate`)
/// against argument-parser's reading of the same arguments: wherever the
/// fast reader gives an invocation, argument-parser accepts the arguments
/// and gives the same one; where it declines, `cql` falls back to
/// argument-parser, so declining is always safe.
final class TranslateInvocationTests: XCTestCase {
    /// argument-parser's invocation for `arguments`, or nil when it refuses
    /// them (a usage error, help, a bad value).
    func parsed(_ arguments: [String]) -> TranslateInvocation? {
        guard let command = try? Translate.parseAsRoot(arguments) as? Translate else { return nil }
        return command.invocation
    }

    func testTheUsualFormsAreReadAsArgumentParserReadsThem() {
        let usual: [[String]] = [
            ["select * from T"],
            ["-"],
            ["--lines", "queries.txt"],
            ["--lines", "-"],
            ["--to", "sql", "--dialect", "postgres", "select * from T where a > 1"],
            ["--dialect", "mongo", "--pretty", "--mongo-id", "select * from T"],
            ["--from", "usergrid", "--to", "where", "--class", "Dogs", "--limit", "20", "--cursor", "abc", "--literal", "name = 'fred*'"],
            ["--from", "nspredicate", "--class", "GameScore", "--args", "[\"Dan\", 18]", "--vars", "{}", "playerName = %@ AND playerAge > %d"],
            ["--params", "[1]", "--no-optimize", "select * from T where a = ?"],
            ["--to", "nspredicate", "--condition-only", "select * from T where a = 1"],
            ["select * from T", "--optimize", "--to", "cql"],
        ]
        for arguments in usual {
            let fast = TranslateInvocation.read(arguments)
            XCTAssertNotNil(fast, "\(arguments) should be read by the fast path")
            XCTAssertEqual(fast, parsed(arguments), "\(arguments)")
        }
        let declined: [[String]] = [
            [], ["--help"], ["-h"], ["--to=sql", "q"], ["--", "q"], ["--to", "nope", "q"], ["--to", "sql", "--to", "where", "q"],
            ["q", "r"], ["--lines", "f", "q"], ["--to", "sql", "--dialect", "mongo", "q"], ["--condition-only", "q"],
            ["--limit", "-3", "q"], ["--limit", "x", "q"], ["--optimize", "--no-optimize", "q"], ["--bogus", "q"], ["--class"],
            ["--pretty", "--pretty", "q"], ["-x", "q"],
        ]
        for arguments in declined {
            XCTAssertNil(TranslateInvocation.read(arguments), "\(arguments) should be left to argument-parser")
        }
    }

    func testRandomArgumentListsAgreeWithArgumentParser() {
        let options = ["--to", "--dialect", "--from", "--params", "--args", "--vars", "--class", "--limit", "--cursor", "--lines",
                       "--literal", "--condition-only", "--pretty", "--mongo-id", "--optimize", "--no-optimize",
                       "--help", "-h", "--version", "--bogus", "--to=sql", "--", "-x", "--Pretty", "--lines="]
        let values = ["sql", "where", "cql", "usergrid", "nspredicate", "rest", "leancloud", "parse", "mongo", "sqlite",
                      "postgres", "SQL", "nope", "5", "0", "+7", "-3", "1000", "99999999999999999999", "[1,2]", "{}", "-",
                      "select * from T", "q.txt", "", " ", "GameScore", "name = 'x'"]
        var rng = SplitMix64(seed: 0x7A5)
        var read = 0
        for _ in 0..<4_000 {
            let count = Int(rng.next() % 7)
            let arguments = (0..<count).map { _ in
                rng.next() % 2 == 0 ? options[Int(rng.next() % UInt64(options.count))] : values[Int(rng.next() % UInt64(values.count))]
            }
            guard let fast = TranslateInvocation.read(arguments) else { continue }
            read += 1
            XCTAssertEqual(fast, parsed(arguments), "\(arguments)")
        }
        XCTAssertGreaterThan(read, 100, "the random lists should often be in the fast path's form")
    }
}
