import ArgumentParser
import CQLEval
import CQLKit
import CQLSQL
import Foundation

/// `cql dump`: the database written out as LeanCloud's data export, which
/// `cql load` (and anything that reads LeanCloud's export) reads back.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a SQL database out as LeanCloud's data export: JSON Lines parts per class, which cql load reads back.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            Each class becomes <Class>.0.jsonl, <Class>.1.jsonl, ... (a new part past --part-size bytes), each starting with the header #filetype:JSON-streaming;version=1.0;class=<Class>, one object a line in the canonical form cql load stores (keys in order; createdAt and updatedAt plain strings, other Dates typed, ACL inline, _User's password hash and salt kept); a relation's rows become _Join:<key>:<Owner>.0.jsonl of {"owningId","relatedId"}. The server's own tables (sessions, class-level permissions, pull state) are not written. Rows are read a page at a time, so memory stays small however large the database; progress shows on standard error when it is a terminal. Prints the objects written per class, as cql load prints them.

            Examples:
              cql dump --sqlite app.db backup/
              cql load --postgres postgres://postgres@127.0.0.1/db backup/
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("part-size"), help: "Bytes after which a class's part ends and the next begins.")
    var partSize = 256 << 20

    @Argument(help: "The directory to write (made if missing; it must hold no data files).")
    var directory: String

    func validate() throws {
        if partSize < 1 { throw ValidationError("--part-size takes 1 or more bytes.") }
    }

    func run() throws {
        umask(0o077)
        let db = try database.open()
        let dir = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("error: cannot make the directory \(dir): \(error.localizedDescription)")
        }
        let present = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        if let clash = present.first(where: { $0.hasSuffix(".jsonl") || $0.hasSuffix(".json") || $0.hasSuffix(".ndjson") }) {
            throw CommandFailure("error: \(dir) already holds data files (\(clash)): dump into an empty directory")
        }
        do {
            let counts = try Dumper(rows: StoredRows(db), directory: dir, partSize: partSize).run()
            Output.line(JSONWriter.string(.object(counts.mapValues { .int(Int64($0)) })))
        } catch {
            throw CommandFailure("error: " + error.message)
        }
    }
}

/// The writing of ``Dump``: per table, parts of at most `partSize` bytes
/// (a line is never split), each written under a `.partial` name and
/// renamed when whole.
struct Dumper {
    let rows: StoredRows
    let directory: String
    let partSize: Int

    static func header(_ className: String) -> String { "#filetype:JSON-streaming;version=1.0;class=\(className)\n" }

    func run() throws(QueryError) -> [String: Int] {
        let (classes, joins, _) = try rows.tables()
        let tables = classes + joins
        var total = 0
        for t in tables { total += try rows.count(t) }
        let counter = DumpCounter(total: total)
        let progress = TerminalProgress { [counter] in counter.line() }
        defer { progress?.finish() }
        var counts: [String: Int] = [:]
        for table in tables {
            counter.table = table
            let writer = try PartWriter(directory: directory, className: table, partSize: partSize)
            var n = 0
            if table.hasPrefix("_Join:") {
                try rows.forEachJoinPage(of: table) { (page) throws(QueryError) in
                    for (owning, related) in page {
                        var o: [String: Value] = [:]
                        if let owning { o["owningId"] = .string(owning) }
                        if let related { o["relatedId"] = .string(related) }
                        try writer.write(JSONWriter.string(.object(o)))
                    }
                    n += page.count
                    counter.add(page.count)
                    progress?.tick()
                }
            } else {
                try rows.forEachPage(of: table) { (texts) throws(QueryError) in
                    // In the writer's canonical form (keys in order), as `cql load`
                    // stores it: a write may have appended a key to the stored text.
                    for t in texts { try writer.write(JSONWriter.string(.object(try DataFiles.object(json: t)))) }
                    n += texts.count
                    counter.add(texts.count)
                    progress?.tick()
                }
            }
            try writer.finish()
            counts[table] = n
        }
        return counts
    }
}

/// Objects written so far, for the progress line.
final class DumpCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0
    let total: Int
    let started = TerminalProgress.now()
    private var _table = ""
    var table: String {
        get { lock.withLock { _table } }
        set { lock.withLock { _table = newValue } }
    }

    init(total: Int) { self.total = total }

    func add(_ n: Int) { lock.withLock { done += n } }

    /// `Comment: 120,000 of 1,000,000 objects, 45,000 objects/s, 0:19 left`.
    func line() -> String {
        let (done, table) = lock.withLock { (self.done, self._table) }
        let seconds = TerminalProgress.now() - started
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var text = "\(table): \(TerminalProgress.grouped(done)) of \(TerminalProgress.grouped(total)) objects, \(TerminalProgress.grouped(Int(rate))) objects/s"
        if rate > 0 && total > done { text += ", \(TerminalProgress.duration(Double(total - done) / rate)) left" }
        return text
    }
}

/// The parts of one class: `<Class>.<n>.jsonl`, header first, buffered.
final class PartWriter {
    let directory: String
    let className: String
    let partSize: Int
    private var part = -1
    private var file: UnsafeMutablePointer<FILE>?
    private var path = ""
    private var written = 0

    init(directory: String, className: String, partSize: Int) throws(QueryError) {
        self.directory = directory
        self.className = className
        self.partSize = partSize
        try next()
    }

    private func next() throws(QueryError) {
        try close()
        part += 1
        path = "\(directory)/\(className).\(part).jsonl"
        guard let f = fopen(path + ".partial", "wb") else {
            throw QueryError(.data, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        file = f
        written = 0
        try put(Dumper.header(className))
    }

    private func put(_ s: String) throws(QueryError) {
        var s = s
        let ok = s.withUTF8 { b in fwrite(b.baseAddress, 1, b.count, file) == b.count }
        if !ok { throw QueryError(.data, "cannot write \(path): \(String(cString: strerror(errno)))") }
        written += s.utf8.count
    }

    /// One object's line.
    func write(_ json: String) throws(QueryError) {
        if written > Dumper.header(className).utf8.count && written + json.utf8.count + 1 > partSize { try next() }
        try put(json)
        try put("\n")
    }

    private func close() throws(QueryError) {
        guard let f = file else { return }
        file = nil
        if fflush(f) != 0 || fsync(fileno(f)) != 0 {
            fclose(f)
            throw QueryError(.data, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        fclose(f)
        if rename(path + ".partial", path) != 0 { throw QueryError(.data, "cannot rename \(path): \(String(cString: strerror(errno)))") }
    }

    func finish() throws(QueryError) { try close() }
}
