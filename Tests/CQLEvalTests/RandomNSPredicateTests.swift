import XCTest

@testable import CQLEval
@testable import CQLKit

/// Seeded random differential test of the NSPredicate formatter and parser:
/// each random query's condition (order, paging and projection removed: a
/// predicate is only the condition) is written as NSPredicate text, read
/// back, and evaluated again over the same data; the results must agree,
/// and the text must be canonical. Reproduce with `FUZZ_SEED=0x…`.
final class RandomNSPredicateTests: XCTestCase {
    func testNSPredicateTranslationEvaluatesAlike() {
        var tally = Tally()
        RandomCases.forEach(&tally) { original, tally in
            var c = original
            c.query.order = []
            c.query.skip = nil
            c.query.limit = nil
            c.query.keys = []
            c.query.includes = []
            c.query.count = .none
            do throws(QueryError) {
                c.expected = try QueryPlan(c.query, store: c.store).run()
            } catch {
                tally.fail(c, "original", "evaluating the condition failed: \(error.rendered())")
                return
            }
            let via = "NSPredicate"
            let text: String
            do throws(QueryError) {
                text = try NSPredicateFormatter.format(c.query)
            } catch where error.kind == .unsupported {
                tally.unsupported[via, default: 0] += 1
                return
            } catch {
                tally.fail(c, via, "format failed: \(error.rendered())")
                return
            }
            let back: Query
            do throws(QueryError) {
                back = try NSPredicateParser.parse(format: text, className: c.query.className)
            } catch {
                tally.fail(c, via, "parse failed: \(error.rendered())", text: text)
                return
            }
            RandomCases.compare(c, back, via: via, text: text, &tally)
            if let again = try? NSPredicateFormatter.format(back), again != text {
                tally.fail(c, via, "formatting the parsed query changes the text", text: text, detail: "re-formatted: \(again)")
            }
        }
        tally.finish("NSPredicate", self)
    }
}
