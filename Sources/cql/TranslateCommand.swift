import ArgumentParser
import CQLKit

/// Output languages of `translate`.
enum TargetLanguage: String, ExpressibleByArgument, CaseIterable {
    case `where`, cql, usergrid, nspredicate
}

struct Translate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Translate a query to REST where-JSON, CQL, Usergrid or NSPredicate text.",
        discussion: """
            Examples:
              cql translate "select * from GameScore where score > 80 order by -score limit 10"
              cql translate --dialect mongo --pretty "select * from T where name regexp 'a.c'"
              cql translate --from usergrid --to where "name = 'fred*' order by age desc"
              cql translate --from nspredicate --class GameScore --args '["Dan", 18]' "playerName = %@ AND playerAge > %d"
              cql translate --lines queries.txt
            """
    )

    @OptionGroup var input: QueryInput

    @OptionGroup var optimizer: OptimizeOption

    @Option(help: "Output: where, cql, usergrid or nspredicate.")
    var to: TargetLanguage = .where

    @Option(help: "where-JSON dialect: leancloud, parse or mongo (default: leancloud for CQL input, parse otherwise).")
    var dialect: WhereJSONDialect?

    @Flag(name: .customLong("condition-only"), help: "nspredicate output: write the condition alone, leaving out order, limit, skip and keys (set them on the query object).")
    var conditionOnly = false

    @Flag(help: "Indent the JSON output.")
    var pretty = false

    @Flag(name: .customLong("mongo-id"), help: "mongo dialect: write the objectId key as MongoDB's _id.")
    var mongoId = false

    @Option(help: "Translate each line of FILE ('-' for standard input) as its own query; one output line per input line.")
    var lines: String?

    func validate() throws {
        if conditionOnly && to != .nspredicate { throw ValidationError("--condition-only applies to --to nspredicate.") }
        if lines != nil && input.query != nil { throw ValidationError("Give either a QUERY or --lines FILE, not both.") }
        if lines == nil && input.query == nil { throw ValidationError("Missing expected argument '<query>' (or --lines FILE).") }
    }

    func run() throws {
        if let lines { return try runLines(lines) }
        let text = try input.text()
        Output.line(try translate(text))
    }

    /// One query's output text.
    func translate(_ text: String) throws(CommandFailure) -> String {
        let (parsed, language) = try input.parse(text)
        let query = try optimizer.apply(try input.bind(parsed, source: text, resolveTime: to == .where), source: text)
        // CQL is LeanCloud's language, so its queries target LeanCloud unless told
        // otherwise; Usergrid and where-JSON input default to Parse Server's
        // dialect, the most expressive REST one (it has `$nor` for Usergrid's `not`).
        let dialect = self.dialect ?? (language == .cql ? .leancloud : .parse)
        do {
            switch to {
            case .where:
                let request = try WhereJSONEmitter.emit(query, dialect: dialect, objectIdAsMongoId: mongoId)
                return JSONWriter.string(request, pretty: pretty)
            case .cql: return try CQLFormatter.format(query)
            case .usergrid: return try UsergridFormatter.format(query, literal: input.literal)
            case .nspredicate: return try NSPredicateFormatter.format(query, conditionOnly: conditionOnly)
            }
        } catch {
            throw CommandFailure(error.withSource(text))
        }
    }

    /// `--lines`: a bad line reports its error (with its line number) and
    /// leaves an empty output line; the run goes on and exits 1 at the end.
    private func runLines(_ path: String) throws {
        let content: String
        if path == "-" {
            content = readStandardInput()
        } else {
            do { content = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw CommandFailure("error: cannot read \(path): \(error.localizedDescription)")
            }
        }
        let name = path == "-" ? "<stdin>" : path
        var failures = 0
        var lineNumber = 0
        var all = content.split(separator: "\n", omittingEmptySubsequences: false)
        if all.last == "" { all.removeLast() }
        for raw in all {
            lineNumber += 1
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                Output.line("")
                continue
            }
            do {
                Output.line(try translate(line))
            } catch let failure {
                failures += 1
                Output.line("")
                Output.error(failure.text.replacingFirst("<input>:1:", with: "\(name):\(lineNumber):")
                    .replacingFirst("<input>:", with: "\(name):\(lineNumber): "))
            }
        }
        if failures > 0 {
            throw CommandFailure("error: \(failures) of \(lineNumber) lines failed")
        }
    }
}

extension WhereJSONDialect: ExpressibleByArgument {}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = range(of: target) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }
}
