import CQLEval
import CQLKit
@testable import CQLSQL
import CorpusSupport
import Foundation
import XCTest

/// Runs one query on the evaluator and on a database and says whether they
/// agree: the same objects (as `cql eval` prints them) in the same order,
/// the same count, or both an error of the same kind (the messages may
/// differ: the database's refusal is worded by its own layer).
struct Differential {
    /// Totals for the closing report.
    struct Tally {
        var queries = 0
        var rows = 0
        var exact = 0
        var prefiltered = 0
        /// Queries the optimizer rewrote, whose rewrite also ran on the database.
        var optimized = 0
        /// Queries on which both sides failed, with errors of the same kind.
        var errors = 0
        mutating func add(_ other: Tally) {
            queries += other.queries; rows += other.rows; exact += other.exact; prefiltered += other.prefiltered
            optimized += other.optimized; errors += other.errors
        }
    }

    enum Outcome: Equatable {
        case rows([String], count: Int?)
        case error(QueryError.Kind, String)
    }

    static func evaluator(_ query: Query, _ store: DocumentStore) -> Outcome {
        do throws(QueryError) {
            let r = try QueryPlan(query, store: store).run()
            return .rows(r.objects.map { JSONWriter.string(.object($0)) }, count: r.count)
        } catch {
            return .error(error.kind, error.message)
        }
    }

    /// The database's answer as `cql run` prints it (``SQLRunner/run(_:on:countOnly:source:writingTo:)``,
    /// which copies stored documents from their bytes when nothing reshapes
    /// them), checked against the objects ``SQLRunner/run(_:on:countOnly:source:presentTables:)``
    /// builds (what the server serves): a difference is a failure.
    static func database(_ query: Query, _ db: some SQLDatabaseWriter) -> (Outcome, SQLTranslation?) {
        do throws(QueryError) {
            var ndjson: [UInt8] = []
            let r = try SQLRunner.run(query, on: db, writingTo: &ndjson)
            let lines = ndjson.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
            let objects = try SQLRunner.run(query, on: db)
            let built = objects.objects.map { JSONWriter.string(.object($0)) }
            if db.dialect == .postgres, let reader = asyncReader, let failure = asyncDisagreement(query, reader, built: built, count: objects.count) {
                return (.rows([failure], count: -1), r.translation)
            }
            if built != lines || objects.count != r.count {
                // Rows no evaluator gives (nor its error), so the comparison fails.
                return (.rows(["run(writingTo:) wrote \(lines.count) lines, run() built \(built.count) objects: "
                        + "\(zip(lines, built).first { $0 != $1 }.map { "\($0.0) ≠ \($0.1)" } ?? "")"], count: -1), r.translation)
            }
            return (.rows(lines, count: r.count), r.translation)
        } catch {
            return (.error(error.kind, error.message), nil)
        }
    }

    /// On PostgreSQL, a connection read asynchronously (what `cql serve`
    /// reads through): every query the database answers alone is also run
    /// by ``SQLRunner/run(_:on:countOnly:source:)-(_,PostgreSQLReadConnection,_,_)``,
    /// whose objects and count must be those the synchronous run built.
    nonisolated(unsafe) static var asyncReader: PostgreSQLReadConnection?
    /// Queries the asynchronous path answered (and agreed on), and those it
    /// handed back to the synchronous one.
    nonisolated(unsafe) static var asyncAnswered = 0, asyncHandedBack = 0
    /// Queries also run with a limit added (their rows as one array).
    nonisolated(unsafe) static var asyncBounded = 0

