import ArgumentParser
import CQLEval
import CQLKit
import CQLServer
import CQLSQL
import Foundation

/// `cql files`: the bytes of an app's `_File` objects.
struct Files: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the bytes of every _File into the server's own file store.",
        subcommands: [FilesFetch.self]
    )
}

/// `cql files fetch`: every `_File`'s bytes from its URL (LeanCloud's file
/// domains, which stop answering on 2027-01-12) into the directory `cql
/// serve` serves files from.
struct FilesFetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download every _File's bytes from its url into the files directory cql serve serves, verified and resumable.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            Each file is written aside, checked against metaData.size and metaData._checksum (MD5) when the object has them, and only then renamed into place, so an interrupted or failed download never leaves a partial file: run it again and it fetches only what is missing or failed. Progress shows on standard error when it is a terminal; a line per failed file names the reason; the exit status is 1 if any failed.

            A copied file's object then says where this server has it: url becomes /files/<key> (cql serve answers it as <origin>/files/<key>, --public-url or the request's host), key a key of the server's own, and source_url and source_key keep LeanCloud's url and key.

            --find-urls then lists the strings elsewhere in the data that equal an old file url (avatars and images saved as plain strings); --rewrite-urls --public-url URL replaces them with the new URLs.

            Examples:
              cql files fetch --sqlite app.db
              cql files fetch --sqlite app.db --jobs 32 --find-urls
              cql files fetch --postgres URL --files /srv/files \\
                --rewrite-urls --public-url https://api.example.com
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("files"), help: "The files directory (default: what cql serve uses: <sqlite file>.files, with PostgreSQL ./cql-files).")
    var files: String?

    @Option(help: "Downloads at once.")
    var jobs = 8

    @Flag(name: .customLong("find-urls"), help: "List the plain strings in other classes that equal a copied file's old url.")
    var findURLs = false

    @Flag(name: .customLong("rewrite-urls"), help: "Replace those strings with the file's new URL (needs --public-url).")
    var rewriteURLs = false

    @Option(name: .customLong("public-url"), help: "The scheme and host cql serve is reached at (https://api.example.com): new URLs for --rewrite-urls.")
    var publicURL: String?

    func validate() throws {
        if jobs < 1 || jobs > 1024 { throw ValidationError("--jobs takes 1 to 1024.") }
        if rewriteURLs && publicURL == nil { throw ValidationError("--rewrite-urls needs --public-url (plain strings are not resolved by the server).") }
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw ValidationError("--public-url takes http://... or https://...")
        }
    }

    var directory: String {
        files ?? CQLServer.Configuration.defaultFilesDirectory(for: database.postgres.map { .postgres(url: $0) } ?? .sqlite(path: database.sqlite ?? "cql.db"))
    }

    func run() throws {
        umask(0o077)
        let db = try database.open()
        let rows = StoredRows(db)
        let dir = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        do {
            _ = try FileStore(directory: dir)
        } catch {
            throw CommandFailure("error: cannot make the files directory \(dir): \(error)")
        }
        let fetch = FileFetch(rows: rows, directory: dir, jobs: jobs)
        let report: FileFetch.Report
        do {
            report = try fetch.run()
        } catch {
            throw CommandFailure("error: " + error.message)
        }
        for f in report.failed { Output.line("failed \(f.objectId) \(f.url): \(f.reason)") }
        var summary = "copied \(report.copied) file\(report.copied == 1 ? "" : "s") (\(TerminalProgress.bytes(report.bytes)))"
        if report.unverified > 0 { summary += ", \(report.unverified) without size or checksum to check" }
        summary += ", \(report.present) already present, \(report.failed.count) failed"
        Output.line(summary)
        if findURLs || rewriteURLs {
            let strings: URLStrings.Report
            do {
                strings = try URLStrings(rows: rows, publicURL: publicURL).run(rewrite: rewriteURLs)
            } catch {
                throw CommandFailure("error: " + error.message)
            }
            for h in strings.hits { Output.line("url \(h.className) \(h.objectId) \(h.path): \(h.old) -> \(h.new)") }
            let counted = "\(strings.hits.count) url string\(strings.hits.count == 1 ? "" : "s") in \(strings.objects) object\(strings.objects == 1 ? "" : "s")"
            Output.line(rewriteURLs ? "rewrote \(counted)" : "found \(counted)" + (strings.hits.isEmpty ? "" : " (--rewrite-urls --public-url URL replaces them)"))
        }
        Output.flush()
        if !report.failed.isEmpty { throw CommandFailure("error: \(report.failed.count) file\(report.failed.count == 1 ? "" : "s") not copied (run cql files fetch again to retry)") }
    }
}

