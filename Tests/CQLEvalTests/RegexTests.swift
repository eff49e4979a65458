import CQLKit
import XCTest

@testable import CQLEval

final class RegexTests: XCTestCase {
    private func rx(_ pattern: String, _ options: String = "") -> Condition {
        Condition(.regex("s", pattern: .value(.string(pattern)), options: options), range: SourceRange(0, 5))
    }

    private let d: [[String: Value]] = {
        ["Dennis", "dennis catty", "line1\nline2", "ÉCOLE", "straße", "a.b", "x\\Ey", "123", "ǅ"].enumerated().map {
            ["objectId": .string("\($0.offset)"), "s": .string($0.element)]
        }
    }()

    func testUnanchoredSearch() {
        XCTAssertEqual(ids(rx("ennis"), d), ["0", "1"])
        XCTAssertEqual(ids(rx("^d"), d), ["1"])
    }

    func testOptions() {
        XCTAssertEqual(ids(rx("^dennis", "i"), d), ["0", "1"])
        XCTAssertEqual(ids(rx("^line2$", "m"), d), ["2"])
        XCTAssertEqual(ids(rx("^line2$"), d), [])
        XCTAssertEqual(ids(rx("line1.line2", "s"), d), ["2"])
        XCTAssertEqual(ids(rx("line1.line2"), d), [])
        XCTAssertEqual(ids(rx("d e n n i s  # comment", "ix"), d), ["0", "1"])
    }