    /// A description of how the asynchronous path disagrees, or nil.
    ///
    /// The query runs three times at once: on a reader of one lane, the
    /// first run takes the lane and the other two wait for it, then run as
    /// one coalesced statement (``PostgreSQLReadConnection``), so every
    /// query of the corpus is also answered coalesced, and each of its runs
    /// must get the synchronous answer. A query without a limit also runs
    /// twice at once with `limit 1000` added, when its answer is no longer
    /// (the same answer; its rows come as one array: ``PostgreSQLReadConnection``'s
    /// aggregated form).
    static func asyncDisagreement(_ query: Query, _ reader: PostgreSQLReadConnection, built: [String], count: Int?) -> String? {
        final class Box: @unchecked Sendable { var answers: [Result<SQLRunner.Result?, QueryError>] = [] }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(QueryError) {
                // It reads only tables that exist (a server checks first):
                // the synchronous run's stand-ins are its own session's.
                let present = try await reader.tableNames()
                // Relation keys resolved over the tables, as a server does before this path (which asks no catalog).
                let query = query.resolvingRelationKeys(hasTable: present.contains) ?? query
                if SQLRunner.tablesRead(by: query).isSubset(of: present) {
                    // A query without a limit also runs with one above its
                    // answer's size, which means the same: its rows then
                    // come as one array (a bounded page, as a server's finds).
                    var bounded: Query?
                    let bound = SQLRunner.maximumAggregatedRows
                    if query.limit == nil, built.count <= bound {
                        var q = query
                        q.limit = .value(.int(bound))
                        bounded = q
                    }
                    if bounded != nil { asyncBounded += 1 }
                    box.answers = await withTaskGroup(of: Result<SQLRunner.Result?, QueryError>.self) { group in
                        for q in [query, query, query] + (bounded.map { [$0, $0] } ?? []) {
                            group.addTask {
                                do throws(QueryError) { return .success(try await SQLRunner.run(q, on: reader)) } catch { return .failure(error) }
                            }
                        }
                        var all: [Result<SQLRunner.Result?, QueryError>] = []
                        for await a in group { all.append(a) }
                        return all
                    }
                }
            } catch {
                box.answers = [.failure(error)]
            }
            done.signal()
        }
        done.wait()
        var handedBack = false
        for answer in box.answers {
            switch answer {
            case .failure(let e): return "the asynchronous path failed where the synchronous one answered: \(e.message)"
            case .success(nil): handedBack = true
            case .success(let r?):
                let got = r.objects.map { JSONWriter.string(.object($0)) }
                if got != built || r.count != count {
                    return "the asynchronous path answered \(got.count) objects (count \(r.count.map(String.init) ?? "-")), the synchronous \(built.count) (count \(count.map(String.init) ?? "-"))"
                }
            }
        }
        if box.answers.isEmpty { return nil }
        if handedBack { asyncHandedBack += 1 } else { asyncAnswered += 1 }
        return nil
    }

    /// Compares the evaluator and the database on `query` and, when the
    /// optimizer rewrites it, on the rewrite too (the optimizer is on by
    /// default in `eval` and `run`; that the rewrite means the same as the
    /// original is OptimizerSoundnessTests' job, and a rewrite may lift a
    /// limit, e.g. a 500 KB `like` pattern becomes a prefix, which is no
    /// regex); returns a failure description or nil, and counts.
    static func compare(_ query: Query, store: DocumentStore, db: some SQLDatabaseWriter, tally: inout Tally) -> String? {
        let want = evaluator(query, store)
        if let failure = compare(want, query, db: db, tally: &tally) { return failure }
        guard let rewritten = try? Optimizer().optimize(query).query, rewritten != query else { return nil }
        tally.optimized += 1
        return compare(evaluator(rewritten, store), rewritten, db: db, tally: &tally).map { "optimized to \((try? CQLFormatter.format(rewritten)) ?? "?"): " + $0 }
    }

    /// On SQLite, twice: as `cql run` writes the SQL (the conjuncts no index
    /// serves in one `cql_match` call), and leaf by leaf as `translate`
    /// writes it, so that both forms stay the evaluator's.
    private static func compare(_ want: Outcome, _ query: Query, db: some SQLDatabaseWriter, tally: inout Tally) -> String? {
        if let failure = compareOnce(want, query, db: db, tally: &tally) { return failure }
        guard let sqlite = db as? SQLiteDatabase, sqlite.residualMatch else { return nil }
        sqlite.residualMatch = false
        defer { sqlite.residualMatch = true }
        return compareOnce(want, query, db: db, tally: &tally).map { "leaf by leaf (translate's SQL): " + $0 }
    }

    private static func compareOnce(_ want: Outcome, _ query: Query, db: some SQLDatabaseWriter, tally: inout Tally) -> String? {
        let (got, translation) = database(query, db)
        tally.queries += 1
        if let t = translation { if t.isExact { tally.exact += 1 } else { tally.prefiltered += 1 } }
        switch (want, got) {
        case (.error(let a, _), .error(let b, _)) where a == b:
            tally.errors += 1
            return nil
        case (.rows(let a, let ca), .rows(let b, let cb)):
            tally.rows += a.count
            if a == b && ca == cb { return nil }
            let sql = translation.map { "\n  sql: \($0.select.sql)\n  arguments: \(JSONWriter.string(.array($0.select.arguments)))" } ?? ""
            return "evaluator \(a.count) rows (count \(ca.map(String.init) ?? "-")), \(db.dialect.rawValue) \(b.count) rows (count \(cb.map(String.init) ?? "-"))"
                + "\n  evaluator: \(a.map(Self.id).joined(separator: ","))\n  database:  \(b.map(Self.id).joined(separator: ","))" + sql
        default:
            return "evaluator: \(want), \(db.dialect.rawValue): \(got)"
        }
    }

    static func id(_ line: String) -> String {
        guard let v = try? JSONReader.parse(line), case .string(let s)? = v["objectId"] else { return line }
        return s
    }
}
