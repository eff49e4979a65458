#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit
import Foundation

/// Writes to a data directory (`<Class>.ndjson|.json` files) that happen
/// completely or not at all, across every file a statement touches.
///
/// A write may change several files (an `AddRelation` changes `T.ndjson` and
/// `_Join:<key>:T.ndjson`), and no file system renames several files in one
/// step, so a write goes through a journal directory whose rename is the one
/// atomic step that commits it:
///
/// 1. take the exclusive lock on `DIR/.cql-lock`, recover (below);
/// 2. write each new file into `DIR/.cql-journal.tmp/` and fsync it, fsync
///    that directory;
/// 3. **commit**: rename `.cql-journal.tmp` to `.cql-journal`, fsync `DIR`;
/// 4. rename each journal file over its file in `DIR` (each rename atomic),
///    fsync `DIR`; remove the empty journal.
///
/// Recovery rule (run by every writer under the lock, and readable without
/// writing): a `.cql-journal.tmp` is an uncommitted write — delete it; a
/// `.cql-journal` is a committed one — finish step 4 (move every file still in
/// it into `DIR`, then remove it). Readers (``DocumentStore/load(path:className:)``,
/// `cql eval`) never write: they take the shared lock, ignore
/// `.cql-journal.tmp`, and read a file from `.cql-journal` when it is there
/// (committed, not yet moved) instead of from `DIR`. So after a crash at any
/// moment every reader sees either the whole old state (before step 3) or
/// the whole new one (after it), and the next writer makes the files say so.
public enum DataDirectory {
    static let journalName = ".cql-journal"
    static let stagingName = ".cql-journal.tmp"
    static let lockName = ".cql-lock"

    /// A test hook: `CQL_EXEC_CRASH_AT=staged|committed|moved` kills the
    /// process (SIGKILL, as a power cut would stop it) after step 2, after
    /// step 3, or after the first rename of step 4.
    static let crashPoint = ProcessInfo.processInfo.environment["CQL_EXEC_CRASH_AT"]

    static func crash(at point: String) {
        if crashPoint == point { kill(getpid(), SIGKILL) }
    }

    static func join(_ dir: String, _ name: String) -> String { dir.hasSuffix("/") ? dir + name : dir + "/" + name }

    /// Applies `statement` to the data directory `path` atomically and returns
    /// what it did. The directory must exist; a class without a file gets
    /// `<Class>.ndjson`.
    ///
    /// ```swift
    /// let s = try Binder.bind(try CQLParser.parseStatement("delete from Todo where objectId = 'td01'"), parameters: [])
    /// try DataDirectory.apply(s, path: "data", now: now).summary   // {"deleted":1}
    /// ```
    /// - Throws: the statement's errors (101, 305, ...) with nothing written;
    ///   `.data` errors for unreadable data or a failed write (files unchanged).
    public static func apply(_ statement: Statement, path: String, now: DateValue,
                             newObjectId: () -> String = StatementExecutor.randomObjectId) throws(QueryError) -> WriteResult {
        guard DataLoader.isDirectory(path) else { throw QueryError(.data, "\(path): not a directory (exec --data takes a directory of <Class>.ndjson files)") }
        let lock = try Lock(path, exclusive: true)
        defer { lock.release() }
        try recover(path)
        var store = DocumentStore()
        try store.loadDirectory(path)
        let files = Dictionary(grouping: try DataLoader.dataFiles(inDirectory: path), by: \.className)
        let result = try StatementExecutor.apply(statement, to: &store, now: now, newObjectId: newObjectId)
        var contents: [(name: String, bytes: [UInt8])] = []
        for className in result.changedClasses.sorted() {
            let mine = files[className] ?? []
            guard mine.count <= 1 else {
                let names = mine.map { String($0.path.split(separator: "/").last!) }.joined(separator: ", ")
                throw QueryError(.data, "\(path): the class \(className) has several data files (\(names)): exec cannot tell which one to rewrite")
            }
            let file = mine.first.map { String($0.path.split(separator: "/").last!) } ?? className + ".ndjson"
            // A file keeps its form: a JSON array, or JSON Lines with the
            // `#` header line of LeanCloud's export when it had one.
            let old = mine.first?.path
            let header = old.flatMap(DataLoader.header(ofFile:)).map { $0 + [0x0A] } ?? []
            let asArray = old.map { DataLoader.readFormat(of: $0) == .json } ?? false
            contents.append((file, header + serialize(store.objects(in: className), asJSONArray: asArray)))
        }
        try commit(contents, in: path)
        return result
    }

