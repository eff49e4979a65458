import ArgumentParser
import Foundation
import CQLKit
import CQLSQL
import CQLServer

/// Where `load` and `run` find the database.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "The SQLite database file (created if missing).")
    var sqlite: String?

    @Option(help: "The PostgreSQL database: postgres://user[:password]@host[:port]/database.")
    var postgres: String?

    func validate() throws {
        if (sqlite == nil) == (postgres == nil) { throw ValidationError("Give the database: --sqlite FILE or --postgres URL.") }
    }

    /// The database, opened: SQLite or PostgreSQL, as the one protocol both
    /// implement (load, index, run, the migrations).
    func open() throws(CommandFailure) -> any SQLDatabaseWriter {
        try Self.open(sqlite: sqlite, postgres: postgres)
    }

    static func open(sqlite: String?, postgres: String?) throws(CommandFailure) -> any SQLDatabaseWriter {
        do {
            if let postgres {
                let db = try PostgreSQLDatabase(url: postgres)
                // One command, each statement once: nothing to keep prepared.
                db.keepsStatementsPrepared = false
                return db
            }
            // A file a running `cql serve` writes to: say why the command waits.
            SQLiteDatabase.lockWaitNotice = { path in LockWaitNotice.shared.say(path) }
            return try SQLiteDatabase(path: sqlite)
        } catch {
            throw CommandFailure("error: " + error.message)
        }
    }
}

extension SQLDatabaseWriter {
    /// The indexes an export names (``ExportedIndexes``), made on the
    /// classes this database holds; what is left out, and the classes
    /// it does not hold, said on standard error.
    /// - Returns: the keys indexed, by class.
    func addIndexes(_ found: ExportedIndexes) throws(QueryError) -> [String: [String]] {
        for note in found.notes { Output.error("indexes: " + note) }
        var made: [String: [String]] = [:]
        for className in found.keysByClass.keys.sorted() {
            let keys = found.keysByClass[className] ?? []
            if try addIndexes(keys: keys, only: [className]).isEmpty {
                Output.error("indexes: \(className): no such class in the database; its indexes (\(keys.joined(separator: ", "))) are not made")
            } else {
                made[className] = keys
                Output.error("indexes: \(className): \(keys.joined(separator: ", "))")
            }
        }
        return made
    }
}

struct Load: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import JSON data into a SQL database: one table per class, in one transaction.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            Reads what `cql eval --data` reads: a directory of \
            <ClassName>.ndjson|.jsonl|.json files (relations as \
            _Join:<key>:<Owner>.ndjson) or one file, including LeanCloud's \
            export (unpack its .tar.gz first): the parts <Class>.0.json, \
            <Class>.1.json, ... of a class are read in part order, and a first \
            line #...;class=<Class> names the class. A bad line aborts the load \
            with its file and line and leaves the database as it was. Large \
            loads show their progress on standard error when it is a terminal. \
            --index creates the expression indexes the generated SQL uses for \
            those keys; --indexes-from makes those of the indexes an export \
            names, class by class (see `cql index --help`).

            Examples:
              cql load --sqlite scores.db --index score,name Corpus/data
              cql load --postgres postgres://postgres@127.0.0.1/db Corpus/data
              cql load --sqlite app.db --indexes-from backup/app export/
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Keys to index, comma-separated (equality, in, ranges and prefix LIKE on them use the index).")
    var index: String?

    @Option(name: .customLong("indexes-from"), help: "The indexes the app had: a MongoDB dump's folder of <Class>.metadata.json (LeanCloud's backup export), or one such file.")
    var indexesFrom: String?

    @Option(name: .customLong("class"), help: "The class of a single file (default: the file's base name).")
    var className: String?

    @Argument(help: "A data directory (e.g. an unpacked LeanCloud export) or an .ndjson / .jsonl / .json file.")
    var data: String

    func run() throws {
        // Read first: a bad index file stops the load before it starts.
        let exported = try indexesFrom.map { (path) throws(CommandFailure) in try ExportedIndexes.read(path: path) }
        let db = try database.open()
        let keys = index?.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        do {
            let counts = try db.load(path: data, className: className, indexes: keys, progress: true)
            Output.line(JSONWriter.string(.object(counts.mapValues { .int(Int64($0)) })))
            if let exported { _ = try db.addIndexes(exported) }
        } catch {
            throw CommandFailure("error: " + error.message)
        }
    }
}

