import CorpusSupport
import Foundation
import XCTest
@testable import CQLKit

/// The optimizer skips a rule when the query has none of the rule's
/// ``OptimizerRule/triggers`` (``ConditionFeatures``). These tests fail if a
/// rule's declared triggers are incomplete: over every query of the corpora
/// and seeded random queries (shaped to make the rules fire), the optimizer
/// with skipping gives the same steps and result as without, and no rule
/// changes any query it would be skipped on.
final class OptimizerTriggerTests: XCTestCase {
    func testSkippingChangesNoResult() throws {
        var checked = 0, fired = 0, skipped = 0
        for (name, query) in try Self.queries() {
            checked += 1
            let fast = Optimizer()
            var slow = Optimizer()
            slow.skipsUntriggeredRules = false
            let a = try? fast.optimize(query), b = try? slow.optimize(query)
            XCTAssertEqual(a?.query, b?.query, name)
            XCTAssertEqual(a?.steps.map(\.rule), b?.steps.map(\.rule), name)
            XCTAssertEqual(a?.steps.map(\.after), b?.steps.map(\.after), name)
            fired += b?.steps.count ?? 0
            // Every rule on every query the optimizer passes through.
            for state in [query] + (b?.steps.map(\.after) ?? []) {
                let features = ConditionFeatures(state)
                for rule in Optimizer.defaultRules {
                    guard let triggers = rule.triggers, features.isDisjoint(with: triggers) else { continue }
                    skipped += 1
                    if let next = rule.rewritten(state), next != state {
                        XCTFail("\(name): \(rule.name) changes a query without its triggers \(triggers) (features \(features)):\n\(ASTPrinter.describe(state))\n→ \(ASTPrinter.describe(next))")
                    }
                }
            }
        }
        // The check has teeth: many queries, rules firing, rules skipped.
        XCTAssertGreaterThan(checked, 5_000)
        XCTAssertGreaterThan(fired, 2_000)
        XCTAssertGreaterThan(skipped, 20_000)
    }

    /// A name is what `cql explain` shows: the rule's type name.
    func testRuleNamesAreTypeNames() {
        for rule in Optimizer.defaultRules { XCTAssertEqual(rule.name, String(describing: type(of: rule))) }
    }

    func testFeaturesOfSmallConditions() throws {
        func features(_ text: String) throws -> ConditionFeatures { ConditionFeatures(try CQLParser.parse("select * from T where " + text)) }
        XCTAssertEqual(try features("a = 1 and b > 2"), [])
        XCTAssertEqual(try features("a > 1 and a >= 3"), [.boundPair])
        XCTAssertEqual(try features("a = 1 or a = 2"), [.absorbableOperand, .equalityPair, .sharedConjunctKind])
        XCTAssertEqual(try features("a != 1 and b not in (2, 3)"), [.inequalityPair])
        XCTAssertEqual(try features("a in (1)"), [.reducibleInList])
        XCTAssertEqual(try features("a in (1, 2, 1)"), [.reducibleInList])
        XCTAssertEqual(try features("a in (1, 2, 3)"), [])
        XCTAssertEqual(try features("a = 1 and not (b = 2)"), [.negation, .complementKinds])
        XCTAssertEqual(try features("a = 1 and b != 2"), [.complementKinds])
        XCTAssertEqual(try features("objectId = 'x' and createdAt > date('2020-01-01T00:00:00Z')"), [.arrayFreeComparisons])
        XCTAssertEqual(try features("name like 'a%' or (b >= 1 and c < 2)"), [.prefixPattern])
        XCTAssertTrue(try features("(a = 1 and b = 2) or (a = 1 and c = 3)").contains(.sharedConjunctKind))
        XCTAssertFalse(try features("(a = 1 and b = 2) or c > 3").contains(.sharedConjunctKind))
        XCTAssertTrue(try features("a = 1 or (a = 1 and b = 2)").contains(.absorbableOperand))
        // Hand-built: the parser's smart constructors flatten and fold.
        let a = Condition(.compare("a", .equal, .value(.int(1)))), b = Condition(.compare("b", .lessThan, .value(.int(2))))
        XCTAssertEqual(ConditionFeatures(Condition(.and([a, Condition(.and([b]))]))), [.nestedLogic])
        XCTAssertEqual(ConditionFeatures(Condition(.or([a, Condition(.or([b, b]))]))), [.nestedLogic, .absorbableOperand, .boundPair, .sharedConjunctKind])
        XCTAssertEqual(ConditionFeatures(Condition(.and([a, Condition(.constant(true))]))), [.constant])
        XCTAssertEqual(ConditionFeatures(Condition(.or([]))), [.emptyList])
        XCTAssertEqual(try features("name like '%x%' and c regexp '(?i)^x'"), [])
        XCTAssertEqual(try features("name like '_x%' or c regexp 'x'"), [])
        XCTAssertEqual(try features("name like '%%'"), [.prefixPattern])
        XCTAssertTrue(try features("a in ()").contains(.emptyList))
        XCTAssertTrue(try features("a in (select x from U where b like 'q%')").contains(.prefixPattern))
    }

