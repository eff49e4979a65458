#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CorpusSupport
import Foundation
import XCTest

/// `cql exec --data DIR`: sequences of writes on a copy of Corpus/data, and
/// crash safety (a killed exec leaves the directory entirely old or entirely new).
final class ExecTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cql-exec-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Corpus.root.appendingPathComponent("data"), to: directory)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    struct Run {
        var status: Int32
        var signaled: Bool
        var stdout: String
        var stderr: String
    }

    /// Runs `cql`; with `killAfter` it is sent SIGKILL after that many seconds.
    func cql(_ arguments: [String], environment: [String: String] = [:], killAfter: Double? = nil) throws -> Run {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.currentDirectoryURL = Corpus.repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        if let killAfter {
            usleep(useconds_t(killAfter * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                   stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    func exec(_ statement: String, params: String? = nil) throws -> Run {
        try cql(["exec", "--data", directory.path] + (params.map { ["--params", $0] } ?? []) + [statement])
    }

    func eval(_ query: String) throws -> String {
        let r = try cql(["eval", "--data", directory.path, query])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func file(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

    /// Inserts, updates with a failing condition in the middle, deletes: the
    /// failing statements exit 1 with error 305 / 101 and change no byte.
    func testSequenceOfWritesWithAFailingConditionInTheMiddle() throws {
        var r = try exec("insert into Account(name, amount) values ('ann', 120), ('bob', 80)")
        XCTAssertEqual(r.stdout, "{\"created\":2}\n", r.stderr)
        let accounts = try eval("select * from Account order by name")
        let ids = accounts.split(separator: "\n").map { line -> String in
            let range = line.range(of: #""objectId":""#)!
            return String(line[range.upperBound...].prefix(24))
        }
        XCTAssertEqual(ids.count, 2)
        let (ann, bob) = (ids[0], ids[1])
        XCTAssertNotEqual(ann, bob)

        r = try exec("update Account set amount = op('Decrement', {'amount': 50}) where objectId = ? and amount >= 100", params: "[\"\(ann)\"]")
        XCTAssertEqual(r.stdout, "{\"updated\":1}\n", r.stderr)

        // ann has 70 now: the same conditional update fails with 305 and writes nothing.
        let before = try file("Account.ndjson")
        r = try exec("update Account set amount = op('Decrement', {'amount': 50}) where objectId = ? and amount >= 100", params: "[\"\(ann)\"]")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.hasPrefix("error: <input>:1:84: 305 No effect on updating a document: the condition does not hold for Account '\(ann)'\n"), r.stderr)
        XCTAssertEqual(try file("Account.ndjson"), before)

        r = try exec("update Account set amount = op('Increment', {'amount': 20}), tags = op('AddUnique', {'objects': ['vip', 'vip']}) where objectId = '\(bob)'")
        XCTAssertEqual(r.stdout, "{\"updated\":1}\n", r.stderr)
        r = try exec("delete from Account where objectId = 'no-such-id'")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("101 Object not found: Account has no object with objectId 'no-such-id'"), r.stderr)
        r = try exec("delete from Account where objectId = '\(ann)' and amount > 100")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("305 No effect on deleting a document"), r.stderr)
        r = try exec("delete from Account where objectId = '\(ann)'")
        XCTAssertEqual(r.stdout, "{\"deleted\":1}\n", r.stderr)

        let final = try eval("select name, amount, tags from Account")
        XCTAssertEqual(final.split(separator: "\n").count, 1)
        XCTAssertTrue(final.contains(#""amount":100"#) && final.contains(#""name":"bob""#) && final.contains(#""tags":["vip"]"#), final)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent(".cql-journal").path))
    }

    func testExecRefusesQueriesAndBadDirectories() throws {
        var r = try exec("select * from Todo")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("exec applies insert, update and delete"), r.stderr)
        r = try cql(["exec", "--data", directory.appendingPathComponent("Todo.ndjson").path, "delete from Todo where objectId = 'td01'"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("not a directory"), r.stderr)
    }

    /// A class kept in a `.json` file stays a JSON array; `current_timestamp()`
    /// is the instant written as createdAt; a class with two files is refused.
    func testJSONFilesAndTimestamps() throws {
        try Data("[{\"objectId\":\"j1\",\"n\":1}]\n".utf8).write(to: directory.appendingPathComponent("J.json"))
        var r = try exec("insert into J(n, at) values (2, current_timestamp())")
        XCTAssertEqual(r.stdout, "{\"created\":1}\n", r.stderr)
        let text = String(decoding: try file("J.json"), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("[\n{\"n\":1,\"objectId\":\"j1\"},\n{"), text)
        XCTAssertTrue(text.hasSuffix("}\n]\n"), text)
        let made = try eval("select * from J where n = 2")
        let at = made.range(of: #""iso":""#).map { String(made[$0.upperBound...].prefix(24)) }
        let created = made.range(of: #""createdAt":""#).map { String(made[$0.upperBound...].prefix(24)) }
        XCTAssertNotNil(at, made)
        XCTAssertEqual(at, created, made)
        try Data("{\"objectId\":\"j9\"}\n".utf8).write(to: directory.appendingPathComponent("J.ndjson"))
        let before = try file("J.json")
        r = try exec("delete from J where objectId = 'j1'")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("the class J has several data files (J.json, J.ndjson)"), r.stderr)
        XCTAssertEqual(try file("J.json"), before)
    }

    /// Concurrent writers take turns (the directory lock): no increment is lost,
    /// and readers running meanwhile always see a whole state.
    func testConcurrentExecsLoseNoWrite() throws {
        let writers = 8
        var processes: [Process] = []
        for _ in 0..<writers {
            let p = Process()
            p.executableURL = CLITests.binary
            p.arguments = ["exec", "--data", directory.path, "update Todo set counter = op('Increment', {'amount': 1}) where objectId = 'td01'"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            processes.append(p)
        }
        for _ in 0..<4 { XCTAssertEqual(try eval("select count(*) from Todo"), "{\"count\":30}\n") }
        for p in processes {
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
        }
        XCTAssertTrue(try eval("select counter from Todo where objectId = 'td01'").contains("\"counter\":\(writers)"))
    }

    // MARK: Crash safety

    /// A write touching two files: `_User.ndjson` (updatedAt) and `_Join:likes:_User.ndjson` (a row).
    static let twoFileWrite = "update _User set likes = op('AddRelation', {'objects': [pointer('Post', 'po09')]}) where objectId = 'us01'"

    enum State: String { case old, new, mixed }

    /// What a reader sees through the journal (`cql eval`).
    func readerState() throws -> State {
        let joined = try eval("select count(*) from Post where related likes to pointer('_User', 'us01') and objectId = 'po09'") == "{\"count\":1}\n"
        let stamped = try eval("select count(*) from _User where objectId = 'us01' and updatedAt > date('2020-01-01T00:00:00Z')") == "{\"count\":1}\n"
        return joined == stamped ? (joined ? .new : .old) : .mixed
    }

    /// What the files themselves hold (compared with the originals).
    func fileState() throws -> State {
        let original = Corpus.root.appendingPathComponent("data")
        let userOld = try file("_User.ndjson") == Data(contentsOf: original.appendingPathComponent("_User.ndjson"))
        let joinOld = try file("_Join:likes:_User.ndjson") == Data(contentsOf: original.appendingPathComponent("_Join:likes:_User.ndjson"))
        return userOld == joinOld ? (userOld ? .old : .new) : .mixed
    }

    /// The next writer recovers first; its own statement here fails (101), so
    /// the files then show exactly what the crashed write left.
    func recoverByNextExec() throws {
        let r = try exec("delete from _User where objectId = 'no-such-user'")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("101"), r.stderr)
        for name in [".cql-journal", ".cql-journal.tmp"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), name)
        }
    }

    func testKilledAtEachStepLeavesOldOrNew() throws {
        let expected: [(point: String, state: State)] = [("staged", .old), ("committed", .new), ("moved", .new)]
        for (point, state) in expected {
            try tearDownWithError()
            try setUpWithError()
            let r = try cql(["exec", "--data", directory.path, Self.twoFileWrite], environment: ["CQL_EXEC_CRASH_AT": point])
            XCTAssertTrue(r.signaled, "\(point): the hook did not kill the process: \(r.stderr)")
            XCTAssertEqual(r.stdout, "", point)
            XCTAssertEqual(try readerState(), state, "\(point): what readers see")
            if point == "moved" { XCTAssertEqual(try fileState(), .mixed, "moved: one file is in place, one in the journal") }
            try recoverByNextExec()
            XCTAssertEqual(try fileState(), state, "\(point): the files after recovery")
            XCTAssertEqual(try readerState(), state, "\(point): readers after recovery")
        }
    }

    /// SIGKILL at random moments (seeded): every outcome is old or new.
    func testKilledAtRandomMomentsLeavesOldOrNew() throws {
        var rng = SplitMix64(seed: 0xC0FFEE)
        let started = Date()
        _ = try cql(["exec", "--data", directory.path, Self.twoFileWrite])
        let typical = max(0.005, Date().timeIntervalSince(started))
        var seen: [State: Int] = [:]
        for _ in 0..<16 {
            try tearDownWithError()
            try setUpWithError()
            let delay = typical * 1.2 * Double(rng.next() % 1000) / 1000
            let r = try cql(["exec", "--data", directory.path, Self.twoFileWrite], killAfter: delay)
            let view = try readerState()
            XCTAssertNotEqual(view, .mixed, "killed after \(delay)s: \(r.stderr)")
            try recoverByNextExec()
            let files = try fileState()
            XCTAssertEqual(files, view, "killed after \(delay)s: recovery must keep what readers saw")
            seen[files, default: 0] += 1
        }
        XCTAssertEqual(seen[.mixed], nil)
        print("random kills: \(seen[.old] ?? 0) old, \(seen[.new] ?? 0) new")
    }
}


/// `cql exec --sqlite FILE`: the same writes on a database loaded from the
/// same data, with the same outputs, errors and exit statuses as on files;
/// `translate --to sql` of writes.
extension ExecTests {
    func testWritesOnSQLiteMatchWritesOnFiles() throws {
        let t = self
        let db = t.directory.path + ".db"
        defer { try? FileManager.default.removeItem(atPath: db) }
        XCTAssertEqual(try t.cql(["load", "--sqlite", db, t.directory.path]).status, 0)
        let writes = [
            "update GameScore set score = op('Increment', {'amount': 1}), tags = op('AddUnique', {'objects': ['x']}) where objectId = 'gs05' and score > 100",
            "update GameScore set score = 1 where objectId = 'gs05' and score < 0",
            "update Post set likes = op('AddRelation', {'objects': [pointer('_User', 'us09')]}) where objectId = 'po01'",
            "delete from Post where objectId = 'po02'",
            "delete from Post where objectId = 'nope'",
        ]
        for w in writes {
            let onFiles = try t.cql(["exec", "--data", t.directory.path, w])
            let onSQLite = try t.cql(["exec", "--sqlite", db, w])
            XCTAssertEqual(onSQLite.status, onFiles.status, w)
            XCTAssertEqual(onSQLite.stdout, onFiles.stdout, w)
            XCTAssertEqual(onSQLite.stderr, onFiles.stderr, w)
        }
        // updatedAt differs (two runs, two instants): compare the rest.
        for q in ["select * from GameScore order by objectId", "select * from Post order by objectId",
                  #"{"className":"_User","where":{"$relatedTo":{"object":{"__type":"Pointer","className":"Post","objectId":"po01"},"key":"likes"}}}"#] {
            let files = try t.cql(["eval", "--data", t.directory.path, q]).stdout
            let sqlite = try t.cql(["run", "--sqlite", db, q]).stdout
            let strip = { (s: String) in s.replacingOccurrences(of: #""updatedAt":"[^"]*""#, with: "", options: .regularExpression) }
            XCTAssertEqual(strip(sqlite), strip(files), q)
        }
    }

    func testTranslateToSQLOfWrites() throws {
        let t = self
        let insert = try t.cql(["translate", "--to", "sql", "--dialect", "postgres", "insert into Todo(title) values ('milk')"])
        XCTAssertEqual(insert.status, 0, insert.stderr)
        XCTAssertTrue(insert.stdout.contains(#""sql":"INSERT INTO \"Todo\" (\"objectId\", \"doc\", \"raw\", \"createdAt\", \"updatedAt\") VALUES ($1, $2::jsonb, $2, $3, $3)""#), insert.stdout)
        XCTAssertFalse(insert.stdout.contains("'milk'"), "values are bound, never in the SQL text")
        let update = try t.cql(["translate", "--to", "sql", "update Todo set title = 'bread' where objectId = 'a' and done = false"])
        XCTAssertEqual(update.status, 0, update.stderr)
        XCTAssertTrue(update.stdout.contains(#"UPDATE \"Todo\" AS t0 SET \"doc\" = json_set(json_set(t0.\"doc\", '$.\"title\"', json(?"#), update.stdout)
        XCTAssertFalse(update.stdout.contains("'bread'") || update.stdout.contains("'a'"), "values are bound, never in the SQL text")
        let containers = try t.cql(["translate", "--to", "sql", "update Todo set tags = op('AddUnique', {'objects': [[1]]}) where objectId = 'a'"])
        XCTAssertEqual(containers.status, 1)
        XCTAssertTrue(containers.stderr.contains("apply it with cql exec --sqlite FILE or --postgres URL"), containers.stderr)
        // Only the database knows the relation tables: the row's DELETE, and a warning.
        let delete = try t.cql(["translate", "--to", "sql", "--dialect", "postgres", "delete from Todo where objectId = 'a'"])
        XCTAssertEqual(delete.status, 0, delete.stderr)
        XCTAssertEqual(delete.stdout, #"{"arguments":["a"],"sql":"DELETE FROM \"Todo\" AS t0 WHERE t0.\"objectId\" = $1"}"# + "\n")
        XCTAssertTrue(delete.stderr.hasPrefix("warning: the object's relation rows (tables _Join:<key>:Todo) are not deleted"), delete.stderr)
    }
}
