#if PCRE2
import CQLKit
import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval

/// The pure-Swift regex engine against PCRE2: every regex of the corpora (and
/// the regexes `like`, Usergrid text matches and NSPredicate build) and
/// seeded random patterns, over the corpus strings and seeded random subjects
/// (ASCII, Latin with combining marks, CJK, emoji, line terminators). Each
/// pair must give the same answer, or the Swift engine must refuse the
/// pattern by name at compile time; the counts and the refusals by construct
/// are printed (the report of issue 24).
final class RegexEngineDifferentialTests: XCTestCase {
    /// What one comparison run counted.
    struct Tally {
        var patterns = 0, bothRejected = 0, refused = 0
        var comparisons = 0, agreements = 0, budgetOutcomes = 0
        var refusals: [String: Int] = [:]
        var disagreements: [String] = []

        var summary: String {
            let rate = patterns == 0 ? 0 : Double(refused) * 100 / Double(patterns)
            let byConstruct = refusals.sorted { $0.value > $1.value }.map { "\($0.value) × \($0.key)" }.joined(separator: "; ")
            return "\(patterns) patterns (\(bothRejected) invalid to both, \(refused) refused by the Swift engine: "
                + String(format: "%.1f%%", rate) + "); \(comparisons) pattern × subject pairs compared, \(agreements) agree, "
                + "\(budgetOutcomes) ran out of budget on both, \(disagreements.count) disagree. Refusals: \(byConstruct.isEmpty ? "none" : byConstruct)"
        }
    }

    private static let flagOptions: [(String, RegexFlags)] = [
        ("", RegexFlags()), ("i", RegexFlags(caseless: true)), ("m", RegexFlags(multiline: true)),
        ("s", RegexFlags(dotAll: true)), ("x", RegexFlags(extended: true)), ("im", RegexFlags(caseless: true, multiline: true)),
    ]

    /// Compares the engines on `pattern` over `subjects`, into `tally`.
    static func compare(_ pattern: String, _ options: String, _ subjects: [String], into tally: inout Tally) {
        var flags = RegexFlags()
        for ch in options {
            switch ch {
            case "i": flags.caseless = true
            case "m": flags.multiline = true
            case "s": flags.dotAll = true
            case "x": flags.extended = true
            default: break
            }
        }
        tally.patterns += 1
        let label = "\(pattern.debugDescription) /\(options)"
        let pcre: (any RegexProgram)?
        do throws(RegexCompileFailure) { pcre = try RegexEngineKind.pcre2(useJIT: true).compile(pattern, flags: flags, limits: .default) } catch { pcre = nil }
        let swift: any RegexProgram
        do throws(RegexCompileFailure) {
            swift = try RegexEngineKind.swift.compile(pattern, flags: flags, limits: .default)
        } catch {
            switch (error, pcre) {
            case (.invalid, nil), (.refused, nil): tally.bothRejected += 1
            case (.refused(let construct, _), _?):
                tally.refused += 1
                tally.refusals[Self.family(construct), default: 0] += 1
            case (.invalid(let message, _), _?): tally.disagreements.append("\(label): PCRE2 compiles it, Swift: invalid (\(message))")
            }
            return
        }
        guard let pcre else {
            tally.disagreements.append("\(label): PCRE2 rejects it, the Swift engine compiles it")
            return
        }
        let scratch = RegexScratch()
        for s in subjects {
            tally.comparisons += 1
            let bytes = Array(s.utf8)
            let (a, b) = bytes.withUnsafeBufferPointer { (pcre.search($0, scratch), swift.search($0, scratch)) }
            if a == b {
                tally.agreements += 1
            } else if case .tooExpensive = a, case .tooExpensive = b {
                tally.budgetOutcomes += 1
            } else {
                tally.disagreements.append("\(label) on \(s.debugDescription): PCRE2 \(a), Swift \(b)")
            }
        }
    }

    /// A refusal's construct without its specifics (`a backreference (\1)` →
    /// `a backreference`), for counting by construct.
    static func family(_ construct: String) -> String {
        construct.split(separator: "(").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? construct
    }

    // MARK: Corpora

