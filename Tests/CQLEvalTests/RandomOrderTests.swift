import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval
@testable import CQLKit

/// A seeded random property of `order` (EvaluationSemantics.md, "Order, paging,
/// projection"): over random objects with nested arrays, objects, empty
/// arrays and numeric member names, compound orders (one to three keys, each
/// ascending or descending, with skip and limit) give what
/// ``ReferenceSortKeys`` — MongoDB's sort-key rule written out the slow,
/// direct way — gives: the same objects in the same order, or the parallel
/// arrays error for the same object and a pair of keys that really is
/// parallel there.
///
/// A failure is shrunk (objects, keys, members and elements dropped while it
/// still fails) and printed as a command to run: the NDJSON data and the
/// query. `FUZZ_SEED=0x… swift test --filter RandomOrderTests` reruns one
/// case, `FUZZ_N` sets the number of cases (``RandomCases``).
final class RandomOrderTests: XCTestCase {
    struct Case: CustomStringConvertible {
        var docs: [[String: Value]]
        var keys: [OrderKey]
        var skip: Int?
        var limit: Int?

        var query: Query {
            Query(className: "T", order: keys, skip: skip.map { .value(.int(Int64($0))) },
                  limit: limit.map { .value(.int(Int64($0))) })
        }

        var description: String {
            let cql = (try? CQLFormatter.format(query)) ?? "(no CQL form)"
            let ndjson = docs.map { JSONWriter.string(.object($0)) }.joined(separator: "\n")
            return "cql eval --data T.ndjson \"\(cql)\"\nwith T.ndjson:\n\(ndjson)"
        }
    }

    func testCompoundOrdersFollowTheSortKeyRule() {
        var cases = 0, errors = 0, failures = 0
        for seed in RandomCases.seeds {
            var rng = SplitMix64(seed: seed)
            let c = Self.randomCase(&rng)
            cases += 1
            if ReferenceSortKeys.sorted(c).error != nil { errors += 1 }
            guard let message = Self.check(c) else { continue }
            let minimal = Self.shrink(c)
            XCTFail("seed 0x\(String(seed, radix: 16)): \(message)\nminimal case: \(Self.check(minimal) ?? message)\n\(minimal)")
            failures += 1
            if failures >= 5 { break }
        }
        print("random order: \(cases) cases (\(errors) with parallel arrays), \(failures) failures")
        XCTAssertGreaterThan(cases - errors, cases / 2, "too few cases sort without error to say much")
    }

