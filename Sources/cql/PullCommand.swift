import ArgumentParser
import CQLEval
import CQLKit
import CQLSQL
import Foundation

/// `cql pull`: a live LeanCloud-compatible app copied through its REST API,
/// and copied again, only what changed, until the switch-over.
struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a live LeanCloud (or compatible) app into SQLite or PostgreSQL through its REST API; run again to bring only what changed.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            Reads the classes from /1.1/schemas and every object of each through /1.1/scan/classes/<Class> with the master key (requests signed as the SDKs sign them; a 429 or 5xx is retried with backoff), typed values intact, relations' rows through $relatedTo queries. Pages are stored as they come, with how far the pull got, so a pull stopped at any point resumes where it was.

            The database remembers the pull: the next run brings only the objects whose updatedAt is at or after the start of the last one (less --overlap seconds, a minute by default), and deletes the objects the source no longer has, so the final switch-over is a short read-only window. The REST API never returns _User's password hashes: load LeanCloud's export first, then pull; a pulled user keeps the password and salt already stored for it. A _File whose bytes cql files fetch copied keeps its local url and key while its source url is unchanged.

            The master key may come from CQL_SOURCE_MASTER_KEY (out of ps) instead of --master-key.

            Examples:
              cql load --sqlite app.db export/
              cql pull --from https://abc.lc-cn-n1-shared.com --app-id ID \\
                --master-key KEY --sqlite app.db
            """
    )

    @Option(name: .customLong("from"), help: "The app's API server: https://<host> (the part before /1.1).")
    var from: String

    @Option(name: .customLong("app-id"), help: "The app's id.")
    var appId: String

    @Option(name: .customLong("master-key"), help: "The app's master key (or CQL_SOURCE_MASTER_KEY).")
    var masterKey: String?

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("page-size"), help: "Objects a scan request asks (1 to 1000).")
    var pageSize = 1000

    @Option(help: "Classes to leave out, comma-separated.")
    var exclude: String?

    @Flag(help: "Pull everything again, whatever the last pull brought.")
    var full = false

    @Option(help: "Seconds before this pull's start that the next pull starts from (writes in flight, clocks apart).")
    var overlap = 60

    @Option(name: .customLong("indexes-from"), help: "The indexes the app had, made after the pull: a MongoDB dump's folder of <Class>.metadata.json (LeanCloud's backup export), or one such file (see `cql index --help`).")
    var indexesFrom: String?

    func validate() throws {
        if !(1...1000).contains(pageSize) { throw ValidationError("--page-size takes 1 to 1000.") }
        if overlap < 0 { throw ValidationError("--overlap takes 0 or more seconds.") }
        if !(from.hasPrefix("http://") || from.hasPrefix("https://")) { throw ValidationError("--from takes http://... or https://...") }
    }

    func run() throws {
        umask(0o077)
        guard let key = masterKey ?? ProcessInfo.processInfo.environment["CQL_SOURCE_MASTER_KEY"], !key.isEmpty else {
            throw CommandFailure("error: give the source's master key: --master-key KEY or CQL_SOURCE_MASTER_KEY", status: 2)
        }
        // Read first: a bad index file stops the pull before it starts.
        let exported = try indexesFrom.map { (path) throws(CommandFailure) in try ExportedIndexes.read(path: path) }
        let db = try database.open()
        let excluded = Set((exclude ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let puller = Puller(api: SourceAPI(base: from, appId: appId, masterKey: key), rows: UncheckedBox(StoredRows(db)),
                            pageSize: pageSize, excluded: excluded, full: full, overlap: overlap)
        let outcome = UncheckedBox(PullOutcome())
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                outcome.value.report = try await puller.run()
            } catch {
                outcome.value.failure = "\(error)"
            }
            await puller.api.shutdown()
            done.signal()
        }
        done.wait()
        puller.progress?.finish()
        if let failure = outcome.value.failure { throw CommandFailure("error: \(failure)") }
        guard let report = outcome.value.report else { return }
        for c in report.classes {
            var line = "\(c.name): \(TerminalProgress.grouped(c.pulled)) object\(c.pulled == 1 ? "" : "s")"
            if c.relations > 0 { line += ", \(TerminalProgress.grouped(c.relations)) relation row\(c.relations == 1 ? "" : "s")" }
            line += ", \(TerminalProgress.grouped(c.deleted)) deleted"
            if c.keptPasswords > 0 { line += ", \(c.keptPasswords) password hash\(c.keptPasswords == 1 ? "" : "es") kept" }
            Output.line(line)
        }
        let total = report.classes.reduce(0) { $0 + $1.pulled }
        Output.line("pulled \(TerminalProgress.grouped(total)) object\(total == 1 ? "" : "s") of \(report.classes.count) class\(report.classes.count == 1 ? "" : "es") (\(report.kind)); the next pull brings what changed since \(report.nextSince)")
        if let exported {
            do { _ = try db.addIndexes(exported) } catch { throw CommandFailure("error: " + error.message) }
        }
    }
}

/// What the pull task hands back to the waiting command.
final class PullOutcome: @unchecked Sendable {
    var report: Puller.Report?
    var failure: String?
}

/// The work of `cql pull`.
///
/// **State** — one row of the table `cql:pull` (a `:` in the name: no class,
/// no client route reaches it) per source (URL and app id): `since`, the
/// lower bound of the next delta (the source's clock at the start of the
/// last complete run, from `/1.1/date`, less ``overlap`` seconds for writes
/// in flight then and clocks apart), and `run` while a run is under way: its start, its
/// `since`, and per class how far it got (`after`: the last objectId
/// stored; `done`). Each page of objects is stored in the same transaction
/// as the progress it makes, so after a kill the next run goes on from the
/// last stored page.
///
/// **A class** is scanned in objectId order (`where objectId > after`, and
/// `updatedAt >= since` on a delta), `pageSize` objects a request, with
/// `returnACL=true`. Each object's Relation keys get their rows through
/// `$relatedTo` (owner's rows replaced). Then, when the table had objects
/// before the class was pulled this run, the source's objectIds are scanned
/// (`keys=objectId`) and the local objects missing there deleted, with
/// their join rows.
///
/// **Stored as LeanCloud stores them** — a File value that names its
/// `_File` keeps only its `id` (``storedForm(_:)``).
///
/// **Merges** — a `_User` keeps the `password` and `salt` stored for it
/// (LeanCloud's export has them; REST never returns them); a `_File` keeps
/// `url`, `key`, `source_url` and `source_key` when its `source_url` is the
/// url the source now gives (``FileFetch`` copied those bytes).
final class Puller: @unchecked Sendable {
    let api: SourceAPI
    let rows: UncheckedBox<StoredRows>
    let pageSize: Int
    let excluded: Set<String>
    let full: Bool
    /// Seconds before the run's start that the next delta starts at.
    let overlap: Int
    let queue = DispatchQueue(label: "cql.pull.db")
    let counter = PullCounter()
    let progress: TerminalProgress?
    static let stateTable = "cql:pull"

    init(api: SourceAPI, rows: UncheckedBox<StoredRows>, pageSize: Int, excluded: Set<String>, full: Bool, overlap: Int) {
        self.api = api
        self.rows = rows
        self.pageSize = pageSize
        self.excluded = excluded
        self.full = full
        self.overlap = overlap
        let counter = self.counter
        progress = TerminalProgress { counter.line() }
    }

    struct ClassReport {
        var name: String
        var pulled = 0
        var relations = 0
        var deleted = 0
        var keptPasswords = 0
    }

    struct Report {
        var classes: [ClassReport] = []
        var kind = "full"
        var nextSince = ""
    }

    var sourceId: String { "\(api.base)|\(api.appId)" }

    /// Runs `body` on the database's queue (its calls block).
    func onDatabase<T: Sendable>(_ body: @escaping @Sendable (StoredRows) throws -> T) async throws -> T {
        let rows = self.rows
        return try await withCheckedThrowingContinuation { c in
            queue.async {
                do { c.resume(returning: try body(rows.value)) } catch { c.resume(throwing: error) }
            }
        }
    }

    func run() async throws -> Report {
        var report = Report()
        let stateId = sourceId
        var state = try await onDatabase { rows in try Self.loadState(stateId, rows) }
        if full { state.run = nil; state.since = nil }
        if state.run == nil {
            let clock = try? await api.get("/1.1/date")
            let started: DateValue
            if case .date(let d)? = clock { started = d } else { started = DateValue.now }
            state.run = PullState.Run(started: ISODate.format(started), since: state.since, classes: [:])
            let saved = state
            try await onDatabase { rows in try rows.write { (s) throws(QueryError) in try Self.saveState(stateId, saved, s) } }
        }
        guard var run = state.run else { return report }
        report.kind = run.since == nil ? "full" : "changes since \(run.since!)"
        let schemas = try await api.get("/1.1/schemas")
        var classes: [String] = []
        if case .object(let o) = schemas {
            if case .array(let list)? = o["results"] {
                classes = list.compactMap { $0["className"]?.stringValue }
            } else {
                classes = Array(o.keys)
            }
        }
        classes = classes.filter { !excluded.contains($0) && !$0.contains(":") && !$0.isEmpty }.sorted()
        counter.classesTotal = classes.count
        for className in classes {
            var progress = run.classes[className] ?? PullState.ClassProgress()
            counter.className = className
            if progress.done {
                report.classes.append(ClassReport(name: className, pulled: progress.pulled, relations: progress.relations,
                                                  deleted: progress.deleted, keptPasswords: progress.keptPasswords))
                counter.classesDone += 1
                continue
            }
            if progress.after == nil && !progress.started {
                let name = className
                progress.hadRows = try await onDatabase { rows in try rows.count(name) > 0 }
                progress.started = true
            }
            var conditions: [Value] = []
            if let since = run.since { conditions.append(.object(["updatedAt": .object(["$gte": .object(["__type": "Date", "iso": .string(since)])])])) }
            let total = try? await api.get("/1.1/classes/\(className)", [("limit", "0"), ("count", "1")]
                + (conditions.isEmpty ? [] : [("where", JSONWriter.string(conditions[0]))]))
            if case .int(let n)? = total?["count"] { counter.startClass(total: Int(n), done: progress.pulled) } else { counter.startClass(total: nil, done: progress.pulled) }
            while true {
                var page = conditions
                if let after = progress.after { page.append(.object(["objectId": .object(["$gt": .string(after)])])) }
                var parameters = [("limit", String(pageSize)), ("returnACL", "true")]
                if !page.isEmpty { parameters.append(("where", JSONWriter.string(page.count == 1 ? page[0] : .object(["$and": .array(page)])))) }
                let answer = try await api.get("/1.1/scan/classes/\(className)", parameters)
                guard case .array(let results)? = answer["results"] else {
                    throw SourceAPI.Failure(description: "scan of \(className): no results in the answer")
                }
                let objects = results.compactMap { v -> [String: Value]? in if case .object(let o) = v { return o } else { return nil } }
                if objects.isEmpty { break }
                let relations = try await relationRows(objects, owner: className)
                guard case .string(let last)? = objects.last?["objectId"] else {
                    throw SourceAPI.Failure(description: "scan of \(className): an object without an objectId")
                }
                progress.after = last
                progress.pulled += objects.count
                progress.relations += relations.reduce(0) { $0 + $1.ids.count }
                run.classes[className] = progress
                var pageState = state
                pageState.run = run
                let saved = pageState
                let name = className
                let sid = stateId
                let kept = try await onDatabase { rows in
                    var kept = 0
                    try rows.write { (s) throws(QueryError) in
                        kept = try Self.store(objects, className: name, relations: relations, rows: rows, in: s)
                        try Self.saveState(sid, saved, s)
                    }
                    return kept
                }
                if kept > 0 {
                    progress.keptPasswords += kept
                    run.classes[className] = progress
                }
                counter.add(objects.count)
                self.progress?.tick()
                if objects.count < pageSize { break }
            }
            if progress.hadRows {
                progress.deleted += try await deleteMissing(className)
            }
            progress.done = true
            run.classes[className] = progress
            var finished = state
            finished.run = run
            let saved = finished
            let sid = stateId
            try await onDatabase { rows in try rows.write { (s) throws(QueryError) in try Self.saveState(sid, saved, s) } }
            report.classes.append(ClassReport(name: className, pulled: progress.pulled, relations: progress.relations,
                                              deleted: progress.deleted, keptPasswords: progress.keptPasswords))
            counter.classesDone += 1
        }
        // The run is complete: the next one starts from its start, less the margin.
        let started = ISODate.parse(run.started) ?? DateValue.now
        state.since = ISODate.format(DateValue(millisecondsSince1970: started.millisecondsSince1970 - Int64(overlap) * 1000))
        state.run = nil
        report.nextSince = state.since!
        let final = state
        let sid = stateId
        try await onDatabase { rows in try rows.write { (s) throws(QueryError) in try Self.saveState(sid, final, s) } }
        return report
    }

    /// The related objectIds of each Relation key of these objects.
    func relationRows(_ objects: [[String: Value]], owner: String) async throws -> [(table: String, owner: String, ids: [String])] {
        var asks: [(table: String, owner: String, key: String, target: String)] = []
        for o in objects {
            guard case .string(let id)? = o["objectId"] else { continue }
            for (key, value) in o.sorted(by: { $0.key < $1.key }) {
                if case .relation(let target) = value { asks.append(("_Join:\(key):\(owner)", id, key, target)) }
            }
        }
        if asks.isEmpty { return [] }
        return try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            var results = [[String]](repeating: [], count: asks.count)
            var next = 0
            func start() {
                guard next < asks.count else { return }
                let i = next, a = asks[i]
                next += 1
                group.addTask { (i, try await self.related(owner: owner, objectId: a.owner, key: a.key, target: a.target)) }
            }
            for _ in 0..<8 { start() }
            while let (i, ids) = try await group.next() {
                results[i] = ids
                start()
            }
            return asks.enumerated().map { (table: $0.element.table, owner: $0.element.owner, ids: results[$0.offset]) }
        }
    }

    /// The objectIds a Relation holds (`$relatedTo`, a thousand a request).
    func related(owner: String, objectId: String, key: String, target: String) async throws -> [String] {
        let condition: Value = .object(["$relatedTo": .object([
            "object": .object(["__type": "Pointer", "className": .string(owner), "objectId": .string(objectId)]), "key": .string(key),
        ])])
        var ids: [String] = []
        while true {
            let answer = try await api.get("/1.1/classes/\(target)", [
                ("where", JSONWriter.string(condition)), ("keys", "objectId"), ("order", "objectId"), ("limit", "1000"), ("skip", String(ids.count)),
            ])
            guard case .array(let results)? = answer["results"] else { break }
            ids += results.compactMap { $0["objectId"]?.stringValue }
            if results.count < 1000 { break }
        }
        return ids
    }

    /// Deletes the local objects of `className` the source no longer has.
    func deleteMissing(_ className: String) async throws -> Int {
        var source = Set<String>()
        var cursor: String?
        repeat {
            var parameters = [("limit", "1000"), ("keys", "objectId")]
            if let cursor { parameters.append(("cursor", cursor)) }
            let answer = try await api.get("/1.1/scan/classes/\(className)", parameters)
            guard case .array(let results)? = answer["results"] else { break }
            for r in results { if let id = r["objectId"]?.stringValue { source.insert(id) } }
            cursor = answer["cursor"]?.stringValue
        } while cursor != nil
        let name = className
        let found = source
        return try await onDatabase { rows in
            let local = try rows.objectIds(of: name)
            let gone = local.filter { !found.contains($0) }
            if gone.isEmpty { return 0 }
            let joins = try rows.tables().joins.filter { $0.hasSuffix(":" + name) }
            try rows.write { (s) throws(QueryError) in try StoredRows.delete(gone, className: name, joins: joins, in: s) }
            return gone.count
        }
    }

    /// Stores a page: each object replaced or added (merged with what is
    /// stored for `_User` and `_File`), its relations' rows replaced.
    /// Returns the users whose password hash was kept.
    static func store(_ objects: [[String: Value]], className: String, relations: [(table: String, owner: String, ids: [String])],
                      rows: StoredRows, in s: any SQLWriteSession) throws(QueryError) -> Int {
        try s.createTable(className)
        var existing: [String: [String: Value]] = [:]
        if className == "_User" || className == "_File" {
            existing = try rows.objects(objects.compactMap { $0["objectId"]?.stringValue }, in: className, session: s)
        }
        var kept = 0
        for var o in objects {
            guard case .string(let id)? = o["objectId"] else { continue }
            for (k, v) in o { o[k] = storedForm(v) }
            if let old = existing[id] {
                if className == "_User" {
                    var keeps = false
                    for k in ["password", "salt"] where o[k] == nil {
                        if let v = old[k] { o[k] = v; keeps = true }
                    }
                    if keeps { kept += 1 }
                } else if className == "_File", let source = old["source_url"], o["url"] == source {
                    for k in ["url", "key", "source_url", "source_key"] { if let v = old[k] { o[k] = v } }
                }
            }
            try StoredRows.upsert(id, json: JSONWriter.string(.object(o)), className: className, in: s)
        }
        for r in relations { try StoredRows.replaceJoinRows(r.table, owningId: r.owner, relatedIds: r.ids, in: s) }
        return kept
    }

    /// A value as stored: a File that names its `_File` kept as the
    /// reference the SDKs save (`{"__type":"File","id":...}`), without the
    /// `name` and `url` the REST answer expanded it with from that `_File`
    /// (LeanCloud stores a reference; the server expands it on the way out).
    static func storedForm(_ v: Value) -> Value {
        switch v {
        case .file(let f) where f.id != nil: return .file(FileReference(id: f.id))
        case .array(let items): return .array(items.map(storedForm))
        case .object(let o): return .object(o.mapValues(storedForm))
        default: return v
        }
    }

    static func loadState(_ id: String, _ rows: StoredRows) throws -> PullState {
        guard let text = try rows.objects([id], in: stateTable)[id] else { return PullState() }
        return PullState(try DataFiles.object(json: text))
    }

    static func saveState(_ id: String, _ state: PullState, _ s: any SQLWriteSession) throws(QueryError) {
        try s.createTable(stateTable)
        var o = state.value
        o["objectId"] = .string(id)
        try StoredRows.upsert(id, json: JSONWriter.string(.object(o)), className: stateTable, in: s)
    }
}

/// What a database remembers of pulls from one source (``Puller``).
struct PullState: Sendable {
    var since: String?
    var run: Run?

    struct Run: Sendable {
        var started: String
        var since: String?
        var classes: [String: ClassProgress]
    }

    struct ClassProgress: Sendable {
        var started = false
        var hadRows = false
        var after: String?
        var done = false
        var pulled = 0
        var relations = 0
        var deleted = 0
        var keptPasswords = 0
    }

    init() {}

    init(_ o: [String: Value]) {
        since = o["since"]?.stringValue
        if case .object(let r)? = o["run"], case .string(let started)? = r["started"] {
            var classes: [String: ClassProgress] = [:]
            if case .object(let cs)? = r["classes"] {
                for (name, v) in cs {
                    var p = ClassProgress()
                    p.started = v["started"] == .bool(true)
                    p.hadRows = v["hadRows"] == .bool(true)
                    p.after = v["after"]?.stringValue
                    p.done = v["done"] == .bool(true)
                    func int(_ k: String) -> Int { if case .int(let n)? = v[k] { return Int(n) } else { return 0 } }
                    p.pulled = int("pulled")
                    p.relations = int("relations")
                    p.deleted = int("deleted")
                    p.keptPasswords = int("keptPasswords")
                    classes[name] = p
                }
            }
            run = Run(started: started, since: r["since"]?.stringValue, classes: classes)
        }
    }

    var value: [String: Value] {
        var o: [String: Value] = [:]
        if let since { o["since"] = .string(since) }
        if let run {
            var classes: [String: Value] = [:]
            for (name, p) in run.classes {
                var c: [String: Value] = ["started": .bool(p.started), "hadRows": .bool(p.hadRows), "done": .bool(p.done), "pulled": .int(Int64(p.pulled)),
                                          "relations": .int(Int64(p.relations)), "deleted": .int(Int64(p.deleted)),
                                          "keptPasswords": .int(Int64(p.keptPasswords))]
                if let after = p.after { c["after"] = .string(after) }
                classes[name] = .object(c)
            }
            var r: [String: Value] = ["started": .string(run.started), "classes": .object(classes)]
            if let since = run.since { r["since"] = .string(since) }
            o["run"] = .object(r)
        }
        return o
    }
}

/// The pull's figures for its progress line.
final class PullCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var _className = ""
    private var classTotal: Int?
    private var classDone = 0
    private var objects = 0
    var classesTotal = 0
    var classesDone = 0
    let started = TerminalProgress.now()

    var className: String {
        get { lock.withLock { _className } }
        set { lock.withLock { _className = newValue } }
    }

    func startClass(total: Int?, done: Int) { lock.withLock { classTotal = total; classDone = done } }
    func add(_ n: Int) { lock.withLock { classDone += n; objects += n } }

    /// `Comment (3 of 7 classes): 12,000 of 40,000 objects, 4,100 objects/s`.
    func line() -> String {
        lock.withLock {
            let seconds = TerminalProgress.now() - started
            let rate = seconds > 0 ? Double(objects) / seconds : 0
            var text = "\(_className) (\(classesDone + 1) of \(classesTotal) classes): \(TerminalProgress.grouped(classDone))"
            if let classTotal { text += " of \(TerminalProgress.grouped(classTotal))" }
            text += " objects, \(TerminalProgress.grouped(Int(rate))) objects/s"
            return text
        }
    }
}
