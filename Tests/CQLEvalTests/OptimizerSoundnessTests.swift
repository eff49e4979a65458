import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval
@testable import CQLKit

/// Soundness of the optimizer by testing, as Calcite fuzzes its simplifier:
/// seeded random data and queries (``RandomQueries``) are evaluated as
/// generated, fully optimized, and rewritten by each rule alone (to its own
/// fixed point); every result must be the same (objects in order, count).
///
/// A disagreement fails with a minimal case: the condition is shrunk (an
/// operand of `and`/`or`, or the inside of a `not`, replaces the whole while
/// the disagreement persists on one object), and the message shows the
/// query's CQL text, the rewrite's, and that one document.
///
/// `OPT_FUZZ_N` sets the number of queries (default 10,000, ten per
/// dataset); `OPT_FUZZ_SEED=0x…` reruns the ten queries of one dataset.
final class OptimizerSoundnessTests: XCTestCase {
    static let masterSeed: UInt64 = 0x0B71_5EED_CAFE_F00D

    /// Queries per generated dataset: generating data costs more than a query.
    static let queriesPerDataset = 10

    /// One seed per dataset.
    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let text = env["OPT_FUZZ_SEED"], let seed = UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) {
            return [seed]
        }
        let n = env["OPT_FUZZ_N"].flatMap { Int($0) } ?? 10_000
        var master = SplitMix64(seed: masterSeed)
        return (0..<max(1, n / queriesPerDataset)).map { _ in master.next() }
    }

    func testOptimizedQueriesEvaluateAlike() throws {
        let optimizers: [(String, Optimizer)] = [("all rules", Optimizer())]
            + Optimizer.defaultRules.map { ($0.name, Optimizer(rules: [$0])) }
        var queries = 0, rewritten = 0, comparisons = 0
        var fired: [String: Int] = [:]
        var failures: [String] = []
        let clock = ContinuousClock()
        let started = clock.now
        for seed in Self.seeds {
            guard failures.count < 5 else { break }
            var generator = RandomQueries(seed: seed)
            let dataset = generator.dataset()
            let store = DocumentStore(dataset.collections)
            for k in 0..<Self.queriesPerDataset {
                var query = generator.query(dataset)
                if generator.rng.chance(0.5) { query.condition = Self.redundant(query.condition, &generator, dataset) }
                guard let expected = try? QueryPlan(query, store: store).run() else { continue }
                queries += 1
                let name = "seed 0x\(String(seed, radix: 16)) query \(k)"
                for (rules, optimizer) in optimizers {
                    let result: Optimizer.Result
                    do {
                        result = try optimizer.optimize(query)
                    } catch {
                        failures.append("\(name) \(rules): the optimizer rejected a valid query: \(error.rendered())")
                        continue
                    }
                    // When all rules together change nothing, no rule alone does
                    // (the first round runs each on the query as generated).
                    if result.query == query { if rules == "all rules" { break } else { continue } }
                    if rules == "all rules" {
                        rewritten += 1
                        for s in result.steps { fired[s.rule, default: 0] += 1 }
                    }
                    comparisons += 1
                    let got: QueryResult
                    do {
                        got = try QueryPlan(result.query, store: store).run()
                    } catch {
                        failures.append("\(name) \(rules): the rewrite fails: \(error.rendered())\n\(cql(query)) → \(cql(result.query))")
                        continue
                    }
                    if got.objects != expected.objects || got.count != expected.count {
                        failures.append("\(name) via \(rules): results differ\n" + minimalCase(query, optimizer, dataset, store))
                    }
                }
            }
        }
        let summary = fired.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("optimizer soundness: \(queries) queries, \(rewritten) rewritten, \(comparisons) comparisons in \(clock.now - started); rules fired: \(summary)")
        for f in failures { XCTFail(f) }
        XCTAssertGreaterThan(rewritten, queries / 10, "too few queries were rewritten to test anything")
        if Self.seeds.count > 1 {
            for rule in Optimizer.defaultRules {
                XCTAssertGreaterThan(fired[rule.name, default: 0], 0, "\(rule.name) never fired on the random queries")
            }
        }
    }

    /// Wraps a generated condition in one of the shapes the rules look for,
    /// built without the smart constructors (so nested `and`s stay nested),
    /// with more generated conditions as the other operands.
    static func redundant(_ c: Condition?, _ g: inout RandomQueries, _ data: RandomDataset) -> Condition? {
        guard let c else { return nil }
        let x = g.condition(data, depth: 1, subqueryDepth: 0)
        let y = g.condition(data, depth: 1, subqueryDepth: 0)
        switch g.rng.below(7) {
        case 0: return Condition(.or([Condition(.and([c, x])), Condition(.and([y, c]))]))
        case 1: return Condition(.and([c, Condition(.and([x, Condition(.or([y, Condition(.or([c]))]))]))]))
        case 2: return Condition(.or([c, Condition(.and([x, c]))]))
        case 3: return Condition(.not(Condition(.and([c, Condition(.not(x))]))))
        case 4: return Condition(.and([c, x, c]))
        case 5: return Condition(.or([Condition(.and([x, c, y])), Condition(.and([c, x]))]))
        default: return Condition(.and([c, Condition(.or([x, Condition(.not(c))]))]))
        }
    }

    private func cql(_ q: Query) -> String { (try? CQLFormatter.format(q)) ?? ASTPrinter.describe(q) }

    /// Whether `object` alone gets different answers from the condition and its rewrite.
    private func disagrees(_ condition: Condition?, _ className: String, _ optimizer: Optimizer, _ store: DocumentStore,
                           _ object: [String: Value]) -> Bool {
        let q = Query(className: className, condition: condition)
        guard let rewritten = try? optimizer.optimize(q).query,
              let a = try? QueryPlan(q, store: store).matches(object),
              let b = try? QueryPlan(rewritten, store: store).matches(object)
        else { return false }
        return a != b
    }

    /// The smallest sub-condition and one document on which the rewrite disagrees.
    private func minimalCase(_ query: Query, _ optimizer: Optimizer, _ dataset: RandomDataset, _ store: DocumentStore) -> String {
        let objects = dataset.collections[dataset.mainClass] ?? []
        guard let object = objects.first(where: { disagrees(query.condition, query.className, optimizer, store, $0) }) else {
            // Order, paging or count differ, not a match: show the whole query.
            let rewritten = (try? optimizer.optimize(query).query) ?? query
            return "query: \(cql(query))\nrewrite: \(cql(rewritten))\ndata:\n\(dataset.dump)"
        }
        var condition = query.condition!
        shrinking: while true {
            var candidates: [Condition] = []
            switch condition.predicate {
            case .and(let items), .or(let items):
                candidates = items
                for i in items.indices where items.count > 2 {
                    var fewer = items
                    fewer.remove(at: i)
                    if case .and = condition.predicate { candidates.append(Condition.and(fewer)) } else { candidates.append(Condition.or(fewer)) }
                }
            case .not(let inner): candidates = [inner]
            default: break
            }
            for c in candidates where disagrees(c, query.className, optimizer, store, object) {
                condition = c
                continue shrinking
            }
            break
        }
        let small = Query(className: query.className, condition: condition)
        let rewritten = (try? optimizer.optimize(small).query) ?? small
        return "query: \(cql(small))\nrewrite: \(cql(rewritten))\ndocument: \(JSONWriter.string(.object(object)))"
    }
}
