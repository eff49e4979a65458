import ArgumentParser
import CQLKit
import Foundation

/// Where a query comes from and how to read it; shared by the subcommands.
struct QueryInput: ParsableArguments {
    @Argument(help: "The query text, or '-' to read it from standard input.")
    var query: String?

    @Option(name: .customLong("from"), help: "Input language: cql, usergrid or where (default: detected).")
    var language: QueryLanguage?

    @Option(help: "Values for the ? placeholders, as a JSON array (typed values in their REST form).")
    var params: String?

    @Option(name: .customLong("class"), help: "Class (collection) name for Usergrid queries and bare where-JSON conditions.")
    var className: String = ""

    @Flag(help: "Usergrid: string '=' and ranges are exact and case-sensitive instead of Usergrid's case-insensitive matches.")
    var literal = false

    @Option(help: "Usergrid: the 'limit' URL parameter (1...1000, default 10; larger values are cut to 1000).")
    var limit: Int?

    @Option(help: "Usergrid: the 'cursor' URL parameter (an opaque token for the next page).")
    var cursor: String?

    /// The query text (reading standard input for `-`).
    func text() throws -> String {
        guard let query else { throw ValidationError("Missing expected argument '<query>'") }
        if query == "-" { return readStandardInput() }
        return query
    }

    /// The parsed, not yet bound, query and the language it was read in.
    func parse(_ text: String) throws(CommandFailure) -> (Query, QueryLanguage) {
        let lang = language ?? QueryLanguage.detect(text)
        if lang != .usergrid && (limit != nil || cursor != nil) {
            throw CommandFailure("error: --limit and --cursor are Usergrid's URL parameters; \(lang.rawValue) queries carry their own limit and skip", status: 2)
        }
        do {
            return (try lang.parse(text, className: className, literal: literal, limit: limit, cursor: cursor), lang)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The parameters, decoded (typed REST values become typed values).
    func parameters() throws(CommandFailure) -> [Value]? {
        guard let params else { return nil }
        do throws(QueryError) {
            let v = try JSONReader.parse(params).decodingTypedValues()
            guard case .array(let items) = v else {
                throw QueryError(.binding, "--params must be a JSON array, found \(v.typeDescription)", range: SourceRange(0, params.utf8.count), source: params)
            }
            return items
        } catch {
            throw CommandFailure(error.withSource(params), inputName: "<params>")
        }
    }

    /// Binds placeholders (and, with `resolveTime`, time functions) when needed.
    func bind(_ query: Query, source: String, resolveTime: Bool) throws(CommandFailure) -> Query {
        let values = try parameters()
        if values == nil && !resolveTime { return query }
        do {
            return try Binder.bind(query, parameters: values ?? [], now: resolveTime ? .now : nil)
        } catch {
            throw CommandFailure(error.withSource(source))
        }
    }
}

extension QueryLanguage: ExpressibleByArgument {}

extension DateValue {
    /// The current instant.
    static var now: DateValue {
        DateValue(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}

func readStandardInput() -> String {
    let data = FileHandle.standardInput.readDataToEndOfFile()
    return String(decoding: data, as: UTF8.self)
}
