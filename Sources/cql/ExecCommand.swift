import ArgumentParser
import CQLEval
import CQLKit
import CQLSQL

struct Exec: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply an insert, update or delete to a data directory or a SQL database, all or nothing.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            --data takes a directory of <Class>.ndjson / .json files (as eval \
            reads them). The files the statement changes are rewritten \
            atomically through a journal (DIR/.cql-journal): after a crash the \
            directory reads as entirely old or entirely new, and the next exec \
            finishes or discards the interrupted write. Prints {"created":N}, \
            {"updated":N} or {"deleted":N}.

            --sqlite FILE / --postgres URL apply it in one transaction of the \
            database (tables as `cql load` makes them): the statement's rows are \
            read, the write applied with the in-memory semantics, and the \
            changed rows written back; any error rolls it back.

            A failed condition is error 305, a missing objectId error 101 (exit \
            status 1, nothing written).

            Examples:
              cql exec --data data "insert into Todo(title) values ('Buy milk')"
              cql exec --data data --params '["td01"]' \\
                "update Todo set done = true where objectId = ?"
              cql exec --sqlite app.db "delete from Todo where objectId = 'td01'"
            """
    )

    @OptionGroup var input: QueryInput

    @Option(help: "The data directory: <Class>.ndjson|.json files.")
    var data: String?

    @Option(help: "A SQLite database file (as `cql load --sqlite` makes it).")
    var sqlite: String?

    @Option(help: "A PostgreSQL database: postgres://user[:password]@host[:port]/database.")
    var postgres: String?

    func validate() throws {
        if [data, sqlite, postgres].compactMap({ $0 }).count != 1 {
            throw ValidationError("Give where to write: --data DIR, --sqlite FILE or --postgres URL.")
        }
    }

    func run() throws {
        let text = try input.text()
        let (parsed, _) = try input.parseStatement(text)
        guard parsed.isWrite else {
            throw CommandFailure(QueryError(.unsupported, "exec applies insert, update and delete; run a select with eval", range: parsed.range, source: text))
        }
        // One instant for current_timestamp() and the createdAt/updatedAt written.
        let now = DateValue.now
        let statement = try input.bind(parsed, source: text, now: now)
        let database = data == nil ? try DatabaseOptions.open(sqlite: sqlite, postgres: postgres) : nil
        let result: WriteResult
        do {
            if let data {
                result = try DataDirectory.apply(statement, path: data, now: now)
            } else {
                result = try SQLWriteRunner.apply(statement, on: database!, now: now)
            }
        } catch {
            if error.range == nil { throw CommandFailure("error: " + error.message) }
            throw CommandFailure(error.withSource(text))
        }
        Output.line(JSONWriter.string(result.summary))
    }
}
