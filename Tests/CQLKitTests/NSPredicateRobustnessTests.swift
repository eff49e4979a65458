import CorpusSupport
import XCTest

@testable import CQLKit

/// Nothing the NSPredicate front end is given may crash or hang: deep
/// nesting is a `.limit` error, and seeded random mutations of the corpus
/// either parse (and then round-trip when they can be written) or fail with
/// a positioned error.
final class NSPredicateRobustnessTests: XCTestCase {
    func testDeepNestingIsALimitError() {
        for (open, close) in [("(", ")"), ("NOT ", ""), ("!", ""), ("a IN {", "}"), ("a == CAST(", ", 'NSDate')")] {
            let text = String(repeating: open, count: 100_000) + "a == 1" + String(repeating: close, count: 100_000)
            do {
                _ = try NSPredicateParser.parse(format: text)
                XCTFail("\(open): parsed")
            } catch {
                XCTAssertNotNil(error.range, "\(open): \(error.message)")
            }
        }
        let long = String(repeating: "a == 1 AND ", count: 100_000) + "a == 1"
        XCTAssertThrowsError(try NSPredicateParser.parse(format: long)) { error in
            XCTAssertEqual((error as? QueryError)?.kind, .limit)
        }
    }

    func testRandomMutationsNeverCrash() throws {
        let seeds = try Corpus.cases(in: "nspredicate").compactMap { $0["query"] }
        let pieces = ["(", ")", "{", "}", "[c]", "[", "]", "'", "\"", "\\", "%@", "%K", "%d", "$V", "#", "@count", ".", ",",
                      " AND ", " OR ", " NOT ", "!", "==", "<", ">=", " IN ", " BETWEEN ", " LIKE ", " MATCHES ", "SELF",
                      "CAST(", "-", "0x", "1e", "9", "é", "\u{0}", "\n", "*", "?", "\\u", "\\x"]
        var rng = NSPredicateSplitMix(seed: 0x5eed_0011)
        var parsed = 0
        for n in 0..<4000 {
            var bytes = Array(seeds[n % seeds.count].utf8)
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count + 1))
                switch rng.next() % 3 {
                case 0: bytes.insert(contentsOf: Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8), at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default: if at < bytes.count { bytes[at] = UInt8(truncatingIfNeeded: rng.next()) }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let args: [Value] = ["x", 1, .array(["a", "b"])]
            guard let q = try? NSPredicateParser.parse(format: text, argumentArray: Array(args.prefix(Int(rng.next() % 4))),
                                                       variables: ["V": 2]) else { continue }
            parsed += 1
            guard let written = try? NSPredicateFormatter.format(q) else { continue }
            XCTAssertEqual(try? NSPredicateParser.parse(format: written), q, "\(text) -> \(written)")
        }
        XCTAssertGreaterThan(parsed, 100)
    }
}

/// A small seeded generator (NSPredicateSplitMix64), so failures reproduce.
struct NSPredicateSplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
