import CorpusSupport
import XCTest
@testable import CQLKit

/// The optimizer takes the rewrite of a rule that declares it rewrites only
/// on a change (``OptimizerRule/rewritesOnlyOnChange``) without
/// comparing it to the query it came from. These tests fail if such a rule
/// ever returns a rewrite equal to its input: over every query of the
/// corpora and seeded random queries (``OptimizerTriggerTests/queries()``),
/// and every query the optimizer passes through on the way.
final class OptimizerCertainRewriteTests: XCTestCase {
    func testCertainRulesNeverReturnTheirInput() throws {
        let certain = Optimizer.defaultRules.filter(\.rewritesOnlyOnChange)
        XCTAssertEqual(Set(certain.map(\.name)), ["CanonicalPrefix", "SingletonIn"])
        var rewrites = 0
        for (name, query) in try OptimizerTriggerTests.queries() {
            var slow = Optimizer()
            slow.skipsUntriggeredRules = false
            let steps = (try? slow.optimize(query))?.steps ?? []
            for state in [query] + steps.map(\.after) {
                for rule in certain {
                    guard let next = rule.rewritten(state) else { continue }
                    rewrites += 1
                    XCTAssertNotEqual(next, state, "\(name): \(rule.name) returned its input:\n\(ASTPrinter.describe(state))")
                }
            }
        }
        // Not a test that cannot fail: the rules do rewrite many of these.
        XCTAssertGreaterThan(rewrites, 300)
    }

    /// The optimizer's answers with the comparison skipped are those of
    /// rules compared one by one (the same steps, the same query).
    func testSkippedComparisonChangesNoStep() throws {
        for (name, query) in try OptimizerTriggerTests.queries() {
            let result = try? Optimizer().optimize(query)
            guard let steps = result?.steps else { continue }
            for step in steps { XCTAssertNotEqual(step.before, step.after, "\(name): \(step.rule) recorded a step that changed nothing") }
        }
    }
}
