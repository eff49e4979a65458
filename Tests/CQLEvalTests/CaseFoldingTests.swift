import CQLKit
import CorpusSupport
import XCTest

@testable import CQLEval

/// Usergrid's case-insensitive string ranges (UsergridQL.md, "Meaning") fold
/// with Unicode simple case folding in Swift, while its case-insensitive `=`
/// runs through PCRE2's caseless matching. They must agree: `k <= s and
/// k >= s` matches exactly what `k = s` matches.
final class CaseFoldingTests: XCTestCase {
    func testSimpleCaseFolding() {
        XCTAssertEqual(CaseFolding.folded("Straße"), "straße")  // no full folding to "ss"
        XCTAssertEqual(CaseFolding.folded("ẞ"), "ß")
        XCTAssertEqual(CaseFolding.folded("ΣΊΣΥΦΟΣ ς"), "σίσυφοσ σ")
        XCTAssertEqual(CaseFolding.folded("\u{212A}\u{2126}\u{017F}\u{00B5}"), "kωsμ")  // Kelvin, ohm, long s, micro
        XCTAssertEqual(CaseFolding.folded("İI"), "İi")  // U+0130 has no simple folding
        XCTAssertEqual(CaseFolding.folded("ǅ"), "ǆ")
        XCTAssertEqual(CaseFolding.folded("\u{13A0}\u{AB70}\u{13F8}"), "\u{13A0}\u{13A0}\u{13F0}")  // Cherokee folds to uppercase
        XCTAssertEqual(CaseFolding.folded("ABC xyz 09"), "abc xyz 09")
    }

    func testRangesAgreeWithCaseInsensitiveEquality() {
        // Letters with several case partners, letters that fold to others,
        // and neighbours in code-point order.
        let pieces = ["a", "A", "b", "ß", "ẞ", "s", "S", "ſ", "σ", "ς", "Σ", "k", "K", "\u{212A}", "µ", "μ", "Μ",
                      "é", "É", "e", "ǅ", "ǆ", "Ǆ", "\u{13A0}", "\u{AB70}", "ω", "\u{2126}", "Ω", "z", "Z", "1", " ", "ϐ", "β", "Β", "ı", "I", "i", "İ", "ϑ", "θ", "ᾈ", "ᾀ"]
        var rng = SplitMix64(seed: 0xCA5E)
        func word() -> String {
            var s = ""
            for _ in 0..<(1 + Int(rng.next() % 3)) { s += pieces[Int(rng.next() % UInt64(pieces.count))] }
            return s
        }
        var objects: [[String: Value]] = []
        for i in 0..<200 { objects.append(["objectId": .string("o\(i)"), "s": .string(word())]) }
        for _ in 0..<300 {
            let s = word()
            let equal = ids(T.c(.text("s", .equalsIgnoringCase, s)), objects)
            let between = ids(
                Condition.and([T.c(.text("s", .lessThanOrEqualIgnoringCase, s)), T.c(.text("s", .greaterThanOrEqualIgnoringCase, s))]),
                objects)
            XCTAssertEqual(between, equal, "'\(s)'")
            // And the strict ranges split the rest.
            let below = ids(T.c(.text("s", .lessThanIgnoringCase, s)), objects)
            let above = ids(T.c(.text("s", .greaterThanIgnoringCase, s)), objects)
            XCTAssertEqual(below.count + above.count + equal.count, objects.count, "'\(s)'")
            XCTAssertTrue(Set(below).isDisjoint(with: above) && Set(below).isDisjoint(with: equal), "'\(s)'")
        }
    }
}
