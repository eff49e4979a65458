import CQLKit
import XCTest

@testable import CQLEval

/// The pure-Swift regex engine (what a build without trait `PCRE2` runs): its
/// named, positioned refusals, its budget, and the points of PCRE2's meaning
/// it must keep (code points, ASCII classes without UCP, LF as newline).
/// RegexEngineDifferentialTests holds it to PCRE2 on many more patterns.
final class SwiftRegexEngineTests: XCTestCase {
    private func swift(_ pattern: String, _ options: String = "", limits: EvaluationLimits = .default) throws(QueryError) -> CompiledRegex {
        try CompiledRegex(pattern: pattern, options: options, range: SourceRange(22, 30), engine: .swift, limits: limits)
    }

    private func matches(_ pattern: String, _ subject: String, _ options: String = "") throws -> Bool {
        try swift(pattern, options).firstMatch(in: subject, scratch: RegexScratch())
    }

    func testRefusalsNameTheConstructAndItsOffset() {
        let cases: [(String, String)] = [
            (#"(a)\1"#, #"a backreference (\1) in '(a)\1' at offset 3"#),
            (#"(?<n>a)\k<n>"#, #"a backreference (\k) in '(?<n>a)\k<n>' at offset 7"#),
            ("x(?>ab|a)", "an atomic group (?>...) in 'x(?>ab|a)' at offset 1"),
            ("ab*+", "a possessive quantifier (*+) in 'ab*+' at offset 2"),
            ("a(?R)?", "a recursion or subroutine call (?R...) in 'a(?R)?' at offset 1"),
            ("(?(1)a|b)", "a conditional group (?(...) in '(?(1)a|b)' at offset 0"),
            (#"\Ra"#, #"\R (any newline sequence) in '\Ra' at offset 0"#),
            (#"é\X"#, #"\X (an extended grapheme cluster) in 'é\X' at offset 2"#),
            (#"\p{Han}"#, #"the Unicode property \p{Han}: an unknown property or a script (it runs general categories, binary properties, L&, Xan and Any) in '\p{Han}' at offset 0"#),
            ("a(*SKIP)b", "the verb (*SKIP) in 'a(*SKIP)b' at offset 1"),
            ("(*CRLF)a$", "the start-of-pattern option (*CRLF) in '(*CRLF)a$' at offset 0"),
            ("(?U)a*", "option U (ungreedy) in '(?U)a*' at offset 2"),
        ]
        for (pattern, expected) in cases {
            do {
                _ = try swift(pattern)
                XCTFail("\(pattern): compiled")
            } catch {
                XCTAssertEqual(error.kind, .unsupported, pattern)
                XCTAssertEqual(error.range, SourceRange(22, 30), pattern)
                XCTAssertTrue(error.message.hasPrefix("the Swift regex engine does not run \(expected) "), "\(pattern): \(error.message)")
            }
        }
    }

    /// Refused at plan time, positioned at the predicate, from every front end.
    func testRefusalIsAPlanError() throws {
        var limits = EvaluationLimits()
        limits.regexEngine = .swift
        let query = try CQLParser.parse(#"select * from T where name regexp '(a)\1'"#)
        XCTAssertThrowsError(try QueryPlan(query, store: DocumentStore(), limits: limits)) {
            let e = $0 as? QueryError
            XCTAssertEqual(e?.kind, .unsupported)
            XCTAssertEqual(e?.lineAndColumn?.column, 23)
        }
    }

    func testInvalidPatternsAreErrorsAsWithPCRE2() {
        for pattern in ["a(", "a)", "[a", "a{2,1}", "*a", #"\"#, "(?<=a+)b", "[z-a]", #"\u0041"#, "[[:nope:]]"] {
            XCTAssertThrowsError(try swift(pattern), pattern) {
                XCTAssertEqual(($0 as? QueryError)?.kind, .pattern, pattern)
                XCTAssertTrue(($0 as? QueryError)?.message.hasPrefix("invalid regular expression '\(pattern)' at offset ") ?? false, "\($0)")
            }
        }
        // PCRE2's nesting limit, not a stack overflow.
        let nested = String(repeating: "(", count: 300) + "a" + String(repeating: ")", count: 300)
        XCTAssertThrowsError(try swift(nested)) { XCTAssertTrue("\($0)".contains("parentheses are too deeply nested")) }
    }

    func testBudgetEndsCatastrophicPatterns() throws {
        let start = ContinuousClock.now
        let r = try swift("(a+)+$")
        XCTAssertThrowsError(try r.firstMatch(in: String(repeating: "a", count: 40) + "b", scratch: RegexScratch())) {
            XCTAssertEqual(($0 as? QueryError)?.kind, .pattern)
            XCTAssertEqual(($0 as? QueryError)?.message, "regex too expensive: '(a+)+$' exceeded its match limit")
            XCTAssertEqual(($0 as? QueryError)?.range, SourceRange(22, 30))
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(30))
        XCTAssertTrue(try r.firstMatch(in: "aaa", scratch: RegexScratch()))
        // The match limit is the same option as PCRE2's.
        var limits = EvaluationLimits()
        limits.regexMatchLimit = 50
        XCTAssertThrowsError(try swift("(a+)+$", limits: limits).firstMatch(in: String(repeating: "a", count: 12) + "b", scratch: RegexScratch()))
        // The backtracking stack is bounded by the heap limit: "depth limit".
        var tight = EvaluationLimits()
        tight.regexHeapLimitKiB = 1
        tight.regexMatchLimit = 10_000_000
        XCTAssertThrowsError(try swift("(?:(a)|b)*[0-9]", limits: tight).firstMatch(in: String(repeating: "a", count: 100_000), scratch: RegexScratch())) {
            XCTAssertEqual(($0 as? QueryError)?.message, "regex too expensive: '(?:(a)|b)*[0-9]' exceeded its depth limit")
        }
        // A long subject runs on the heap's stack, not the machine's: no crash.
        XCTAssertTrue(try matches("^a.*b$", String(repeating: "a", count: 200_000) + "b"))
        XCTAssertTrue(try matches("^(?:a|c)*b$", String(repeating: "a", count: 50_000) + "b"))
    }

    func testPCRE2MeaningKept() throws {
        // Code points, not grapheme clusters: `.` is one scalar, e + U+0301 two.
        XCTAssertTrue(try matches("^e.$", "e\u{301}"))
        XCTAssertFalse(try matches("^é$", "e\u{301}"))
        XCTAssertTrue(try matches("^..$", "👍🏽"))
        // Without UCP, \w \d \s \b are ASCII; (*UCP) widens them; \p always works.
        XCTAssertFalse(try matches(#"^\w+$"#, "école"))
        XCTAssertTrue(try matches(#"(*UCP)^\w+$"#, "école"))
        XCTAssertTrue(try matches(#"^\p{L}+$"#, "école"))
        XCTAssertFalse(try matches(#"\d"#, "١"))
        XCTAssertTrue(try matches(#"(*UCP)\d"#, "١"))
        XCTAssertTrue(try matches(#"\bb"#, "éb"))  // é is not a word character without UCP
        // Option i folds Unicode simply: ß is not ss, ſ is s, ǅ is ǆ.
        XCTAssertFalse(try matches("STRASSE", "straße", "i"))
        XCTAssertTrue(try matches("^s$", "ſ", "i"))
        XCTAssertTrue(try matches("ǆ", "ǅ", "i"))
        // LF is the newline: $ before a final LF, ^ after an inner LF with m only.
        XCTAssertTrue(try matches("a$", "a\n"))
        XCTAssertFalse(try matches("a$", "a\r"))
        XCTAssertFalse(try matches("a\\z", "a\n"))
        XCTAssertTrue(try matches("^b", "a\nb", "m"))
        XCTAssertFalse(try matches("^$", "a\n", "m"))
        XCTAssertFalse(try matches("a.b", "a\nb"))
        XCTAssertTrue(try matches("a.b", "a\nb", "s"))
        // x, \Q...\E, lookbehind of fixed-length branches, lazy loops, empty loops.
        XCTAssertTrue(try matches("a b # c", "ab", "x"))
        XCTAssertTrue(try matches(#"^\Qa.b\E$"#, "a.b"))
        XCTAssertFalse(try matches(#"^\Qa.b\E$"#, "axb"))
        XCTAssertTrue(try matches("(?<=ab|c)d", "abd"))
        XCTAssertFalse(try matches("(?<![a-z])d", "xd"))
        XCTAssertTrue(try matches("^a+?b$", "aaab"))
        XCTAssertTrue(try matches("^(a*)*$", "aaa"))
        XCTAssertFalse(try matches("^(a*)*$", "aab"))
    }
}
