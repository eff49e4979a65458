import ArgumentParser
import CQLEval
import CQLKit

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a query in memory over JSON data and print the matching objects as NDJSON.",
        // Paragraphs are one line each (`\` joins the source lines) and
        // examples shorter than 78 columns: argument-parser wraps every line
        // itself, so a hard break inside a paragraph left a ragged line.
        discussion: """
            --data takes an NDJSON file, a JSON file (an array of objects or \
            {"results": [...]}), or a directory of <ClassName>.ndjson / .json \
            files (needed for subqueries, include and relations; relation tables \
            are _Join:<key>:<OwnerClass>.ndjson).

            Without order and near, an NDJSON collection is streamed in \
            constant memory.

            Examples:
              cql eval --data Corpus/data "select * from GameScore limit 5"
              cql eval --data Corpus/data --count "select * from Todo"
              cql eval --data scores.ndjson "select * from T order by -score"
            """
    )

    @OptionGroup var input: QueryInput

    @OptionGroup var optimizer: OptimizeOption

    @Option(help: "The data: an .ndjson or .json file, or a directory of <Class>.ndjson|.json files.")
    var data: String

    @Flag(help: "Print only {\"count\":N}.")
    var count = false

    func run() throws {
        let text = try input.text()
        let (statement, _) = try input.parseStatement(text)
        guard case .select(let parsed) = statement else {
            throw CommandFailure(QueryError(.unsupported, "'\(statement.verb)' is a write: eval runs queries; apply writes with exec",
                                            range: statement.range, source: text))
        }
        let query = try optimizer.apply(try input.bind(parsed, source: text, resolveTime: true), source: text)
        let total: Int?
        do {
            // A directory without the class is exit 0 (no matches), but said
            // on stderr: silence looked like a bug to new users.
            total = try Evaluation.run(
                query, dataPath: data, countOnly: count, source: text,
                warning: { Output.warning($0) }, output: { Output.line($0) })
        } catch {
            // Data errors name their file and line in the message itself; query
            // errors point into the query text.
            if error.kind == .data && error.range == nil { throw CommandFailure("error: " + error.message) }
            throw CommandFailure(error.withSource(text))
        }
        if let total, count || query.count != .none {
            Output.line(JSONWriter.string(.object(["count": .int(Int64(total))])))
        }
    }
}
