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
/// A form that cannot express a query (`.unsupported`) is counted, not a
/// failure. Every failure prints the case seed, the query, the data and both
/// results. Reproduce one case with `FUZZ_SEED=0x… swift test --filter
/// RandomDifferentialTests`; `FUZZ_N` sets the number of cases per property.
final class RandomDifferentialTests: XCTestCase {
    /// Cases per property (about 1 s each in a debug build on 2 cores).
    static let defaultCases = 1500
    static let baseSeed: UInt64 = 0xC0FF_EE15_600D_CAFE

    // MARK: Properties

    func testWhereJSONTranslationsEvaluateAlike() {
        var tally = Tally()
        forEachCase(&tally) { c, tally in
            for dialect in WhereJSONDialect.allCases {
                let via = "where-JSON (\(dialect.rawValue))"
                let text: String
                do throws(QueryError) {
                    text = JSONWriter.string(try WhereJSONEmitter.emit(c.query, dialect: dialect))
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
                compare(c, back, via: via, text: text, &tally)
            }
        }
        tally.finish("where-JSON", self)
    }

    func testCQLRoundTripEvaluatesAlikeAndKeepsTheAST() {
        var tally = Tally()
        forEachCase(&tally) { c, tally in
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
            compare(c, back, via: via, text: text, &tally)
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
        forEachCase(&tally) { c, tally in
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
                compare(c, back, via: via, text: text, &tally)
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
        forEachCase(&tally) { c, tally in
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
                let runIds = ids(ran.objects)
                let matchIds = ids(matched)
                // Without order keys only `near` reorders (nearest first).
                let sameOrder = plan.preservesInputOrder ? runIds == matchIds : runIds.sorted() == matchIds.sorted()
                if !sameOrder || ran.count != matched.count {
                    tally.fail(c, via, "run() and matches() disagree",
                               detail: "run: \(runIds) count \(ran.count ?? -1)\nmatches: \(matchIds)")
                }
                // The query with its paging: a window of the matches.
                let full = try QueryPlan(c.query, store: c.store).run()
                let fullIds = ids(full.objects)
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

    // MARK: Cases

    struct Case {
        var seed: UInt64
        var dataset: RandomDataset
        var query: Query
        var store: DocumentStore
        var expected: QueryResult
    }

    /// Runs `body` over the seeded cases (or the one in `FUZZ_SEED`).
    private func forEachCase(_ tally: inout Tally, _ body: (Case, inout Tally) -> Void) {
        let env = ProcessInfo.processInfo.environment
        var seeds: [UInt64] = []
        if let text = env["FUZZ_SEED"], let seed = UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) {
            seeds = [seed]
        } else {
            let n = env["FUZZ_N"].flatMap { Int($0) } ?? Self.defaultCases
            var master = SplitMix64(seed: Self.baseSeed)
            seeds = (0..<n).map { _ in master.next() }
        }
        for seed in seeds {
            guard !tally.full else { break }
            var generator = RandomQueries(seed: seed)
            let dataset = generator.dataset()
            let query = generator.query(dataset)
            let store = DocumentStore(dataset.collections)
            var c = Case(seed: seed, dataset: dataset, query: query, store: store, expected: QueryResult(objects: []))
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

    /// Evaluates `translated` and compares it with the original's results.
    private func compare(_ c: Case, _ translated: Query, via: String, text: String, _ tally: inout Tally) {
        let got: QueryResult
        do throws(QueryError) {
            got = try QueryPlan(translated, store: c.store).run()
        } catch {
            tally.fail(c, via, "evaluating the translation failed: \(error.rendered())", text: text,
                       detail: "translated AST:\n\(ASTPrinter.describe(translated))")
            return
        }
        tally.compared += 1
        if got.objects != c.expected.objects || got.count != c.expected.count {
            tally.fail(c, via, "results differ", text: text,
                       detail: """
                       translated AST:
                       \(ASTPrinter.describe(translated))
                       original:   \(ids(c.expected.objects)) count \(c.expected.count.map(String.init) ?? "-")
                       translation: \(ids(got.objects)) count \(got.count.map(String.init) ?? "-")
                       """)
        }
    }

    private func ids(_ objects: [[String: Value]]) -> [String] {
        objects.map { $0["objectId"]?.stringValue ?? JSONWriter.string(.object($0)) }
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

    mutating func fail(_ c: RandomDifferentialTests.Case, _ via: String, _ message: String, text: String? = nil, detail: String? = nil) {
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
