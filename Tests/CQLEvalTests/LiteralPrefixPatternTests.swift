import CQLKit
import CorpusSupport
import EvalCorpusSupport
import XCTest

@testable import CQLEval

/// Regexes recognized as literal prefixes (``LiteralPrefixPattern``) must
/// give exactly PCRE2's answer: checked on strings (random ones over an
/// alphabet with non-ASCII, canonically equivalent spellings, NUL and
/// newlines), on whole values through plan nodes (arrays, missing keys,
/// null, typed values, numbers), and on every regex of the eval corpus over
/// the corpus data.
final class LiteralPrefixPatternTests: XCTestCase {
    func testRecognizedForms() {
        XCTAssertEqual(LiteralPrefixPattern.prefixes("^(al|ca)", options: ""), [Array("al".utf8), Array("ca".utf8)])
        XCTAssertEqual(LiteralPrefixPattern.prefixes("^(?:al|ca|)", options: ""), [Array("al".utf8), Array("ca".utf8), []])
        XCTAssertEqual(LiteralPrefixPattern.prefixes("^abc", options: ""), [Array("abc".utf8)])
        XCTAssertEqual(LiteralPrefixPattern.prefixes("^é K", options: "s"), [Array("é K".utf8)])
        XCTAssertEqual(LiteralPrefixPattern.prefixes("^", options: ""), [[]])
        XCTAssertEqual(LiteralPrefixPattern.prefixes("^()", options: ""), [[]])
    }