/// The work of `cql files fetch` on one database and files directory.
///
/// 1. **Plan**: every `_File` is read. One whose `key` is a key of the
///    server's shape (``FileStore/isKey(_:)``) and whose bytes are in the
///    directory is present. Any other gets, in one transaction before any
///    download, the key its bytes will have (a new one unless it has the
///    server's shape already), `source_key` (its old key) and `source_url`
///    (where the bytes are: its `url`): so a run stopped at any point
///    resumes with the same keys, and finds a file renamed into place as
///    present.
/// 2. **Download** (``FileDownloads``), `jobs` at a time.
/// 3. Each copied file's `url` becomes `/files/<key>` (a few hundred objects
///    a transaction, after the directory is synced); `createdAt` and
///    `updatedAt` stay LeanCloud's: the move is not a change by the app.
struct FileFetch {
    let rows: StoredRows
    let directory: String
    let jobs: Int

    struct Failure {
        var objectId: String
        var url: String
        var reason: String
    }

    struct Report {
        var copied = 0
        var bytes = 0
        var unverified = 0
        var present = 0
        var failed: [Failure] = []
    }

    /// `/files/<key>`: the url of a file this server has.
    static func localURL(_ key: String) -> String { "/files/" + key }

    func run() throws(QueryError) -> Report {
        var report = Report()
        guard try rows.tables().classes.contains("_File") else { return report }
        FileDownloads.removeLeftovers(in: directory)
        var jobs: [FileJob] = []
        var planned: [(String, String)] = []   // (objectId, new JSON) before any download
        var urlsToSet: [String] = []            // present, but url not yet /files/<key>
        try rows.forEachPage(of: "_File") { (texts) throws(QueryError) in
            for text in texts {
                var o = try DataFiles.object(json: text)
                guard case .string(let id)? = o["objectId"] else { continue }
                let key = o["key"]?.stringValue
                let url = o["url"]?.stringValue
                let source = o["source_url"]?.stringValue
                let serverKey = key.flatMap { FileStore.isKey($0) ? $0 : nil }
                if let k = serverKey, FileManager.default.fileExists(atPath: directory + "/" + k) {
                    report.present += 1
                    if source != nil && url != Self.localURL(k) { urlsToSet.append(id) }
                    continue
                }
                guard let from = source ?? url, Self.isWebURL(from) else {
                    report.failed.append(Failure(objectId: id, url: url ?? "", reason: "no http or https url to copy from"))
                    continue
                }
                var changed = false
                let k: String
                if let serverKey {
                    k = serverKey
                } else {
                    let name = o["name"]?.stringValue ?? String(from.split(separator: "/").last ?? "")
                    k = FileStore.newKey(name: name)
                    o["key"] = .string(k)
                    if let key { o["source_key"] = .string(key) }
                    changed = true
                }
                if source == nil {
                    o["source_url"] = .string(from)
                    changed = true
                }
                if changed { planned.append((id, JSONWriter.string(.object(o)))) }
                let meta = o["metaData"]
                jobs.append(FileJob(objectId: id, key: k, source: from, size: Self.size(meta?["size"]), checksum: Self.checksum(meta?["_checksum"])))
            }
        }
        var start = 0
        while start < planned.count {
            let chunk = planned[start..<min(start + 1000, planned.count)]
            start += chunk.count
            try rows.write { (s) throws(QueryError) in
                for (id, json) in chunk { _ = try s.replaceObject(id, json: json, in: "_File") }
            }
        }
        if !urlsToSet.isEmpty { try setLocalURLs(urlsToSet) }
        guard !jobs.isEmpty else { return report }

        let counters = DownloadCounters(totalFiles: jobs.count, totalBytes: jobs.reduce(0) { $0 + ($1.size ?? 0) })
        let progress = TerminalProgress { [counters] in counters.line(seconds: TerminalProgress.now() - counters.started) }
        let box = ReportBox(report)
        let rows = UncheckedBox(self.rows)
        let done = DispatchSemaphore(value: 0)
        let jobList = jobs
        let target = self.directory
        let parallel = self.jobs
        Task {
            var pending: [String] = []
            var lastFlush = TerminalProgress.now()
            func flush() {
                guard !pending.isEmpty else { return }
                FileDownloads.syncDirectory(target)
                do {
                    try Self.setLocalURLs(pending, on: rows.value)
                } catch {
                    box.storeFailure(error)
                }
                pending.removeAll()
                lastFlush = TerminalProgress.now()
            }
            await FileDownloads.run(jobList, directory: target, parallel: parallel, counters: counters, progress: progress) { job, outcome in
                switch outcome {
                case .done(let bytes):
                    box.update {
                        $0.copied += 1
                        $0.bytes += bytes
                        if job.size == nil && job.checksum == nil { $0.unverified += 1 }
                    }
                    pending.append(job.objectId)
                    if pending.count >= 200 || TerminalProgress.now() - lastFlush > 2 { flush() }
                case .failed(let reason), .retry(let reason), .unreachable(let reason):
                    box.update { $0.failed.append(Failure(objectId: job.objectId, url: job.source, reason: reason)) }
                }
            }
            flush()
            done.signal()
        }
        done.wait()
        progress?.finish()
        if let failure = box.failure { throw failure }
        return box.report
    }

