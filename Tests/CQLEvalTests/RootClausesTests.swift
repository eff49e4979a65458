import CQLKit
import XCTest

@testable import CQLEval

/// ``RootClauses`` (a conjunction of tests on top-level keys, read straight
/// from the object's dictionary) must answer exactly as the ``Node`` tree it
/// comes from. Each test builds both from the same nodes and compares them
/// over objects holding every kind of value under the keys, or missing them.
final class RootClausesTests: XCTestCase {
    static let stored = PredicateFastPathTests.stored + [
        .string("alice"), .string("carol"), .string("Al"), .array([.string("bob"), .string("carl")]), .array([.null]),
        .array([.int(3), .double(7)]),
    ]

    /// Objects with `v` under `k`, `k` missing, and `v` next to a second key;
    /// small objects (scanned for the key) and wide ones (hashed), and keys
    /// close to `k`: combining marks, the Kelvin sign, the same length.
    private func objects(_ v: Value) -> [[String: Value]] {
        let small: [[String: Value]] = [
            ["k": v], ["other": v], [:], ["k": v, "j": .int(1)], ["k": v, "j": .string("alice")], ["j": v],
            ["k\u{301}": v, "\u{212A}": v], ["K": v, "j": .int(2)], ["k\u{301}": v, "k": .int(1)],
        ]
        return small + small.map { Self.widened($0) }
    }

    /// `object` with more members than ``ResolvedKey/scanLimit``.
    static func widened(_ object: [String: Value]) -> [String: Value] {
        var o = object
        for i in 0...ResolvedKey.scanLimit { o["filler\(i)"] = .int(Int64(i)) }
        return o
    }

    /// `text` as a native string with storage of its own (not a small
    /// string), which compares by content, not by bits.
    static func stored(_ text: String) -> String {
        var s = String()
        s.reserveCapacity(64)
        s += text
        return s
    }

    func testResolvedKeysFindTheEntryTheDictionaryFinds() throws {
        let long = "a_key_longer_than_fifteen_bytes"
        let keys = ["k", "j", "score", "level", "objectId", long, "k\u{301}x"].compactMap { ResolvedKey(Accessor(FieldPath([$0]))) }
        XCTAssertEqual(keys.count, 6, "a key with a combining mark is checked by bytes")
        let names = ["k", "j", "score", "level", "objectId", long, "", Self.stored("k"), Self.stored(long), "k\u{301}",
                     "\u{212A}", "K", "\u{e9}", "e\u{301}", "scorf", "lvl", long + "!", "\u{1F600}"]
        var objects: [[String: Value]] = [[:]]
        for n in 1...names.count {
            // Every run of consecutive names, small and wide.
            for start in 0...(names.count - n) {
                var o: [String: Value] = [:]
                for (i, name) in names[start..<(start + n)].enumerated() { o[name] = .int(Int64(i)) }
                objects += [o, Self.widened(o)]
            }
        }
        for key in keys {
            for o in objects {
                XCTAssertEqual(key.index(in: o), o.index(forKey: key.key), "\(key.key) in \(o.keys.sorted())")
            }
        }
        for unresolved in ["K", "\u{e9}", "createdAt", "updatedAt"] {
            XCTAssertNil(ResolvedKey(Accessor(FieldPath([unresolved]))), unresolved)
        }
        XCTAssertNil(ResolvedKey(Accessor(FieldPath(["a", "k"]))), "a walk")
    }

    private func assertAgrees(_ node: Node, file: StaticString = #filePath, line: UInt = #line) throws {
        let clauses = try XCTUnwrap(RootClauses(node), "not taken: \(node)", file: file, line: line)
        let context = EvalContext()
        for v in Self.stored {
            for o in objects(v) {
                let fast = clauses.matches(o), general = node.matches(.object(o), context)
                if fast != general { XCTFail("\(node) on \(o): clauses \(fast), tree \(general)", file: file, line: line) }
            }
        }
    }

    private let k = Accessor(FieldPath(["k"])), j = Accessor(FieldPath(["j"]))

    func testScalarClausesAgreeWithTheTree() throws {
        for op in PredicateFastPathTests.ops {
            for c in PredicateFastPathTests.constants {
                let test = try XCTUnwrap(ScalarTest(op, c))
                try assertAgrees(.scalar(k, test))
                try assertAgrees(.and([.scalar(k, test), .scalar(j, try XCTUnwrap(ScalarTest(.greaterThan, .int(0))))]))
            }
        }
    }

    func testMemberClausesAgreeWithTheTree() throws {
        let many = (0..<12).map { Value.int(Int64($0)) } + (0..<12).map { Value.string("s\($0)") } + [.string("alice")]
        let lists: [[Value]] = [
            [.int(1)], [.double(1)], [.double(-0.0)], [.int(0), .string("0")], [.int(PredicateFastPathTests.twoTo53 + 1)],
            [.double(Double(PredicateFastPathTests.twoTo53))], [.double(1.5), .double(.nan)], [.string("\u{e9}"), .string("a")],
            [.string("e\u{301}")], [.bool(true)], [.bool(false), .null], [.null], [.string("alice"), .string("carol"), .int(3)],
            many, many + [.null], many.map { v in if case .int(let i) = v { return .double(Double(i)) } else { return v } },
        ]
        for list in lists {
            let set = MemberSet(list)
            try assertAgrees(.member(k, set))
            try assertAgrees(.and([.member(k, set), .member(j, MemberSet([.int(1), .string("alice")]))]))
        }
    }

    func testPrefixClausesAgreeWithTheTree() throws {
        for prefixes in [[Array("al".utf8), Array("ca".utf8)], [[]], [Array("\u{e9}".utf8)], [Array("e".utf8)]] {
            try assertAgrees(.prefix(k, prefixes))
            try assertAgrees(.and([.prefix(k, prefixes), .scalar(j, try XCTUnwrap(ScalarTest(.equal, .int(1))))]))
        }
    }

    func testOnlyPlainTopLevelTestsAreTaken() throws {
        let one = try XCTUnwrap(ScalarTest(.equal, .int(1)))
        XCTAssertNotNil(RootClauses(.scalar(k, one)))
        for node: Node in [
            .scalar(Accessor(FieldPath(["a", "k"])), one),  // a walk
            .scalar(Accessor(FieldPath(["K"])), one),  // a key checked by bytes
            .scalar(Accessor(FieldPath(["createdAt"])), one),  // strings read as Dates
            .member(k, MemberSet([.array([.int(1)])])),  // not all scalars
            .and([.scalar(k, one), .exists(j)]), .or([.scalar(k, one), .scalar(j, one)]), .not(.scalar(k, one)),
            .constant(true), .regex(k, try CompiledRegex(pattern: "a", options: "")),
        ] {
            XCTAssertNil(RootClauses(node), "\(node)")
        }
    }

    func testPlansUseTheClausesForTheBenchmarkFilters() throws {
        for text in [
            "select * from GameScore where score > 500 and cheatMode = false and level < 5",
            "select * from GameScore where name regexp '^(al|ca)' and score >= 100",
            "select * from GameScore where name in ('alice', 'carol', 'erin') and level in (1, 3, 5, 7.0)",
        ] {
            let plan = try QueryPlan(Binder.bind(CQLParser.parse(text), parameters: []))
            XCTAssertEqual(plan.rootClauses?.clauses.count, 2 + (text.contains("cheatMode") ? 1 : 0), text)
        }
    }
}