    /// NDJSON (one object a line) or a JSON array with one object a line.
    static func serialize(_ objects: [[String: Value]], asJSONArray: Bool) -> [UInt8] {
        var out: [UInt8] = []
        if asJSONArray { out += Array("[\n".utf8) }
        for (i, o) in objects.enumerated() {
            JSONWriter.write(.object(o), to: &out)
            if asJSONArray && i < objects.count - 1 { out.append(UInt8(ascii: ",")) }
            out.append(0x0A)
        }
        if asJSONArray { out += Array("]\n".utf8) }
        return out
    }

    /// Steps 2 to 4 for the given files of `dir`.
    static func commit(_ files: [(name: String, bytes: [UInt8])], in dir: String) throws(QueryError) {
        let staging = join(dir, stagingName), journal = join(dir, journalName)
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        } catch {
            throw QueryError(.data, "\(staging): cannot create the journal directory: \(error.localizedDescription)")
        }
        do throws(QueryError) {
            for f in files { try writeDurably(f.bytes, to: join(staging, f.name)) }
            try syncDirectory(staging)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        crash(at: "staged")
        guard rename(staging, journal) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: staging)
            throw QueryError(.data, "\(journal): cannot commit the write: \(reason)")
        }
        try syncDirectory(dir)
        crash(at: "committed")
        // Committed: from here a failure is finished by the next recovery.
        try rollForward(dir)
    }

    /// Step 4: move every file of the committed journal into `dir`.
    static func rollForward(_ dir: String) throws(QueryError) {
        let journal = join(dir, journalName)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? []).sorted()
        for name in names {
            guard rename(join(journal, name), join(dir, name)) == 0 else {
                throw QueryError(.data, "\(join(dir, name)): cannot move the committed file in place: \(String(cString: strerror(errno))) (the next exec finishes it)")
            }
            crash(at: "moved")
        }
        try syncDirectory(dir)
        guard rmdir(journal) == 0 else { throw QueryError(.data, "\(journal): cannot remove the journal: \(String(cString: strerror(errno)))") }
        try syncDirectory(dir)
    }

    /// The recovery rule (see the type's documentation). Call it holding the lock.
    public static func recover(_ dir: String) throws(QueryError) {
        let staging = join(dir, stagingName)
        if FileManager.default.fileExists(atPath: staging) {
            do { try FileManager.default.removeItem(atPath: staging) } catch {
                throw QueryError(.data, "\(staging): cannot remove an uncommitted journal: \(error.localizedDescription)")
            }
        }
        if FileManager.default.fileExists(atPath: join(dir, journalName)) { try rollForward(dir) }
    }

    static func writeDurably(_ bytes: [UInt8], to path: String) throws(QueryError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw QueryError(.data, "\(path): cannot create: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + offset, raw.count - offset) }
            guard n > 0 else { throw QueryError(.data, "\(path): cannot write: \(String(cString: strerror(errno)))") }
            offset += n
        }
        guard fsync(fd) == 0 else { throw QueryError(.data, "\(path): cannot sync: \(String(cString: strerror(errno)))") }
    }

    static func syncDirectory(_ path: String) throws(QueryError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw QueryError(.data, "\(path): cannot open the directory: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw QueryError(.data, "\(path): cannot sync the directory: \(String(cString: strerror(errno)))") }
    }

    /// `flock` on `DIR/.cql-lock`: exclusive for writers (created when
    /// missing), shared for readers (only when the file exists: a directory
    /// no writer has touched needs no lock, and readers never create files).
    final class Lock {
        private var fd: Int32 = -1

        init(_ dir: String, exclusive: Bool) throws(QueryError) {
            let path = DataDirectory.join(dir, DataDirectory.lockName)
            fd = exclusive ? open(path, O_RDWR | O_CREAT, 0o644) : open(path, O_RDONLY)
            if fd < 0 {
                if !exclusive { return }
                throw QueryError(.data, "\(path): cannot open the lock file: \(String(cString: strerror(errno)))")
            }
            while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                fd = -1
                throw QueryError(.data, "\(path): cannot lock: \(reason)")
            }
        }

        func release() {
            if fd >= 0 { close(fd) }  // closing drops the flock
            fd = -1
        }

        deinit { release() }
    }
}
