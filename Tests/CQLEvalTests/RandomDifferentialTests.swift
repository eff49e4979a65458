import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval
@testable import CQLKit

/// Seeded random differential tests: random data and random bound queries
/// (``RandomQueries``), each query carried through every other form the
/// library writes and evaluated again over the same data.
///
/// - where-JSON in each dialect, read back: same results (ids in order,
///   objects, count);
/// - canonical CQL, parsed back: same results, and the same AST up to the
///   documented normalizations (``CQLRoundTrip``);
/// - Usergrid `ql` (plain and literal), parsed back: same results, and the
///   same AST up to Usergrid's rewrites (``UsergridRoundTrip``);
/// - the evaluator's `matches` agrees with `run()`.
///
/// Each translation is also canonical: translating the read-back query gives
/// the same text again.
///
/// A form that cannot express a query (`.unsupported`) is counted, not a
/// failure. Every failure prints the case seed, the query, the data and both
/// results. Reproduce one case with `FUZZ_SEED=0x… swift test --filter
/// RandomDifferentialTests`; `FUZZ_N` sets the number of cases per property
/// (``RandomCases``).
final class RandomDifferentialTests: XCTestCase {
    // MARK: Properties

    func testWhereJSONTranslationsEvaluateAlike() {
        var tally = Tally()
        RandomCases.forEach(&tally) { c, tally in
            for dialect in WhereJSONDialect.allCases {
                let via = "where-JSON (\(dialect.rawValue))"
                let text: String
                let emitted: Value
                do throws(QueryError) {
                    emitted = try WhereJSONEmitter.emit(c.query, dialect: dialect)
                    text = JSONWriter.string(emitted)
                } catch where error.kind == .unsupported {
                    tally.unsupported[via, default: 0] += 1
                    continue
                } catch {
                    tally.fail(c, via, "emit failed: \(error.rendered())")
                    continue
                }
                let back: Query
                do throws(QueryError) {
                    back = try WhereJSONReader.read(text)
                } catch {
                    tally.fail(c, via, "read failed: \(error.rendered())", text: text)
                    continue
                }
                RandomCases.compare(c, back, via: via, text: text, &tally)
                // Reading the emitted value (typed values as typed cases) gives the same AST.
                if let direct = try? WhereJSONReader.read(emitted), direct != back {
                    tally.fail(c, via, "reading the emitted Value differs from reading its text", text: text,
                               detail: "from text:\n\(ASTPrinter.describe(back))\nfrom the Value:\n\(ASTPrinter.describe(direct))")
                }
                // The emitted form is canonical: emitting what was read gives it again.
                if let again = try? WhereJSONEmitter.emit(back, dialect: dialect), JSONWriter.string(again) != text {
                    tally.fail(c, via, "emitting the read query changes the text", text: text,
                               detail: "re-emitted: \(JSONWriter.string(again))")
                }
            }
        }
        tally.finish("where-JSON", self)
    }

    func testCQLRoundTripEvaluatesAlikeAndKeepsTheAST() {
        var tally = Tally()
        RandomCases.forEach(&tally) { c, tally in
            let via = "CQL"
            let text: String
            do throws(QueryError) {
                text = try CQLFormatter.format(c.query)
            } catch where error.kind == .unsupported {
                tally.unsupported[via, default: 0] += 1
                return
            } catch {
                tally.fail(c, via, "format failed: \(error.rendered())")
                return
            }
            let back: Query
            do throws(QueryError) {
                back = try CQLParser.parse(text)
            } catch {
                tally.fail(c, via, "parse failed: \(error.rendered())", text: text)
                return
            }
            RandomCases.compare(c, back, via: via, text: text, &tally)
            if let again = try? CQLFormatter.format(back), again != text {
                tally.fail(c, via, "formatting the parsed query changes the text", text: text, detail: "re-formatted: \(again)")
            }
            let expected = CQLRoundTrip.normalized(c.query)
            if back != expected {
                tally.fail(c, via, "the AST does not round trip", text: text,
                           detail: "expected AST:\n\(ASTPrinter.describe(expected))\nparsed AST:\n\(ASTPrinter.describe(back))")
            }
        }
        tally.finish("CQL", self)
    }

