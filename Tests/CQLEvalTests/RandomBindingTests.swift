import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval
@testable import CQLKit

/// Random property tests of placeholders and the binder (``RandomCases``):
/// some constants of a query are turned into `?` (``Placeholders``), the
/// query is written as CQL and parsed back, and binding the values gives
/// the original query again (up to ``CQLRoundTrip``'s normalizations) with
/// the same results. Binding a query without placeholders changes nothing
/// either.
final class RandomBindingTests: XCTestCase {
    func testBindingPlaceholdersGivesTheQueryBack() {
        var tally = Tally()
        RandomCases.forEach(&tally) { c, tally in
            let via = "CQL with placeholders"
            var rng = SplitMix64(seed: c.seed ^ 0xB1D)
            let (withPlaceholders, values) = Placeholders.extract(c.query, using: &rng)
            let text: String
            do throws(QueryError) {
                text = try CQLFormatter.format(withPlaceholders)
            } catch where error.kind == .unsupported {
                tally.unsupported[via, default: 0] += 1
                return
            } catch {
                tally.fail(c, via, "format failed: \(error.rendered())")
                return
            }
            let bound: Query
            do throws(QueryError) {
                bound = try Binder.bind(try CQLParser.parse(text), parameters: values)
            } catch {
                tally.fail(c, via, "parse and bind failed: \(error.rendered())", text: text,
                           detail: "parameters: \(JSONWriter.string(.array(values)))")
                return
            }
            RandomCases.compare(c, bound, via: via, text: text, &tally)
            let expected = Placeholders.boundForm(CQLRoundTrip.normalized(c.query))
            if bound != expected {
                tally.fail(c, via, "the bound AST is not the query", text: text,
                           detail: "parameters: \(JSONWriter.string(.array(values)))\nexpected AST:\n\(ASTPrinter.describe(expected))\nbound AST:\n\(ASTPrinter.describe(bound))")
            }
        }
        tally.finish("placeholders", self)
    }

    func testBindingWithoutPlaceholdersKeepsTheResults() {
        var tally = Tally()
        RandomCases.forEach(&tally) { c, tally in
            do throws(QueryError) {
                let bound = try Binder.bind(c.query, parameters: [])
                RandomCases.compare(c, bound, via: "bound", text: nil, &tally)
            } catch {
                tally.fail(c, "bound", "bind failed: \(error.rendered())")
            }
        }
        tally.finish("binding", self)
    }
}

/// Turns some constants of a query into placeholders, numbered in the order
/// the CQL formatter writes them (condition left to right, subqueries
/// inline, then `skip` and `limit`), and returns their values.
enum Placeholders {
    /// What the binder does to a bound regex pattern: it lifts a leading
    /// `(?imsx)` group into the options once more (`'(?x)(?i)^d'` parses to
    /// `(?i)^d` with `x` and binds to `^d` with `ix`); the meaning is the same.
    static func boundForm(_ q: Query) -> Query {
        var out = q
        out.condition = q.condition.map(boundForm)
        return out
    }

    static func boundForm(_ c: Condition) -> Condition {
        switch c.predicate {
        case .and(let items): return Condition(.and(items.map(boundForm)))
        case .or(let items): return Condition(.or(items.map(boundForm)))
        case .not(let inner): return Condition(.not(boundForm(inner)))
        case .regex(let path, .value(.string(let pattern)), let options):
            let lifted = OperandChecks.liftRegexOptions(pattern)
            return Condition(.regex(path, pattern: .value(.string(lifted.pattern)), options: OperandChecks.mergeOptions(options, lifted.options)))
        case .select(let path, let key, let q, let negated): return Condition(.select(path, key: key, query: boundForm(q), negated: negated))
        case .inQuery(let path, let q, let negated): return Condition(.inQuery(path, query: boundForm(q), negated: negated))
        default: return c
        }
    }

    static func extract(_ q: Query, using rng: inout SplitMix64) -> (Query, [Value]) {
        var values: [Value] = []
        let out = query(q, &values, &rng)
        return (out, values)
    }

    private static func query(_ q: Query, _ values: inout [Value], _ rng: inout SplitMix64) -> Query {
        var out = q
        out.condition = q.condition.map { condition($0, &values, &rng) }
        if q.limit != nil {
            out.skip = q.skip.map { term($0, &values, &rng) }
            out.limit = q.limit.map { term($0, &values, &rng) }
        }
        return out
    }

    private static func term(_ t: Term, _ values: inout [Value], _ rng: inout SplitMix64) -> Term {
        guard case .value(let v) = t, rng.chance(0.5) else { return t }
        values.append(v)
        return .placeholder(index: values.count - 1, range: nil)
    }

    private static func condition(_ c: Condition, _ values: inout [Value], _ rng: inout SplitMix64) -> Condition {
        func terms(_ ts: [Term]) -> [Term] { ts.map { term($0, &values, &rng) } }
        let p: CQLKit.Predicate
        switch c.predicate {
        case .and(let items): p = .and(items.map { condition($0, &values, &rng) })
        case .or(let items): p = .or(items.map { condition($0, &values, &rng) })
        case .not(let inner): p = .not(condition(inner, &values, &rng))
        case .compare(let path, let op, let t): p = .compare(path, op, term(t, &values, &rng))
        case .in(let path, let ts, let negated): p = .in(path, terms(ts), negated: negated)
        case .all(let path, let ts): p = .all(path, terms(ts))
        case .size(let path, let t): p = .size(path, term(t, &values, &rng))
        // CQL writes options only on a constant pattern.
        case .regex(let path, let t, let options) where options.isEmpty: p = .regex(path, pattern: term(t, &values, &rng), options: options)
        case .like(let path, let t): p = .like(path, pattern: term(t, &values, &rng))
        case .near(let path, let point, let lo, let hi):
            let pt = term(point, &values, &rng)
            // Meters have no CQL unit: the formatter converts constants only.
            func bound(_ d: Distance?) -> Distance? {
                guard let d, d.unit != .meters else { return d }
                return Distance(term(d.value, &values, &rng), d.unit)
            }
            let a = bound(lo)
            p = .near(path, point: pt, min: a, max: bound(hi))
        case .withinBox(let path, let sw, let ne):
            let a = term(sw, &values, &rng)
            p = .withinBox(path, southwest: a, northeast: term(ne, &values, &rng))
        case .relatedTo(let object, let key): p = .relatedTo(object: term(object, &values, &rng), key: key)
        case .select(let path, let key, let q, let negated): p = .select(path, key: key, query: query(q, &values, &rng), negated: negated)
        case .inQuery(let path, let q, let negated): p = .inQuery(path, query: query(q, &values, &rng), negated: negated)
        default: p = c.predicate
        }
        return Condition(p, range: c.range)
    }
}