    /// Every regex the corpora's queries hold, with its options, plus the
    /// regexes `like` and Usergrid text matches compile to.
    static func corpusPatterns() throws -> [(String, String)] {
        var found: Set<[String]> = []
        func collect(_ c: Condition?) {
            guard let c else { return }
            switch c.predicate {
            case .regex(_, .value(.string(let p)), let options): found.insert([p, options])
            case .like(_, .value(.string(let p))): found.insert([LikePattern.regex(p), LikePattern.options])
            case .text(_, let match, let text):
                if let (p, o) = TextRegex.regex(match, text) { found.insert([p, o]) }
            case .and(let items), .or(let items): items.forEach(collect)
            case .not(let inner), .elementMatch(_, let inner): collect(inner)
            default: break
            }
        }
        let root = try XCTUnwrap(Corpus.root)
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        for file in files.sorted() {
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                var query = String(line)
                if query.hasPrefix("query:") { query = String(query.dropFirst(6)).trimmingCharacters(in: .whitespaces) }
                for language in [QueryLanguage.cql, .whereJSON, .usergrid, .nspredicate] {
                    if let q = try? language.parse(query, className: "T") {
                        collect(q.condition)
                        break
                    }
                }
            }
        }
        return found.sorted { $0.lexicographicallyPrecedes($1) }.map { ($0[0], $0[1]) }
    }

    /// The strings of the corpus data, and a few the regex corpus is about.
    static func corpusSubjects() throws -> [String] {
        let subjects: Set<String> = ["", "a", "\n", "line1\nline2\n", "ÉCOLE", "straße", "STRASSE", "ǅ", "Ǆ", "ſ", "K", "\u{212A}"]
        return subjects.union(try corpusDataStrings()).sorted()
    }

    func testCorpusRegexesAgree() throws {
        let patterns = try Self.corpusPatterns()
        let subjects = try Self.corpusSubjects() + (0..<100).map { var g = SplitMix64(seed: UInt64($0)); return RandomRegex.subject(&g) }
        var tally = Tally()
        for (p, o) in patterns { Self.compare(p, o, subjects, into: &tally) }
        print("regex differential, corpora: \(tally.summary)")
        XCTAssertGreaterThan(patterns.count, 50)
        XCTAssertEqual(tally.disagreements, [], tally.disagreements.prefix(20).joined(separator: "\n"))
        // Only the two cases Corpus/eval/regex.cases marks `refused-without-pcre2`.
        XCTAssertEqual(tally.refusals.keys.sorted(), ["a backreference", "the Unicode property \\p{Greek}: an unknown property or a script"])
    }

    func testRandomRegexesAgree() throws {
        var g = SplitMix64(seed: 24)
        var tally = Tally()
        for _ in 0..<3000 {
            let pattern = RandomRegex.pattern(&g)
            let (options, _) = Self.flagOptions[Int(g.next() % UInt64(Self.flagOptions.count))]
            let subjects = (0..<30).map { _ in RandomRegex.subject(&g) }
            Self.compare(pattern, options, subjects, into: &tally)
        }
        print("regex differential, random: \(tally.summary)")
        XCTAssertEqual(tally.disagreements, [], tally.disagreements.prefix(20).joined(separator: "\n"))
        XCTAssertLessThan(tally.refused * 4, tally.patterns, "most random patterns run on the Swift engine")
    }
}
#endif

/// Seeded random regexes and subjects for the engine differential tests.
enum RandomRegex {
    static let subjectPieces: [String] = [
        "a", "b", "c", "A", "B", "Z", "z", "0", "7", "_", "-", ".", " ", "\t", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}",
        "\u{85}", "\u{2028}", "\u{2029}", "é", "e\u{301}", "É", "ß", "ẞ", "ſ", "ǅ", "Σ", "σ", "ς", "K", "\u{212A}", "ı", "İ",
        "中", "文", "한", "ア", "😀", "👍🏽", "\u{A0}", "\u{3000}", "١", "Ⅳ", "x", "ab", "abc", "aaa",
    ]

    static func subject(_ g: inout SplitMix64) -> String {
        (0..<Int(g.next() % 9)).map { _ in subjectPieces[Int(g.next() % UInt64(subjectPieces.count))] }.joined()
    }

    static let atoms: [String] = [
        "a", "b", "c", "A", "é", "e\u{301}", "ß", "σ", "中", "😀", "\\n", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S",
        "\\h", "\\v", "\\N", "[a-c]", "[^a]", "[[:alpha:]]", "[[:^digit:]]", "[\\d\\s]", "[é-ü]", "\\p{L}", "\\p{Lu}", "\\P{N}",
        "\\p{Ll}", "\\x{4E2D}", "\\x41", "\\Qa.b\\E", "\\.", "[.]", "\\t", "[\\w-]", "\\p{Xan}", "[\\p{L}\\p{N}]", "k", "K", "s",
    ]
    static let anchors = ["^", "$", "\\A", "\\z", "\\Z", "\\b", "\\B"]
    static let quantifiers = ["*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?", "??", "{1,2}?"]
    /// Constructs the Swift engine refuses, so that refusals are exercised.
    static let refusedPieces = ["(a)\\1", "(?>ab|a)", "a*+", "\\R", "\\X", "(?R)?", "\\Ka", "(*SKIP)", "\\p{Han}"]

    static func pattern(_ g: inout SplitMix64, depth: Int = 0) -> String {
        var out = ""
        if depth == 0, g.next() % 10 == 0 { out += "(*UCP)" }
        for _ in 0..<(1 + Int(g.next() % 4)) {
            switch g.next() % 20 {
            case 0...9:
                out += atoms[Int(g.next() % UInt64(atoms.count))]
            case 10, 11:
                out += anchors[Int(g.next() % UInt64(anchors.count))]
                continue
            case 12...13 where depth < 2:
                let open = ["(", "(?:", "(?i:", "(?=", "(?!", "(?<name>"][Int(g.next() % 6)]
                out += open + pattern(&g, depth: depth + 1) + (g.next() % 3 == 0 ? "|" + pattern(&g, depth: depth + 1) : "") + ")"
                if open.hasPrefix("(?=") || open.hasPrefix("(?!") { continue }
            case 14 where depth < 2:
                // Lookbehind branches of a fixed length.
                out += (g.next() % 2 == 0 ? "(?<=" : "(?<!") + atoms[Int(g.next() % 20)] + "|" + atoms[Int(g.next() % 20)] + ")"
                continue
            case 15:
                out += ["(?i)", "(?m)", "(?s)", "(?-i)", "|"][Int(g.next() % 5)]
                continue
            case 16:
                if g.next() % 3 == 0 { out += refusedPieces[Int(g.next() % UInt64(refusedPieces.count))] }
                continue
            default:
                out += atoms[Int(g.next() % UInt64(atoms.count))]
            }
            if g.next() % 3 == 0 { out += quantifiers[Int(g.next() % UInt64(quantifiers.count))] }
        }
        return out
    }
}
