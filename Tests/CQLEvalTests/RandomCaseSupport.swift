import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval
@testable import CQLKit

/// One random case: the data, the query, and what the evaluator makes of it.
struct RandomCase {
    var seed: UInt64
    var dataset: RandomDataset
    var query: Query
    var store: DocumentStore
    var expected: QueryResult
}

/// The seeded cases of the random property tests (RandomDifferentialTests,
/// RandomEvaluatorTests).
///
/// Each case comes from its own seed, drawn from one fixed master seed, so a
/// failure names the seed and `FUZZ_SEED=0x… swift test --filter <Test>`
/// runs just that case; `FUZZ_N` changes the number of cases.
enum RandomCases {
    /// Cases per property: the random test files run in a few seconds in a
    /// debug build on 2 cores.
    static let defaultCount = 3000
    static let masterSeed: UInt64 = 0xC0FF_EE15_600D_CAFE

    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let text = env["FUZZ_SEED"], let seed = UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) {
            return [seed]
        }
        let n = env["FUZZ_N"].flatMap { Int($0) } ?? defaultCount
        var master = SplitMix64(seed: masterSeed)
        return (0..<n).map { _ in master.next() }
    }

    /// Runs `body` over the cases. `features` picks the generator's
    /// constructs from the case seed (so `FUZZ_SEED` reproduces the case);
    /// `count` scales the default number of cases.
    static func forEach(_ tally: inout Tally, features: (UInt64) -> RandomQueries.Features = { _ in .all },
                        fraction: Double = 1, _ body: (RandomCase, inout Tally) -> Void) {
        let all = seeds
        let used = all.count == 1 ? all : Array(all.prefix(max(1, Int(Double(all.count) * fraction))))
        for seed in used {
            guard !tally.full else { break }
            var generator = RandomQueries(seed: seed, features: features(seed))
            let dataset = generator.dataset()
            let query = generator.query(dataset)
            let store = DocumentStore(dataset.collections)
            var c = RandomCase(seed: seed, dataset: dataset, query: query, store: store, expected: QueryResult(objects: []))
            do throws(QueryError) {
                c.expected = try QueryPlan(query, store: store).run()
            } catch {
                tally.fail(c, "original", "evaluating the generated query failed: \(error.rendered())")
                continue
            }
            tally.cases += 1
            body(c, &tally)
        }
    }

    /// Object ids of results, for messages.
    static func ids(_ objects: [[String: Value]]) -> [String] {
        objects.map { $0["objectId"]?.stringValue ?? JSONWriter.string(.object($0)) }
    }

    /// Evaluates `other` over the case's data and compares it with the
    /// original's results (objects in order, count).
    static func compare(_ c: RandomCase, _ other: Query, via: String, text: String?, _ tally: inout Tally) {
        let got: QueryResult
        do throws(QueryError) {
            got = try QueryPlan(other, store: c.store).run()
        } catch {
            tally.fail(c, via, "evaluating the translation failed: \(error.rendered())", text: text,
                       detail: "translated AST:\n\(ASTPrinter.describe(other))")
            return
        }
        tally.compared += 1
        if got.objects != c.expected.objects || got.count != c.expected.count {
            tally.fail(c, via, "results differ", text: text,
                       detail: """
                       translated AST:
                       \(ASTPrinter.describe(other))
                       original:    \(ids(c.expected.objects)) count \(c.expected.count.map(String.init) ?? "-")
                       translation: \(ids(got.objects)) count \(got.count.map(String.init) ?? "-")
                       """)
        }
    }
}

/// Counts and failure reports of one property.
struct Tally {
    var cases = 0
    var compared = 0
    var unsupported: [String: Int] = [:]
    var failures: [String] = []
    /// Stop after this many failures: one bug tends to fail many cases.
    static let maxFailures = 8

    var full: Bool { failures.count >= Tally.maxFailures }

    mutating func fail(_ c: RandomCase, _ via: String, _ message: String, text: String? = nil, detail: String? = nil) {
        let cql = (try? CQLFormatter.format(c.query)) ?? "(no CQL form)"
        var lines = [
            "seed 0x\(String(c.seed, radix: 16)) via \(via): \(message)",
            "query (CQL): \(cql)",
            "query (AST):\n\(ASTPrinter.describe(c.query))",
        ]
        if let text { lines.append("translation: \(text)") }
        if let detail { lines.append(detail) }
        lines.append("data:\n\(c.dataset.dump)")
        failures.append(lines.joined(separator: "\n"))
    }

    func finish(_ name: String, _ test: XCTestCase) {
        let skipped = unsupported.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("random \(name): \(cases) cases, \(compared) comparisons; unsupported: \(skipped.isEmpty ? "none" : skipped)")
        for f in failures { XCTFail(f) }
        XCTAssertGreaterThan(compared, 0, "no case was compared")
    }
}
