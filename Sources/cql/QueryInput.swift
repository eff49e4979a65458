import ArgumentParser
import CQLKit
import Foundation

/// Where a query comes from and how to read it; shared by the subcommands.
struct QueryInput: ParsableArguments {
    @Argument(help: "The query text, or '-' to read it from standard input.")
    var query: String?

    @Option(name: .customLong("from"), help: "Input language: cql, usergrid, where, nspredicate or rest (a REST write request; default: detected; nspredicate and rest never are).")
    var language: QueryLanguage?

    @Option(help: "Values for the ? placeholders, as a JSON array (typed values in their REST form).")
    var params: String?

    @Option(help: "NSPredicate: the values of %@ %K %d ... in order, as a JSON array (typed values in their REST form; a sub-query as {\"__type\":\"Query\",\"className\":C,\"where\":{..}} or {\"__type\":\"Query\",\"cql\":\"select ...\"}).")
    var args: String?

    @Option(help: "NSPredicate: the values of the $NAME variables, as a JSON object.")
    var vars: String?

    @Option(name: .customLong("class"), help: "Class (collection) name for Usergrid and NSPredicate queries and bare where-JSON conditions.")
    var className: String = ""

    @Flag(help: "Usergrid: string '=' and ranges are exact and case-sensitive instead of Usergrid's case-insensitive matches.")
    var literal = false

    @Option(help: "Usergrid: the 'limit' URL parameter (1...1000, default 10; larger values are cut to 1000).")
    var limit: Int?

    @Option(help: "Usergrid: the 'cursor' URL parameter (an opaque token for the next page).")
    var cursor: String?

    /// The query text (reading standard input for `-`).
    func text() throws -> String { try Self.text(of: query) }

    /// The text of a `<query>` argument (reading standard input for `-`).
    static func text(of query: String?) throws -> String {
        guard let query else { throw ValidationError("Missing expected argument '<query>'") }
        if query == "-" { return readStandardInput() }
        return query
    }

    /// The options as plain values, read once (a property wrapper's getter
    /// costs a lookup on every read: `translate --lines` reads them per line).
    var settings: QuerySettings {
        QuerySettings(language: language, params: params, args: args, vars: vars, className: className,
                      literal: literal, limit: limit, cursor: cursor)
    }

    /// The parsed, not yet bound, query and the language it was read in.
    func parse(_ text: String) throws(CommandFailure) -> (Query, QueryLanguage) { try settings.parse(text) }

    /// The parsed, not yet bound, statement (a query or a write) and its language.
    func parseStatement(_ text: String) throws(CommandFailure) -> (Statement, QueryLanguage) { try settings.parseStatement(text) }

    /// Binds a statement's placeholders and time functions (`current_timestamp()`
    /// becomes the current instant).
    func bind(_ statement: Statement, source: String, now: DateValue = .now) throws(CommandFailure) -> Statement {
        try settings.bind(statement, source: source, now: now)
    }

    /// Binds placeholders (and, with `resolveTime`, time functions) when needed.
    /// The query is consumed: when nothing changes, it is moved back out.
    func bind(_ query: consuming Query, source: String, resolveTime: Bool) throws(CommandFailure) -> Query {
        try settings.bind(query, source: source, resolveTime: resolveTime)
    }
}

/// The query options of ``QueryInput`` as plain values, and what they do:
/// parse in the chosen (or detected) language, bind the parameters.
struct QuerySettings: Equatable {
    var language: QueryLanguage?
    var params: String?
    var args: String?
    var vars: String?
    var className: String
    var literal: Bool
    var limit: Int?
    var cursor: String?

    /// The parsed, not yet bound, query and the language it was read in.
    func parse(_ text: String) throws(CommandFailure) -> (Query, QueryLanguage) {
        let lang = language ?? QueryLanguage.detect(text)
        if lang != .usergrid && (limit != nil || cursor != nil) {
            throw CommandFailure("error: --limit and --cursor are Usergrid's URL parameters; \(lang.rawValue) queries carry their own limit and skip", status: 2)
        }
        if lang != .nspredicate && (args != nil || vars != nil) {
            throw CommandFailure("error: --args and --vars bind NSPredicate placeholders; give --from nspredicate (or --params for ? placeholders)", status: 2)
        }
        if lang == .nspredicate && params != nil {
            throw CommandFailure("error: NSPredicate has no ? placeholders; give %@ values with --args", status: 2)
        }
        let arguments = try argumentValues()
        let variables = try variableValues()
        do {
            return (try lang.parse(text, className: className, literal: literal, limit: limit, cursor: cursor,
                                   arguments: arguments, variables: variables), lang)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The parsed, not yet bound, statement (a query or a write) and its language; CQL is read
    /// with `cqlParser` when one is given (`--lines` keeps one per thread).
    func parseStatement(_ text: String, cqlParser: ReusableCQLParser? = nil) throws(CommandFailure) -> (Statement, QueryLanguage) {
        let lang = language ?? QueryLanguage.detect(text)
        if lang != .cql && lang != .rest { let (q, l) = try parse(text); return (.select(q), l) }
        if limit != nil || cursor != nil {
            throw CommandFailure("error: --limit and --cursor are Usergrid's URL parameters; \(lang.rawValue) statements carry their own limit and skip", status: 2)
        }
        if args != nil || vars != nil {
            throw CommandFailure("error: --args and --vars bind NSPredicate placeholders; give --from nspredicate (or --params for ? placeholders)", status: 2)
        }
        do {
            return (try lang.parseStatement(text, reusing: cqlParser), lang)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Binds a statement's placeholders and time functions (`current_timestamp()`
    /// becomes the current instant).
    func bind(_ statement: Statement, source: String, now: DateValue = .now) throws(CommandFailure) -> Statement {
        if case .select(let q) = statement { return .select(try bind(q, source: source, resolveTime: true)) }
        let values = try parameters()
        do {
            return try Binder.bind(statement, parameters: values ?? [], now: now)
        } catch {
            throw CommandFailure(error.withSource(source))
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

    /// `--args`: a JSON array, kept in REST form (the NSPredicate parser
    /// decodes each argument and recognizes sub-queries).
    func argumentValues() throws(CommandFailure) -> [Value] {
        guard let args else { return [] }
        do throws(QueryError) {
            let v = try JSONReader.parse(args)
            guard case .array(let items) = v else {
                throw QueryError(.binding, "--args must be a JSON array, found \(v.typeDescription)", range: SourceRange(0, args.utf8.count), source: args)
            }
            return items
        } catch {
            throw CommandFailure(error.withSource(args), inputName: "<args>")
        }
    }

    /// `--vars`: a JSON object of `$NAME` values.
    func variableValues() throws(CommandFailure) -> [String: Value] {
        guard let vars else { return [:] }
        do throws(QueryError) {
            let v = try JSONReader.parse(vars)
            guard case .object(let members) = v else {
                throw QueryError(.binding, "--vars must be a JSON object, found \(v.typeDescription)", range: SourceRange(0, vars.utf8.count), source: vars)
            }
            return members
        } catch {
            throw CommandFailure(error.withSource(vars), inputName: "<vars>")
        }
    }

    /// Binds placeholders (and, with `resolveTime`, time functions) when needed.
    /// The query is consumed: when nothing changes, it is moved back out.
    func bind(_ query: consuming Query, source: String, resolveTime: Bool) throws(CommandFailure) -> Query {
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

func readStandardInput() -> String {
    let data = FileHandle.standardInput.readDataToEndOfFile()
    return String(decoding: data, as: UTF8.self)
}
