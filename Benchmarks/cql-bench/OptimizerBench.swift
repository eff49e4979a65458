import CQLEval
import CQLKit
import Foundation

// MARK: Optimizer: a redundant query evaluated as written and optimized;
// the corpus's where-JSON bytes as written and optimized.

/// A query as people (and query builders) write them: an `or` of equalities,
/// a negated equality beside inequalities, three lower bounds on one key,
/// a `like` and an anchored regexp. Optimized it is
/// `level in (1, 3, 5, 7, 9) and cheatMode not in (true, ...) ...`.
let redundantQuery = """
    select * from GameScore where (level = 1 or level = 3 or level = 5 or level = 7 or level = 9) \
    and not (name = 'dave') and name != 'erin' and name != 'frank' \
    and score > 100 and score > 200 and score >= 300 and (name like 'al%' or name regexp '^ca')
    """

func benchOptimizer(objects n: Int, root: String) throws {
    let objects = makeObjects(n)
    let bound = try Binder.bind(try CQLParser.parse(redundantQuery), parameters: [])
    let optimized = try Optimizer().optimize(bound)
    let asWritten = try QueryPlan(bound), rewritten = try QueryPlan(optimized.query)
    var a = 0, b = 0
    var tWritten = Double.infinity, tOptimized = Double.infinity
    let runs = 3
    for _ in 0..<runs {
        tWritten = min(tWritten, try seconds { a = try asWritten.run(over: objects).objects.count })
        tOptimized = min(tOptimized, try seconds { b = try rewritten.run(over: objects).objects.count })
    }
    precondition(a == b, "optimized and unoptimized plans disagree: \(a) vs \(b)")
    print("optimizer, a redundant query over \(n) in-memory objects (\(a) match), best of \(runs):")
    print("  as written   \(fmt(Double(n) / tWritten)) objects/s")
    print("  optimized    \(fmt(Double(n) / tOptimized)) objects/s (\(fmt(tWritten / tOptimized))x faster)")
    print("  rules: \(optimized.steps.map(\.rule).joined(separator: ", "))")
    print("  \(try CQLFormatter.format(optimized.query))")

    // Every single-line CQL / where-JSON / Usergrid query of the corpus that
    // translates both ways: total bytes of the where-JSON requests.
    var written = 0, smaller = 0, queries = 0, changed = 0
    for text in try allCorpusQueries(root: root) {
        let language = QueryLanguage.detect(text)
        guard let q = try? language.parse(text, className: "T", literal: false, limit: nil, cursor: nil),
              let bq = try? Binder.bind(q, parameters: [], now: DateValue(millisecondsSince1970: 0)),
              let plain = try? WhereJSONEmitter.emit(bq, dialect: .parse),
              let oq = try? Optimizer.optimize(bq),
              let opt = try? WhereJSONEmitter.emit(oq, dialect: .parse)
        else { continue }
        let x = JSONWriter.string(plain).utf8.count, y = JSONWriter.string(opt).utf8.count
        queries += 1
        written += x
        smaller += y
        if x != y { changed += 1 }
    }
    print("optimizer, where-JSON (parse dialect) of \(queries) corpus queries: \(written) bytes as written, \(smaller) optimized (\(fmt(100 * Double(written - smaller) / Double(written)))% smaller; \(changed) queries changed)")
}

/// The `query:` lines of every corpus area's cases (single-line ones).
func allCorpusQueries(root: String) throws -> [String] {
    var queries: [String] = []
    for area in ["cql", "where", "usergrid", "eval", "optimizer"] {
        let dir = root + "/Corpus/" + area
        for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where name.hasSuffix(".cases") {
            let text = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("query: ") { queries.append(String(line.dropFirst(7))) }
        }
    }
    return queries
}
