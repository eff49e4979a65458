import ArgumentParser
import CQLEval
import CQLKit

struct Exec: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply an insert, update or delete to a data directory, all or nothing.",
        discussion: """
            --data takes a directory of <Class>.ndjson / .json files (as eval reads them). The files the
            statement changes are rewritten atomically through a journal (DIR/.cql-journal): after a crash
            the directory reads as entirely old or entirely new, and the next exec finishes or discards
            the interrupted write. Prints {"created":N}, {"updated":N} or {"deleted":N}.
            A failed condition is error 305, a missing objectId error 101 (exit status 1, nothing written).
            Examples:
              cql exec --data data "insert into Todo(title, done) values ('Buy milk', false)"
              cql exec --data data --params '["td01"]' "update Todo set done = true where objectId = ?"
              cql exec --data data "update Account set amount = op('Decrement', {'amount': 50}) where objectId = 'a1' and amount >= 100"
            """
    )

    @OptionGroup var input: QueryInput

    @Option(help: "The data directory: <Class>.ndjson|.json files.")
    var data: String

    func run() throws {
        let text = try input.text()
        let (parsed, _) = try input.parseStatement(text)
        guard parsed.isWrite else {
            throw CommandFailure(QueryError(.unsupported, "exec applies insert, update and delete; run a select with eval", range: parsed.range, source: text))
        }
        // One instant for current_timestamp() and the createdAt/updatedAt written.
        let now = DateValue.now
        let statement = try input.bind(parsed, source: text, now: now)
        let result: WriteResult
        do {
            result = try DataDirectory.apply(statement, path: data, now: now)
        } catch {
            if error.range == nil { throw CommandFailure("error: " + error.message) }
            throw CommandFailure(error.withSource(text))
        }
        Output.line(JSONWriter.string(result.summary))
    }
}