    /// Sets `url` to `/files/<key>` on these `_File` objects.
    func setLocalURLs(_ ids: [String]) throws(QueryError) { try Self.setLocalURLs(ids, on: rows) }

    static func setLocalURLs(_ ids: [String], on rows: StoredRows) throws(QueryError) {
        try rows.write { (s) throws(QueryError) in
            for (id, found) in try rows.objects(ids, in: "_File", session: s) {
                var o = found
                guard case .string(let key)? = o["key"] else { continue }
                o["url"] = .string(localURL(key))
                _ = try s.replaceObject(id, json: JSONWriter.string(.object(o)), in: "_File")
            }
        }
    }

    static func isWebURL(_ s: String) -> Bool {
        let lower = s.lowercased()
        return (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && s.count > 8
    }

    /// `metaData.size`: a whole number of bytes (or its text), else nil.
    static func size(_ v: Value?) -> Int? {
        switch v {
        case .int(let n)?: return n >= 0 ? Int(n) : nil
        case .double(let d)? where d >= 0 && d == d.rounded() && d < 1e15: return Int(d)
        case .string(let s)?: return Int(s).flatMap { $0 >= 0 ? $0 : nil }
        default: return nil
        }
    }

    /// `metaData._checksum`: 32 hex digits, lowercased, else nil.
    static func checksum(_ v: Value?) -> String? {
        guard case .string(let s)? = v, s.count == 32, s.allSatisfy(\.isHexDigit) else { return nil }
        return s.lowercased()
    }
}

/// A value shared by the download task and the waiting command.
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// The report, filled in as downloads finish.
final class ReportBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _report: FileFetch.Report
    private(set) var failure: QueryError?

    init(_ report: FileFetch.Report) { _report = report }