    func testUnicodeCaseFoldingAndClasses() {
        XCTAssertEqual(ids(rx("^école$", "i"), d), ["3"])
        XCTAssertEqual(ids(rx("STRASSE", "i"), d), [])  // simple folding: ß is not ss
        // UTF mode without UCP (MongoDB): \w is ASCII; (*UCP) or \p{..} reach the rest.
        XCTAssertEqual(ids(rx(#"^\w+$"#), d), ["0", "7"])
        XCTAssertEqual(ids(rx(#"(*UCP)^\w+$"#), d), ["0", "3", "4", "7", "8"])
        XCTAssertEqual(ids(rx(#"^[\p{L}\p{N}]+$"#), d), ["0", "3", "4", "7", "8"])
        XCTAssertEqual(ids(rx(#"^[[:alpha:]]+$"#), d), ["0"])
        XCTAssertEqual(ids(rx("ǆ", "i"), d), ["8"])  // title-case digraph folds
    }

    func testQuoting() {
        XCTAssertEqual(ids(rx(#"\Qa.b\E"#), d), ["5"])
        XCTAssertEqual(ids(rx(#"^\Qa\E.\Qb\E$"#), d), ["5"])
        XCTAssertEqual(ids(rx(#"\Qx\E\\E\Qy\E"#), d), ["6"])
    }

    func testEmptyAndNULPatterns() {
        let d = docs(#"{"objectId":"nul","s":"a\u0000b"}"#, #"{"objectId":"ab","s":"ab"}"#, #"{"objectId":"n","s":5}"#)
        XCTAssertEqual(ids(rx(""), d), ["nul", "ab"])
        XCTAssertEqual(ids(rx("a\u{0}b"), d), ["nul"])
    }

    func testBadOptionIsAPatternError() {
        let e = planError(rx("a", "g"))
        XCTAssertEqual(e?.kind, .pattern)
        XCTAssertEqual(e?.message, "unknown regular expression option 'g'; only i, m, x and s are allowed")
        XCTAssertEqual(e?.range, SourceRange(0, 5))
    }

    func testBadPatternIsAPatternErrorWithOffset() {
        let e = planError(rx("a(b"))
        XCTAssertEqual(e?.kind, .pattern)
        XCTAssertEqual(e?.message, "invalid regular expression 'a(b' at offset 3: missing closing parenthesis")
        XCTAssertEqual(planError(rx("[z-a]"))?.kind, .pattern)
        XCTAssertEqual(planError(rx(#"\p{Nope}"#))?.kind, .pattern)
    }

    func testNonStringPatternIsInvalid() {
        XCTAssertEqual(planError(Condition(.regex("s", pattern: .value(1), options: "")))?.kind, .invalidValue)
    }

    func testCatastrophicPatternHitsTheMatchLimit() throws {
        let plan = try QueryPlan(T.query(rx("(a+)+$")))
        let subject = String(repeating: "a", count: 40) + "b"
        let start = ContinuousClock.now
        XCTAssertThrowsError(try plan.matches(["s": .string(subject)])) { error in
            let e = error as? QueryError
            XCTAssertEqual(e?.kind, .pattern)
            XCTAssertTrue(e?.message.hasPrefix("regex too expensive: ") ?? false, "\(String(describing: e))")
        }
        // Bounded, not a hang (generous bound; tests never assert fine timings).
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(30))
        // The same plan still answers ordinary subjects.
        XCTAssertTrue(try plan.matches(["s": "aaa"]))
    }

    #if PCRE2
    func testJITIsUsedWhenAvailable() throws {
        let r = try CompiledRegex(pattern: "a+b", options: "i")
        XCTAssertEqual((r.program as? PCRE2Program)?.isJITCompiled, PCRE2Program.jitAvailable)
        XCTAssertTrue(try r.firstMatch(in: "xxAAB", scratch: RegexScratch()))
    }

    func testInterpreterLimits() throws {
        let scratch = RegexScratch()
        let catastrophic = try CompiledRegex(pattern: "(a+)+$", options: "", engine: .pcre2(useJIT: false))
        XCTAssertEqual((catastrophic.program as? PCRE2Program)?.isJITCompiled, false)
        XCTAssertThrowsError(try catastrophic.firstMatch(in: String(repeating: "a", count: 40) + "b", scratch: scratch)) {
            XCTAssertEqual(($0 as? QueryError)?.message, "regex too expensive: '(a+)+$' exceeded its match limit")
        }
        // Deep backtracking (one frame per repetition) hits the depth or heap limit.
        let deep = try CompiledRegex(pattern: "(?:(a)|b)*[0-9]", options: "", engine: .pcre2(useJIT: false))
        XCTAssertThrowsError(try deep.firstMatch(in: String(repeating: "a", count: 200_000), scratch: scratch)) {
            let message = ($0 as? QueryError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("regex too expensive: "), message)
        }
        XCTAssertTrue(try deep.firstMatch(in: "aba7", scratch: scratch))
        XCTAssertFalse(try deep.firstMatch(in: "", scratch: scratch))
    }
    #endif

    func testRegexErrorSurfacesFromRun() throws {
        let store = DocumentStore(["T": [["s": .string(String(repeating: "a", count: 40) + "b")]]])
        let plan = try QueryPlan(T.query(rx("(a+)+$")), store: store)
        XCTAssertThrowsError(try plan.run()) { XCTAssertEqual(($0 as? QueryError)?.kind, .pattern) }
    }

    func testPlanIsUsableFromManyThreads() throws {
        let plan = try QueryPlan(T.query(rx("^d.*s", "i")))
        let hits = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let s: Value = i.isMultiple(of: 2) ? "Dennis" : "Bob"
            if (try? plan.matches(["s": s])) == true { hits.increment() }
        }
        XCTAssertEqual(hits.value, 32)
    }

    // MARK: LIKE

    private func like(_ p: String) -> Condition { Condition(.like("s", pattern: .value(.string(p)))) }

    func testLike() {
        let d = ["dennis", "Dennis", "den", "a.b", "axb", "line\nend", "abc\n", "50%", "[x]", "b"].enumerated().map {
            ["objectId": Value.string("\($0.offset)"), "s": Value.string($0.element)]
        }
        XCTAssertEqual(ids(like("dennis%"), d), ["0"])  // case-sensitive
        XCTAssertEqual(ids(like("den"), d), ["2"])  // anchored
        XCTAssertEqual(ids(like("d_n"), d), ["2"])
        XCTAssertEqual(ids(like("a.b"), d), ["3"])  // '.' is literal
        XCTAssertEqual(ids(like("line%end"), d), ["5"])  // % spans newlines
        XCTAssertEqual(ids(like("abc"), d), [])  // no match before a final newline
        XCTAssertEqual(ids(like("abc_"), d), ["6"])
        XCTAssertEqual(ids(like("50%"), d), ["7"])
        XCTAssertEqual(ids(like("[ab]%"), d), ["3", "4", "6", "9"])
        XCTAssertEqual(ids(like("[^ab]%"), d), ["0", "1", "2", "5", "7", "8"])
        XCTAssertEqual(ids(like("[x%"), d), ["8"])  // unclosed '[' is literal
        XCTAssertEqual(ids(like("[[]x]"), d), ["8"])
    }

    func testLikeRegexText() {
        XCTAssertEqual(LikePattern.regex("a.b%c_[a-z]"), #"^a\.b.*c.[a-z]\z"#)
        XCTAssertEqual(LikePattern.regex("(x)+[^]]"), #"^\(x\)\+[^\]]\z"#)
    }

    // MARK: Usergrid text matches

    private func text(_ m: TextMatch, _ s: String) -> Condition { Condition(.text("s", m, s)) }

    func testEqualsIgnoringCase() {
        let d = docs(#"{"objectId":"a","s":"Morgan"}"#, #"{"objectId":"b","s":"MORGAN"}"#,
                     #"{"objectId":"c","s":"Morgan\n"}"#, #"{"objectId":"d","s":"Morgana"}"#,
                     #"{"objectId":"k","s":"\u212a"}"#, #"{"objectId":"e","s":["x","morgan"]}"#)
        XCTAssertEqual(ids(text(.equalsIgnoringCase, "morgan"), d), ["a", "b", "e"])
        // KELVIN SIGN folds to k (simple case folding).
        XCTAssertEqual(ids(text(.equalsIgnoringCase, "k"), d), ["k"])
        XCTAssertEqual(ids(text(.equalsIgnoringCase, "a.b"), docs(#"{"objectId":"x","s":"axb"}"#)), [])
    }

    func testWildcard() {
        let d = docs(#"{"objectId":"a","s":"Morgan"}"#, #"{"objectId":"b","s":"Morgan Freeman"}"#,
                     #"{"objectId":"c","s":"Mo(r)gan"}"#, #"{"objectId":"d","s":"Pierpont Morgan"}"#)
        XCTAssertEqual(ids(text(.wildcard, "morg*"), d), ["a", "b"])
        XCTAssertEqual(ids(text(.wildcard, "*morgan"), d), ["a", "d"])
        XCTAssertEqual(ids(text(.wildcard, "mo(r)*"), d), ["c"])
    }

    func testWordAndWordPrefix() {
        let d = docs(#"{"objectId":"a","s":"A Blue-sky day"}"#, #"{"objectId":"b","s":"blueberry"}"#,
                     #"{"objectId":"c","s":"sky_blue2"}"#, #"{"objectId":"d","s":"ÜBER blue"}"#,
                     #"{"objectId":"e","s":"日本blue"}"#)
        XCTAssertEqual(ids(text(.word, "blue"), d), ["a", "d"])
        XCTAssertEqual(ids(text(.wordPrefix, "blu"), d), ["a", "b", "c", "d"])
        XCTAssertEqual(ids(text(.word, "über"), d), ["d"])
        XCTAssertEqual(ids(text(.word, "sky"), d), ["a", "c"])  // '_' separates words
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