    /// The hand-picked cases the corpus holds too, so the reference itself is
    /// checked against known answers.
    func testReferenceAgreesWithTheIssueExamples() throws {
        func docs(_ lines: String...) throws -> [[String: Value]] {
            try lines.map { line in
                guard case .object(let o) = try JSONReader.parse(line) else { throw CorpusError.malformed(line) }
                return o
            }
        }
        let pairing = Case(docs: try docs(#"{"objectId":"1","a":[{"x":1,"y":4},{"x":2,"y":1}]}"#,
                                          #"{"objectId":"2","a":[{"x":1,"y":2},{"x":2,"y":4}]}"#),
                           keys: [OrderKey("a.x"), OrderKey("a.y")])
        XCTAssertEqual(ReferenceSortKeys.sorted(pairing).ids, ["2", "1"])
        XCTAssertNil(Self.check(pairing))
        let positional = Case(docs: try docs(#"{"objectId":"n","a":[[1]]}"#, #"{"objectId":"s","a":["z"]}"#),
                              keys: [OrderKey("a.0", descending: true)])
        XCTAssertEqual(ReferenceSortKeys.sorted(positional).ids, ["n", "s"])
        XCTAssertNil(Self.check(positional))
        let parallel = Case(docs: try docs(#"{"objectId":"p","a":[1],"b":[2]}"#), keys: [OrderKey("a"), OrderKey("b")])
        XCTAssertEqual(ReferenceSortKeys.sorted(parallel).error?.pairs, [[0, 1]])
        XCTAssertNil(Self.check(parallel))
        let apart = Case(docs: try docs(#"{"objectId":"p","a":[{"b":[1]},{"c":[2]}]}"#), keys: [OrderKey("a.b"), OrderKey("a.c")])
        XCTAssertNil(ReferenceSortKeys.sorted(apart).error)
        XCTAssertNil(Self.check(apart))
    }

    /// The shared random query generator orders by several paths through one
    /// array (which then pair per element) often enough to matter, and never
    /// through parallel arrays (``RandomCases`` fails any query that errors).
    func testGeneratedQueriesOrderByPathsThroughOneArray() {
        var paired = 0, total = 0
        for seed in RandomCases.seeds.prefix(1000) {
            var generator = RandomQueries(seed: seed)
            let data = generator.dataset()
            let q = generator.query(data)
            total += 1
            let objects = data.collections[q.className] ?? []
            let keys = q.order.map(\.path)
            let shares = objects.contains { o in
                keys.indices.contains { i in
                    keys.indices.contains { j in
                        i < j && !Set(OrderArrays.locations(keys[i], in: o)).isDisjoint(with: OrderArrays.locations(keys[j], in: o))
                    }
                }
            }
            if shares { paired += 1 }
        }
        print("random queries: \(paired) of \(total) order by two keys through one array of some object")
        XCTAssertGreaterThan(paired, total / 50)
    }

    // MARK: Checking one case

    /// What is wrong with the evaluator's answer, or `nil`.
    static func check(_ c: Case) -> String? {
        let expected = ReferenceSortKeys.sorted(c)
        let got: QueryResult
        do throws(QueryError) {
            got = try QueryPlan(c.query, store: DocumentStore(["T": c.docs])).run()
        } catch {
            guard let want = expected.error else { return "unexpected error: \(error.message); expected ids \(expected.ids)" }
            let named = want.pairs.contains { pair in
                error.message.contains("cannot order by \(c.keys[pair[0]].path.dotted) and \(c.keys[pair[1]].path.dotted):")
            }
            let object = error.message.contains("objectId \"\(want.objectId)\"")
            if error.kind == .data, named, object { return nil }
            return "error \(error.message); expected the parallel arrays error for objectId \(want.objectId), keys \(want.pairs)"
        }
        if let want = expected.error {
            return "expected the parallel arrays error for objectId \(want.objectId) (keys \(want.pairs)), got ids \(ids(got.objects))"
        }
        if ids(got.objects) != expected.ids { return "ids \(ids(got.objects)), expected \(expected.ids)" }
        return nil
    }

    static func ids(_ objects: [[String: Value]]) -> [String] { objects.map { $0["objectId"]?.stringValue ?? "?" } }

    // MARK: Random cases

    static let paths: [FieldPath] = [
        "a", "a.x", "a.y", "a.0", "a.1", "a.2", "a.x.y", "a.0.x", "a.x.0", "a.y.x", "b", "b.x", "b.0",
    ]

    static func randomCase(_ rng: inout SplitMix64) -> Case {
        var docs: [[String: Value]] = []
        for i in 0..<(2 + rng.below(6)) {
            var o: [String: Value] = ["objectId": .string("o\(i)")]
            if rng.chance(0.85) { o["a"] = value(&rng, depth: 3) }
            if rng.chance(0.5) { o["b"] = value(&rng, depth: 2) }
            docs.append(o)
        }
        var keys: [OrderKey] = []
        for _ in 0..<(1 + rng.below(3)) {
            let p = rng.pick(paths)
            if !keys.contains(where: { $0.path == p }) { keys.append(OrderKey(p, descending: rng.chance(0.4))) }
        }
        let skip = rng.chance(0.2) ? rng.below(3) : nil
        let limit = rng.chance(0.3) ? rng.below(5) : nil
        return Case(docs: docs, keys: keys, skip: skip, limit: limit)
    }

    /// Mostly arrays and objects, so that paths pair, fan out and collide.
    static func value(_ rng: inout SplitMix64, depth: Int) -> Value {
        let w = depth > 0 ? [3, 1, 1, 4, 5] : [3, 1, 1, 0, 0]
        switch rng.weighted(w) {
        case 0: return rng.chance(0.5) ? .int(Int64(rng.below(4))) : .double(Double(rng.below(4)))
        case 1: return .string(rng.pick(["x", "y", "Z"]))
        case 2: return .null
        case 3:
            var o: [String: Value] = [:]
            for name in ["x", "y", "0", "1"] where rng.chance(name.count == 1 && name.first!.isLetter ? 0.6 : 0.1) {
                o[name] = value(&rng, depth: depth - 1)
            }
            return .object(o)
        default:
            return .array((0..<rng.below(4)).map { _ in value(&rng, depth: depth - 1) })
        }
    }

    // MARK: Shrinking

    /// A smaller case that still fails: objects, keys, skip/limit, members
    /// and elements dropped one at a time while the check still fails.
    static func shrink(_ start: Case) -> Case {
        var c = start
        var changed = true
        while changed {
            changed = false
            for candidate in smaller(c) where check(candidate) != nil {
                c = candidate
                changed = true
                break
            }
        }
        return c
    }

    static func smaller(_ c: Case) -> [Case] {
        var out: [Case] = []
        if c.skip != nil { var d = c; d.skip = nil; out.append(d) }
        if c.limit != nil { var d = c; d.limit = nil; out.append(d) }
        for i in c.docs.indices { var d = c; d.docs.remove(at: i); out.append(d) }
        if c.keys.count > 1 { for i in c.keys.indices { var d = c; d.keys.remove(at: i); out.append(d) } }
        for i in c.docs.indices {
            for (key, v) in c.docs[i] where key != "objectId" {
                var d = c
                d.docs[i][key] = nil
                out.append(d)
                for s in simpler(v) {
                    var e = c
                    e.docs[i][key] = s
                    out.append(e)
                }
            }
        }
        return out
    }

    static func simpler(_ v: Value) -> [Value] {
        switch v {
        case .array(let items):
            var out: [Value] = items.indices.map { i in var r = items; r.remove(at: i); return .array(r) }
            for i in items.indices { for s in simpler(items[i]) { var r = items; r[i] = s; out.append(.array(r)) } }
            return out
        case .object(let o):
            var out: [Value] = o.keys.map { k in var r = o; r[k] = nil; return .object(r) }
            for (k, x) in o { for s in simpler(x) { var r = o; r[k] = s; out.append(.object(r)) } }
            return out
        default:
            return []
        }
    }
}

/// MongoDB's sort-key rule, written out directly and slowly as the reference
/// for ``RandomOrderTests``: list every index key of each order path with the
/// array elements it went through, form every tuple whose keys went through
/// the same elements of the arrays they share, take the best tuple per
/// object, and sort stably. Two keys are parallel in an object when, in one
/// such tuple, they met two arrays neither of which holds the other.
enum ReferenceSortKeys {
    enum Key {
        case emptyArray
        case value(Value)

        static func compare(_ a: Key, _ b: Key) -> Int {
            switch (a, b) {
            case (.emptyArray, .emptyArray): return 0
            case (.emptyArray, .value): return -1
            case (.value, .emptyArray): return 1
            case (.value(let x), .value(let y)): return ValueOrder.compare(x, y)
            }
        }
    }

    /// One index key of one path: the key, the element taken of each array
    /// expanded on the way (by the array's place), and the places of all
    /// arrays met (expanded or indexed).
    struct Leaf {
        var key: Key
        var elements: [[String]: Int] = [:]
        var met: [[String]] = []
    }

    struct ParallelError {
        var objectId: String
        /// Key index pairs `[i, j]`, `i < j`, that are parallel in that object.
        var pairs: [[Int]]
    }

    static func leaves(_ v: Value, _ rest: ArraySlice<String>, at: [String], whole: Bool, _ leaf: Leaf) -> [Leaf] {
        func ending(_ key: Key, _ l: Leaf) -> [Leaf] {
            var l = l
            l.key = key
            return [l]
        }
        if whole { return ending(.value(v), leaf) }
        switch v {
        case .array(let items):
            var here = leaf
            here.met.append(at)
            guard let step = rest.first else {
                // The path ends on the array: each element whole; none is the empty-array key.
                if items.isEmpty { return ending(.emptyArray, here) }
                return items.indices.flatMap { k in
                    var l = here
                    l.elements[at] = k
                    return ending(.value(items[k]), l)
                }
            }
            if items.isEmpty { return ending(.value(.null), here) }
            if step.allSatisfy(\.isASCII), step.allSatisfy(\.isNumber), let i = Int(step), i < items.count {
                return leaves(items[i], rest.dropFirst(), at: at + ["#\(i)"], whole: rest.count == 1, here)
            }
            return items.indices.flatMap { k -> [Leaf] in
                var l = here
                l.elements[at] = k
                if case .object = items[k] { return leaves(items[k], rest, at: at + ["#\(k)"], whole: false, l) }
                return ending(.value(.null), l)
            }
        case .object(let o):
            guard let step = rest.first else { return ending(.value(v), leaf) }
            guard let child = o[step] else { return ending(.value(.null), leaf) }
            return leaves(child, rest.dropFirst(), at: at + [step], whole: false, leaf)
        default:
            return ending(rest.isEmpty ? .value(v) : .value(.null), leaf)
        }
    }

    /// Every consistent choice of one leaf per key.
    static func tuples(_ perKey: [[Leaf]]) -> [[Leaf]] {
        var out: [[Leaf]] = [[]]
        for options in perKey {
            out = out.flatMap { prefix in
                options.compactMap { leaf -> [Leaf]? in
                    for p in prefix {
                        for (place, k) in leaf.elements where p.elements[place].map({ $0 != k }) ?? false { return nil }
                    }
                    return prefix + [leaf]
                }
            }
        }
        return out
    }

    static func compare(_ a: [Key], _ b: [Key], _ keys: [OrderKey]) -> Int {
        for i in keys.indices {
            let c = Key.compare(a[i], b[i])
            if c != 0 { return keys[i].descending ? -c : c }
        }
        return 0
    }

    static func sorted(_ c: RandomOrderTests.Case) -> (ids: [String], error: ParallelError?) {
        var best: [[Key]] = []
        for doc in c.docs {
            let perKey = c.keys.map { leaves(.object(doc), $0.path.components[...], at: [], whole: false, Leaf(key: .value(.null))) }
            let all = tuples(perKey)
            var pairs: Set<[Int]> = []
            for t in all {
                for i in t.indices {
                    for j in t.indices where i < j {
                        for x in t[i].met {
                            for y in t[j].met where !(x.starts(with: y) || y.starts(with: x)) { pairs.insert([i, j]) }
                        }
                    }
                }
            }
            if !pairs.isEmpty {
                return ([], ParallelError(objectId: doc["objectId"]?.stringValue ?? "", pairs: pairs.sorted { $0.lexicographicallyPrecedes($1) }))
            }
            let keys = all.map { $0.map(\.key) }
            best.append(keys.min { compare($0, $1, c.keys) < 0 }!)
        }
        let order = c.docs.indices.sorted { i, j in
            let r = compare(best[i], best[j], c.keys)
            return r != 0 ? r < 0 : i < j
        }
        let start = min(c.skip ?? 0, order.count)
        let end = c.limit.map { min(start + $0, order.count) } ?? order.count
        return (order[start..<end].map { c.docs[$0]["objectId"]?.stringValue ?? "?" }, nil)
    }
}