    var report: FileFetch.Report { lock.withLock { _report } }
    func update(_ body: (inout FileFetch.Report) -> Void) { lock.withLock { body(&_report) } }
    func storeFailure(_ e: QueryError) { lock.withLock { if failure == nil { failure = e } } }
}

/// Plain strings elsewhere in the data that equal a copied file's old URL
/// (apps keep avatars and post images that way), and File values without
/// an `id` whose `url` is one: found, and rewritten with `--rewrite-urls`.
///
/// The old URLs are the `source_url`s of the `_File` objects whose bytes
/// this server has (`url` = `/files/<key>`); the new URL of a string is
/// `<public-url>/files/<key>` (a plain string is not resolved by the server
/// as a `_File`'s url is). Every class but `_File` is read a page at a
/// time; a rewrite replaces the page's changed objects in one transaction,
/// keeping `updatedAt`.
struct URLStrings {
    let rows: StoredRows
    let publicURL: String?

    struct Hit {
        var className: String
        var objectId: String
        var path: String
        var old: String
        var new: String
    }

    struct Report {
        var hits: [Hit] = []
        var objects = 0
    }

    func run(rewrite: Bool) throws(QueryError) -> Report {
        var report = Report()
        let (classes, _, _) = try rows.tables()
        guard classes.contains("_File") else { return report }
        let origin = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        var newURLs: [String: String] = [:]
        try rows.forEachPage(of: "_File") { (texts) throws(QueryError) in
            for text in texts {
                let o = try DataFiles.object(json: text)
                if case .string(let old)? = o["source_url"], case .string(let key)? = o["key"], o["url"]?.stringValue == FileFetch.localURL(key) {
                    newURLs[old] = origin + FileFetch.localURL(key)
                }
            }
        }
        guard !newURLs.isEmpty else { return report }
        for className in classes where className != "_File" {
            try rows.forEachPage(of: className) { (texts) throws(QueryError) in
                var changed: [(String, String)] = []
                for text in texts {
                    // Most objects hold no such URL: a byte search first.
                    guard text.contains("http") else { continue }
                    let o = try DataFiles.object(json: text)
                    guard case .string(let id)? = o["objectId"] else { continue }
                    var hits: [Hit] = []
                    var rewritten: [String: Value] = [:]
                    for (key, value) in o where key != "objectId" && key != "ACL" && key != "createdAt" && key != "updatedAt" {
                        let v = replacing(value, path: key, newURLs) { path, old, new in
                            hits.append(Hit(className: className, objectId: id, path: path, old: old, new: new))
                        }
                        rewritten[key] = v
                    }
                    guard !hits.isEmpty else { continue }
                    report.hits += hits
                    report.objects += 1
                    var object = o
                    for (k, v) in rewritten { object[k] = v }
                    changed.append((id, JSONWriter.string(.object(object))))
                }
                if rewrite && !changed.isEmpty {
                    try rows.write { (s) throws(QueryError) in
                        for (id, json) in changed { _ = try s.replaceObject(id, json: json, in: className) }
                    }
                }
            }
        }
        return report
    }

    /// `v` with each string (and File `url` without an `id`) that is an old
    /// URL replaced, `found` told of each.
    func replacing(_ v: Value, path: String, _ urls: [String: String], _ found: (String, String, String) -> Void) -> Value {
        switch v {
        case .string(let s):
            guard let new = urls[s] else { return v }
            found(path, s, new)
            return .string(new)
        case .file(var f):
            guard f.id == nil, let u = f.url, let new = urls[u] else { return v }
            found(path + ".url", u, new)
            f.url = new
            return .file(f)
        case .array(let items):
            return .array(items.enumerated().map { replacing($0.element, path: "\(path).\($0.offset)", urls, found) })
        case .object(let o):
            var out: [String: Value] = [:]
            for k in o.keys.sorted() { out[k] = replacing(o[k]!, path: "\(path).\(k)", urls, found) }
            return .object(out)
        default:
            return v
        }
    }
}
