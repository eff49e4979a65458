import ArgumentParser
import CQLKit

struct Fmt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a query in the canonical text of its own language.",
        discussion: """
            CQL, Usergrid and NSPredicate queries are printed canonically \
            (lowercase keywords, normalized spacing); where-JSON is read and \
            written back idiomatically (parse dialect, pretty-printed).
            """
    )

    @OptionGroup var input: QueryInput

    func run() throws {
        let text = try input.text()
        let (statement, language) = try input.parseStatement(text)
        do {
            if statement.isWrite || language == .rest {
                // A REST request is formatted as the CQL statement it means.
                return Output.line(try CQLFormatter.format(statement))
            }
            guard case .select(let query) = statement else { return }
            switch language {
            case .cql: Output.line(try CQLFormatter.format(query))
            case .usergrid: Output.line(try UsergridFormatter.format(query, literal: input.literal))
            case .whereJSON: Output.line(JSONWriter.string(try WhereJSONEmitter.emit(query, dialect: .parse), pretty: true))
            case .nspredicate: Output.line(try NSPredicateFormatter.format(query))
            case .rest: break
            }
        } catch {
            throw CommandFailure(error.withSource(text))
        }
    }
}