struct Index: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Index keys of every class in a SQL database, as `load --index` does.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            Creates the expression indexes the generated SQL uses for equality, in, ranges and prefix LIKE on each key, on every class table the database holds now, and refreshes the planner's statistics. It may run while `cql serve` serves the database; a class created later gets them when index runs again. objectId, createdAt and updatedAt are indexed columns of every table already.

            --indexes-from reads the indexes an app had instead: LeanCloud's backup export is a MongoDB dump, whose <Class>.metadata.json files list each class's indexes. Each key of each index is indexed on its class only (a compound index becomes an index per key); _id, createdAt, updatedAt and the ACL are left as they are, text and geo indexes are not made, and unique is reported but not enforced; each such case is said on standard error. A JSON file {"<Class>": [{"key": {"<key>": 1}}, ...]} is read the same way.

            Examples:
              cql index --sqlite app.db url,author
              cql index --sqlite app.db --indexes-from backup/app
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("indexes-from"), help: "A MongoDB dump's folder of <Class>.metadata.json (LeanCloud's backup export), or one such file.")
    var indexesFrom: String?

    @Argument(help: "Keys to index, comma-separated (dotted paths allowed).")
    var keys: String?

    func run() throws {
        if let indexesFrom {
            if keys != nil { throw CommandFailure("error: index: give keys or --indexes-from, not both", status: 2) }
            let exported = try ExportedIndexes.read(path: indexesFrom)
            let db = try database.open()
            do {
                let made = try db.addIndexes(exported)
                Output.line(JSONWriter.string(.object(["indexed": .object(made.mapValues { .array($0.map { .string($0) }) })])))
            } catch {
                throw CommandFailure("error: " + error.message)
            }
            return
        }
        let list = (keys ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if list.isEmpty { throw CommandFailure("error: index: give at least one key, or --indexes-from", status: 2) }
        let db = try database.open()
        do {
            let classes = try db.addIndexes(keys: list)
            Output.line(JSONWriter.string(.object(["indexed": .array(classes.map { .string($0) }), "keys": .array(list.map { .string($0) })])))
        } catch {
            throw CommandFailure("error: " + error.message)
        }
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a query in a SQL database and print the matching objects as NDJSON, as `cql eval` does.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            What the database can answer exactly runs there; a part it can only \
            prefilter is re-checked with the evaluator's own predicate \
            (--explain says which).

            Examples:
              cql run --sqlite scores.db "select * from GameScore limit 5"
              cql run --sqlite scores.db --explain "select * from T where a = 1"

            As a caller of `cql serve` (the server's own caller-query path: \
            the ACL read condition added to the query and its subqueries, \
            _User's secrets refused): --as-user ID reads the user's roles \
            from the database; --grantees '*,ID,role:NAME' names them.
              cql run --postgres URL --as-user u1 --explain "select * from Todo"
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var input: QueryInput
    @OptionGroup var optimizer: OptimizeOption

    @Flag(help: "Print only {\"count\":N}.")
    var count = false

    @Flag(help: "Print what runs in the database, what is re-checked, and the database's plan.")
    var explain = false

    @Option(name: .customLong("as-user"), help: "Run as this _User objectId: only what its ACL grants (with its roles) is read.")
    var asUser: String?

    @Option(help: "Run as these ACL grantees, comma-separated ('*' is always one): '*,u1,role:staff'.")
    var grantees: String?

    func validate() throws {
        if asUser != nil && grantees != nil { throw ValidationError("Give --as-user or --grantees, not both.") }
    }

    func run() throws {
        let text = try input.text()
        let (statement, _) = try input.parseStatement(text)
        guard case .select(let parsed) = statement else {
            throw CommandFailure(QueryError(.unsupported, "'\(statement.verb)' is a write: run runs queries; apply writes with exec",
                                            range: statement.range, source: text))
        }
        var bound = try input.bind(parsed, source: text, resolveTime: true)
        let db = try database.open()
        // The server's one caller-query path: the ACL, sub-query classes and _User's secrets as `cql serve` applies them.
        var caller: QueryCaller?
        do {
            if let asUser { caller = .grantees(try CallerGrantees.grantees(userId: asUser, on: db)) }
        } catch {
            throw CommandFailure("error: " + error.message)
        }
        if let grantees { caller = .grantees(grantees.split(separator: ",").map(String.init)) }
        if let caller {
            do { bound = try CallerQuery.restricted(bound, as: caller) } catch { throw CommandFailure("error: \(error.code) " + error.message) }
        }
        let query = try optimizer.apply(bound, source: text)
        do {
            if explain {
                for line in try SQLRunner.explain(query, on: db, source: text) { Output.line(line) }
                return
            }
            var ndjson: [UInt8] = []
            let result = try SQLRunner.run(query, on: db, countOnly: count, source: text, writingTo: &ndjson)
            Output.bytes(ndjson)
            if let total = result.count, count || query.count != .none {
                Output.line(JSONWriter.string(.object(["count": .int(Int64(total))])))
            }
        } catch {
            if error.kind == .data && error.range == nil { throw CommandFailure("error: " + error.message) }
            throw CommandFailure(error.withSource(text))
        }
    }
}

/// The message `load`, `index` and `run` print (once) when the SQLite file
/// is locked by another process, typically a running `cql serve` writing:
/// they wait for the lock (``SQLiteDatabase/lockWait`` seconds at most),
/// as the server does, rather than fail at once.
final class LockWaitNotice: @unchecked Sendable {
    static let shared = LockWaitNotice()
    private var said = false
    private let lock = NSLock()

    func say(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        guard !said else { return }
        said = true
        Output.error("cql: \(path) is locked by another process (a running cql serve?): waiting for it, up to \(Int(SQLiteDatabase.lockWait)) s")
    }
}
