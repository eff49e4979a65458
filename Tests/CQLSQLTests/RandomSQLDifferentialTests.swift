import CQLEval
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// Seeded random queries over seeded random data (``RandomQueries``: mixed
/// types, nulls, missing keys, nested arrays, Unicode, points, typed values,
/// order/skip/limit, subqueries, relations) on the evaluator and on SQLite.
/// A disagreement is shrunk (fewer objects, a smaller condition) and printed
/// as a reproducible case. `FUZZ_SEED=0x…` runs one case, `FUZZ_N` sets the
/// number of cases (default 2000).
final class RandomSQLDifferentialTests: XCTestCase {
    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let text = env["FUZZ_SEED"], let seed = UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) {
            return [seed]
        }
        let n = env["FUZZ_N"].flatMap { Int($0) } ?? 2000
        var master = SplitMix64(seed: 0x5153_4C5F_4449_4646)
        return (0..<n).map { _ in master.next() }
    }

    func testRandomQueriesOnSQLite() throws {
        let tally = try Self.run("SQLite", keepNUL: { $0 % 4 == 0 }) { try SQLiteDatabase(path: nil) }
        if Self.seeds.count > 1 { XCTAssertGreaterThanOrEqual(tally.queries, 2000) }
    }

    /// Runs the seeded cases on a database (`fresh`: an empty one); data
    /// keeps its NUL strings only where `keepNUL(seed)` says so (SQLite's
    /// JSON functions cut strings at NUL, so such data is re-checked row by
    /// row; elsewhere NUL becomes U+0001 so that the SQL itself is compared;
    /// PostgreSQL's jsonb cannot hold NUL at all).
    static func run<DB: SQLDatabaseWriter>(_ name: String, keepNUL: (UInt64) -> Bool, fresh: () throws -> DB) throws -> Differential.Tally {
        var tally = Differential.Tally()
        var failures = 0
        for seed in seeds {
            var generator = RandomQueries(seed: seed)
            let data = generator.dataset()
            let query = generator.query(data)
            let collections = keepNUL(seed) ? data.collections : data.collections.mapValues { $0.map(Self.withoutNUL) }
            guard let failure = try disagreement(query, collections, fresh, &tally) else { continue }
            failures += 1
            let (q, shrunk, message) = try shrink(query, collections, fresh, failure)
            XCTFail(report(name, seed: seed, q, shrunk, message))
            if failures >= 5 { break }
        }
        print("random queries on \(name): \(tally.queries) queries, \(tally.rows) rows compared; \(tally.exact) exact in SQL, \(tally.prefiltered) prefiltered and re-checked; \(tally.optimized) also run as the optimizer rewrote them; \(tally.errors) failed on both sides with the same kind of error")
        return tally
    }

    static func withoutNUL(_ o: [String: Value]) -> [String: Value] {
        func clean(_ v: Value) -> Value {
            switch v {
            case .string(let s) where s.utf8.contains(0): return .string(String(s.map { $0 == "\0" ? "\u{1}" : $0 }))
            case .array(let items): return .array(items.map(clean))
            case .object(let o): return .object(o.mapValues(clean))
            default: return v
            }
        }
        return o.mapValues(clean)
    }

    static func disagreement<DB: SQLDatabaseWriter>(
        _ q: Query, _ collections: [String: [[String: Value]]], _ fresh: () throws -> DB, _ tally: inout Differential.Tally
    ) throws -> String? {
        let db = try fresh()
        for (name, objects) in collections.sorted(by: { $0.key < $1.key }) { try db.insert(objects, into: name) }
        return Differential.compare(q, store: DocumentStore(collections), db: db, tally: &tally)
    }

    /// Drops objects and condition parts while the disagreement stays.
    static func shrink<DB: SQLDatabaseWriter>(
        _ query: Query, _ collections: [String: [[String: Value]]], _ fresh: () throws -> DB, _ failure: String
    ) throws -> (Query, [String: [[String: Value]]], String) {
        var q = query, data = collections, message = failure
        var scratch = Differential.Tally()
        var changed = true
        while changed {
            changed = false
            for name in data.keys.sorted() {
                var i = 0
                while i < (data[name]?.count ?? 0) {
                    var smaller = data
                    smaller[name]!.remove(at: i)
                    if let m = try disagreement(q, smaller, fresh, &scratch) {
                        data = smaller; message = m; changed = true
                    } else {
                        i += 1
                    }
                }
            }
            if let c = q.condition {
                for part in parts(c) {
                    var smaller = q
                    smaller.condition = part
                    if let m = try disagreement(smaller, data, fresh, &scratch) {
                        q = smaller; message = m; changed = true
                        break
                    }
                }
            }
        }
        return (q, data, message)
    }

    static func parts(_ c: Condition) -> [Condition] {
        switch c.predicate {
        case .and(let items), .or(let items): return items
        case .not(let inner): return [inner]
        default: return []
        }
    }

    static func report(_ name: String, seed: UInt64, _ q: Query, _ data: [String: [[String: Value]]], _ message: String) -> String {
        let text = (try? CQLFormatter.format(q)) ?? ASTPrinter.describe(q)
        var out = "\(name) disagrees with the evaluator (FUZZ_SEED=0x\(String(seed, radix: 16)) swift test --filter \(name == "SQLite" ? "RandomSQLDifferentialTests" : "PostgreSQLTests")), shrunk to:\n"
        out += "query: \(text)\n"
        for (name, objects) in data.sorted(by: { $0.key < $1.key }) {
            out += "\(name).ndjson:\n" + objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n") + "\n"
        }
        return out + message
    }
}