    func testUsergridRoundTripEvaluatesAlikeAndKeepsTheAST() {
        var tally = Tally()
        // Half the cases use only what `ql` can say, so many get compared.
        RandomCases.forEach(&tally, features: { $0 & 1 == 0 ? .usergrid : .all }) { c, tally in
            for literal in [false, true] {
                let via = literal ? "Usergrid (literal)" : "Usergrid"
                let text: String
                do throws(QueryError) {
                    text = try UsergridFormatter.format(c.query, literal: literal)
                } catch where error.kind == .unsupported {
                    tally.unsupported[via, default: 0] += 1
                    continue
                } catch {
                    tally.fail(c, via, "format failed: \(error.rendered())")
                    continue
                }
                // Class, limit and skip travel beside `ql` (UsergridOptions).
                guard let options = UsergridRoundTrip.options(for: c.query, literal: literal) else {
                    tally.unsupported[via, default: 0] += 1
                    continue
                }
                let back: Query
                do throws(QueryError) {
                    back = try UsergridParser.parse(text, options: options)
                } catch {
                    tally.fail(c, via, "parse failed: \(error.rendered())", text: text)
                    continue
                }
                RandomCases.compare(c, back, via: via, text: text, &tally)
                if let again = try? UsergridFormatter.format(back, literal: literal), again != text {
                    tally.fail(c, via, "formatting the parsed query changes the text", text: text, detail: "re-formatted: \(again)")
                }
                let expected = UsergridRoundTrip.normalized(c.query)
                if back != expected {
                    tally.fail(c, via, "the AST does not round trip", text: text,
                               detail: "expected AST:\n\(ASTPrinter.describe(expected))\nparsed AST:\n\(ASTPrinter.describe(back))")
                }
            }
        }
        tally.finish("Usergrid", self)
    }

    /// `matches` (one object) agrees with `run()` (the whole collection):
    /// the filtered objects are the matches, in store order when nothing
    /// reorders them, and `count` is their number.
    func testMatchesAgreesWithRun() {
        var tally = Tally()
        RandomCases.forEach(&tally) { c, tally in
            let via = "matches"
            let objects = c.dataset.collections[c.query.className] ?? []
            var filterOnly = c.query
            filterOnly.order = []
            filterOnly.skip = nil
            filterOnly.limit = nil
            filterOnly.keys = []
            filterOnly.includes = []
            filterOnly.count = .withResults
            do throws(QueryError) {
                let plan = try QueryPlan(filterOnly, store: c.store)
                var matched: [[String: Value]] = []
                for o in objects where try plan.matches(o) { matched.append(o) }
                let ran = try plan.run()
                let runIds = RandomCases.ids(ran.objects)
                let matchIds = RandomCases.ids(matched)
                // Without order keys only `near` reorders (nearest first).
                let sameOrder = plan.preservesInputOrder ? runIds == matchIds : runIds.sorted() == matchIds.sorted()
                if !sameOrder || ran.count != matched.count {
                    tally.fail(c, via, "run() and matches() disagree",
                               detail: "run: \(runIds) count \(ran.count ?? -1)\nmatches: \(matchIds)")
                }
                // The query with its paging: a window of the matches.
                let full = try QueryPlan(c.query, store: c.store).run()
                let fullIds = RandomCases.ids(full.objects)
                if !Set(fullIds).isSubset(of: Set(matchIds)) || (c.query.count != .none && full.count != matched.count) {
                    tally.fail(c, via, "run() returned a non-match or a wrong count",
                               detail: "run: \(fullIds) count \(full.count ?? -1)\nmatches: \(matchIds)")
                }
                tally.compared += 1
            } catch {
                tally.fail(c, via, "evaluation failed: \(error.rendered())")
            }
        }
        tally.finish("matches/run", self)
    }
}