    func testEverythingElseIsLeftToPCRE2() {
        for (pattern, options) in [
            ("^al", "i"), ("^al", "m"), ("^al", "x"), ("^al", "d"), ("al", ""), ("^a.c", ""), (#"^a\.c"#, ""),
            ("^a+", ""), ("^ab?", ""), ("^a{2}", ""), ("^[ab]", ""), ("^(a|b)c", ""), ("^(a)(b)", ""), ("^a$", ""),
            ("^(?i)al", ""), ("^(?i:al)", ""), ("^(*UCP)a", ""), ("(?i)^al", ""), ("^a|^b", ""), ("^(a|(b))", ""),
            ("^(?#c)a", ""), ("^(a", ""), ("^a)", ""), ("^a]", ""), ("^a}", ""),
        ] {
            XCTAssertNil(LiteralPrefixPattern.prefixes(pattern, options: options), "\(pattern) /\(options)")
        }
    }

    func testPlannerTurnsLiteralPrefixRegexesIntoPrefixTests() throws {
        let plan = try QueryPlan(Binder.bind(CQLParser.parse("select * from T where name regexp '^(al|ca)' and b regexp '^a.'"), parameters: []))
        guard case .and(let nodes) = plan.condition, nodes.count == 2, case .prefix(_, let prefixes) = nodes[0],
            case .regex = nodes[1]
        else { return XCTFail("expected a prefix node and a regex node, got \(plan.condition)") }
        XCTAssertEqual(prefixes, [Array("al".utf8), Array("ca".utf8)])
        // A bad pattern is still an error, raised by the planner as before.
        XCTAssertNotNil(planError(Condition(.regex("s", pattern: .value(.string("^(a")), options: ""))))
    }

    // MARK: Differential: prefix test vs PCRE2

    /// Characters a pattern or subject is drawn from: ASCII, `é` precomposed
    /// and decomposed, the Kelvin sign and `K`, a 4-byte emoji, NUL, newline.
    static let alphabet: [String] = ["a", "l", "c", "K", "\u{212A}", "é", "e", "\u{301}", "🎉", "\u{0}", "\n", " ", "#", "ä"]

    private func word(_ g: inout SplitMix64, maxLength: Int) -> String {
        (0..<Int.random(in: 0...maxLength, using: &g)).map { _ in Self.alphabet.randomElement(using: &g)! }.joined()
    }

    func testRandomPatternsAgreeWithPCRE2OnRandomStrings() throws {
        var g = SplitMix64(seed: 12)
        let scratch = RegexScratch()
        var recognized = 0
        for round in 0..<400 {
            let alternatives = (0..<Int.random(in: 1...3, using: &g)).map { _ in word(&g, maxLength: 3) }
            let pattern: String
            switch round % 3 {
            case 0: pattern = "^" + alternatives[0]
            case 1: pattern = "^(" + alternatives.joined(separator: "|") + ")"
            default: pattern = "^(?:" + alternatives.joined(separator: "|") + ")"
            }
            let options = round % 7 == 0 ? "s" : ""
            let prefixes = try XCTUnwrap(LiteralPrefixPattern.prefixes(pattern, options: options), pattern)
            recognized += 1
            let engines = try RegexTestEngines.all.map { engine throws(QueryError) in try CompiledRegex(pattern: pattern, options: options, engine: engine) }
            var subjects = (0..<40).map { _ in word(&g, maxLength: 5) }
            // Subjects that start with each alternative, and cut short of it.
            for a in alternatives { subjects += [a, a + word(&g, maxLength: 2), String(a.unicodeScalars.dropLast())] }
            for s in subjects {
                let fast = prefixes.contains { s.utf8.starts(with: $0) }
                for engine in engines {
                    XCTAssertEqual(fast, try engine.firstMatch(in: s, scratch: scratch), "\(pattern.debugDescription) on \(s.debugDescription)")
                }
            }
        }
        XCTAssertEqual(recognized, 400)
    }

    /// Through plan nodes: the same values the regex node visits (strings,
    /// string elements of arrays), and none of the others.
    func testPrefixNodeAgreesWithRegexNodeOnEveryKindOfValue() throws {
        let values: [Value] = PredicateFastPathTests.stored + [
            .string("alice"), .string("carol"), .string("al"), .string("Alice"), .string("a"),
            .array([.string("bob"), .string("carl")]), .array([.array([.string("alice")])]), .array([.int(1), .null]),
            .object(["name": .string("alice")]), .typedObject(className: "C", fields: ["name": .string("alice")]),
        ]
        let context = EvalContext()
        for pattern in ["^(al|ca)", "^é", "^e\u{301}", "^", "^(?:|x)", "^K"] {
            let regex = try CompiledRegex(pattern: pattern, options: "")
            let prefixes = try XCTUnwrap(LiteralPrefixPattern.prefixes(pattern, options: ""))
            for pathText in ["name", "a.name"] {
                let path = Accessor(FieldPath(pathText.split(separator: ".").map(String.init)))
                let fast = Node.prefix(path, prefixes), slow = Node.regex(path, regex)
                for v in values {
                    let inner: [Value] = [.object(["name": v]), .object(["other": v]), .array([.object(["name": v]), .null]), v]
                    for root in inner.map({ pathText.contains(".") ? Value.object(["a": $0]) : $0 }) {
                        XCTAssertEqual(fast.matches(root, context), slow.matches(root, context), "\(pattern) \(pathText) on \(root)")
                    }
                }
            }
        }
        XCTAssertNil(context.failure)
    }

    /// Every regex in the eval corpus that is recognized gives PCRE2's answer
    /// on every string the corpus data holds.
    func testCorpusRegexesAgreeWithPCRE2OnCorpusStrings() throws {
        let subjects = Set(["", "al", "ca"]).union(try corpusDataStrings())
        let fixture = EvalCorpusFixture()
        var patterns: [(String, String)] = []
        func regexes(_ c: Condition?) {
            guard let c else { return }
            switch c.predicate {
            case .regex(_, .value(.string(let p)), let options): patterns.append((p, options))
            case .and(let items), .or(let items): items.forEach(regexes)
            case .not(let inner), .elementMatch(_, let inner): regexes(inner)
            default: break
            }
        }
        for c in try Corpus.cases(in: "eval") { regexes((try? fixture.parse(c))?.condition) }
        let scratch = RegexScratch()
        var compared = 0
        for (pattern, options) in patterns {
            guard let prefixes = LiteralPrefixPattern.prefixes(pattern, options: options) else { continue }
            let regex = try CompiledRegex(pattern: pattern, options: options)
            for s in subjects {
                XCTAssertEqual(prefixes.contains { s.utf8.starts(with: $0) }, try regex.firstMatch(in: s, scratch: scratch),
                               "\(pattern) on \(s.debugDescription)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 100, "the corpus should hold recognized regexes (\(patterns.count) regexes seen)")
    }
}
