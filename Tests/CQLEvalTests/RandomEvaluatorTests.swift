import CorpusSupport
import Foundation
import XCTest

@testable import CQLEval
@testable import CQLKit

/// Random property tests of the evaluator against itself (``RandomCases``):
///
/// - a query rewritten into an equivalent form that takes other code paths
///   (``EquivalentForms``) gives the same results;
/// - the data written to NDJSON files and evaluated by `Evaluation.run`
///   (file loading, typed-value decoding, streaming) gives the same lines.
final class RandomEvaluatorTests: XCTestCase {
    func testEquivalentFormsEvaluateAlike() {
        var tally = Tally()
        RandomCases.forEach(&tally) { c, tally in
            let rewritten = EquivalentForms.rewrite(c.query)
            guard rewritten != c.query else { return }
            RandomCases.compare(c, rewritten, via: "equivalent form", text: nil, &tally)
        }
        tally.finish("equivalent forms", self)
    }

    func testFilesAndStreamingEvaluateAlike() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-random-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var tally = Tally()
        RandomCases.forEach(&tally, fraction: 0.25) { c, tally in
            let via = "NDJSON files"
            for (name, _) in c.dataset.collections {
                let text = c.dataset.ndjson(name) + "\n"
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name + ".ndjson").path, contents: Data(text.utf8))
            }
            var lines: [String] = []
            do throws(QueryError) {
                let count = try Evaluation.run(c.query, dataPath: dir.path) { lines.append($0) }
                tally.compared += 1
                let expected = c.expected.objects.map { JSONWriter.string(.object($0)) }
                if lines != expected || count != c.expected.count {
                    tally.fail(c, via, "results differ",
                               detail: "in memory: \(expected) count \(c.expected.count.map(String.init) ?? "-")\nfrom files: \(lines) count \(count.map(String.init) ?? "-")")
                }
            } catch {
                tally.fail(c, via, "evaluation failed: \(error.rendered())")
            }
        }
        tally.finish("files and streaming", self)
    }
}

/// Rewrites a condition into an equivalent one (EvaluationSemantics.md) that the
/// evaluator computes along other paths:
///
/// - `k in (a, b)` → `k = a or k = b` (hash sets vs pairwise equality), `not in`
///   → `not (...)`, `in ()` → `false`;
/// - `k <= v` → `k < v or k = v` and `k >= v` likewise, for `v` not null
///   (ranges vs equality: type brackets, number and object orders);
/// - `k <= null` and `k >= null` → `k = null`; `k < null`, `k > null` → `false`;
/// - `k != v` → `not (k = v)`; `k all (a, b)` → `k = a and k = b`;
/// - `within box` → `within polygon` of its four corners (both inclusive);
/// - `near p max r` (no minimum) → `$centerSphere [p, r radians]` when the
///   query has its own order (else `near` orders the results nearest first).
enum EquivalentForms {
    static func rewrite(_ q: Query) -> Query {
        var out = q
        out.condition = q.condition.map { rewrite($0, ordered: !q.order.isEmpty) }
        return out
    }

    static func rewrite(_ c: Condition, ordered: Bool) -> Condition {
        func again(_ c: Condition) -> Condition { rewrite(c, ordered: ordered) }
        switch c.predicate {
        case .and(let items): return Condition.and(items.map(again))
        case .or(let items): return Condition.or(items.map(again))
        case .not(let inner): return Condition.not(again(inner))
        case .in(let path, let terms, let negated):
            if terms.isEmpty { return Condition(.constant(negated)) }
            let any = Condition.or(terms.map { Condition(.compare(path, .equal, $0)) })
            return negated ? Condition.not(any) : any
        case .compare(let path, .lessThanOrEqual, let t) where t.value != .null:
            return Condition.or([Condition(.compare(path, .lessThan, t)), Condition(.compare(path, .equal, t))])
        case .compare(let path, .greaterThanOrEqual, let t) where t.value != .null:
            return Condition.or([Condition(.compare(path, .greaterThan, t)), Condition(.compare(path, .equal, t))])
        case .compare(let path, .lessThanOrEqual, .value(.null)), .compare(let path, .greaterThanOrEqual, .value(.null)):
            return Condition(.compare(path, .equal, .value(.null)))
        case .compare(_, .lessThan, .value(.null)), .compare(_, .greaterThan, .value(.null)):
            return Condition(.constant(false))
        case .compare(let path, .notEqual, let t):
            return Condition.not(Condition(.compare(path, .equal, t)))
        case .all(let path, let terms) where !terms.isEmpty:
            return Condition.and(terms.map { Condition(.compare(path, .equal, $0)) })
        case .withinBox(let path, .value(.geoPoint(let sw)), .value(.geoPoint(let ne))):
            let corners = [
                GeoPoint(latitude: sw.latitude, longitude: sw.longitude), GeoPoint(latitude: sw.latitude, longitude: ne.longitude),
                GeoPoint(latitude: ne.latitude, longitude: ne.longitude), GeoPoint(latitude: ne.latitude, longitude: sw.longitude),
            ]
            return Condition(.withinPolygon(path, corners.map { .value(.geoPoint($0)) }))
        case .near(let path, let point, nil, let maximum?) where ordered:
            guard let d = maximum.value.value?.numberValue else { return c }
            return Condition(.withinCenterSphere(path, center: point, radius: .value(.double(d / maximum.unit.earthRadius))))
        case .select(let path, let key, let query, let negated):
            return Condition(.select(path, key: key, query: rewrite(query), negated: negated))
        case .inQuery(let path, let query, let negated):
            return Condition(.inQuery(path, query: rewrite(query), negated: negated))
        default:
            return c
        }
    }
}