    /// Corpus queries (CQL, where-JSON, Usergrid) and random ones.
    static func queries() throws -> [(String, Query)] {
        var out: [(String, Query)] = []
        for area in ["optimizer", "cql", "where", "eval", "nspredicate", "sql"] {
            for c in try Corpus.cases(in: area) {
                guard let text = c["query"] else { continue }
                let language = QueryLanguage.detect(text)
                if let q = try? language.parse(text, className: c["class"] ?? "T", literal: false, limit: nil, cursor: nil) {
                    out.append(("\(c)", q))
                }
            }
        }
        for c in try Corpus.cases(in: "usergrid") {
            guard let text = c["query"] else { continue }
            if let q = try? UsergridParser.parse(text, options: UsergridOptions(className: "T")) { out.append(("\(c)", q)) }
        }
        var master = SplitMix64(seed: 0x7219_6E55_0B71_F00D)
        for d in 0..<100 {
            var g = RandomQueries(seed: master.next())
            let data = g.dataset(mainCount: 4, subCount: 4)
            for k in 0..<50 {
                var q = g.query(data)
                if k % 2 == 1 { q.condition = redundant(q.condition, &g, data) }
                out.append(("random \(d).\(k)", q))
            }
        }
        return out
    }

    /// A generated condition in one of the shapes the rules look for, built
    /// without the smart constructors (nested `and`s stay nested).
    static func redundant(_ c: Condition?, _ g: inout RandomQueries, _ data: RandomDataset) -> Condition? {
        guard let c else { return nil }
        let x = g.condition(data, depth: 1, subqueryDepth: 0)
        let y = g.condition(data, depth: 1, subqueryDepth: 0)
        let n = ExactNegation.negate(x) ?? Condition(.not(x))
        switch g.rng.below(10) {
        case 0: return Condition(.or([Condition(.and([c, x])), Condition(.and([y, c]))]))
        case 1: return Condition(.and([c, Condition(.and([x, Condition(.or([y, Condition(.or([c]))]))]))]))
        case 2: return Condition(.or([c, Condition(.and([x, c]))]))
        case 3: return Condition(.not(Condition(.and([c, Condition(.not(x))]))))
        case 4: return Condition(.and([c, x, c]))
        case 5: return Condition(.or([Condition(.and([x, c, y])), Condition(.and([c, x]))]))
        case 6: return Condition(.and([x, c, n]))
        case 7: return Condition(.or([y, n, c, x]))
        case 8: return Condition(.and([c, Condition(.or([x, Condition(.constant(g.rng.chance(0.5)))])), Condition(.and([]))]))
        default: return Condition(.and([c, Condition(.or([x, Condition(.not(c))]))]))
        }
    }
}
