import CQLEval
import CQLKit

/// What `cql translate` was asked to do, as plain values: the translator's
/// options and the query or the `--lines` input. ``Translate`` (read by
/// argument-parser) gives one; so does ``read(_:)`` for the common forms.
struct TranslateInvocation: Equatable {
    var translator: Translator
    /// The query text, or `-` for standard input.
    var query: String?
    /// `--lines FILE` (`-` for standard input).
    var lines: String?

    /// Why the options do not go together (the usage error's message), or
    /// nil when they do.
    var problem: String? {
        let to = translator.to
        if let dialect = translator.dialect {
            if to == .sql && dialect.sql == nil { return "--to sql takes --dialect sqlite or postgres" }
            if (to == .where || to == .rest) && dialect.whereJSON == nil { return "--to \(to.rawValue) takes --dialect leancloud, parse or mongo" }
        }
        if translator.conditionOnly && to != .nspredicate { return "--condition-only applies to --to nspredicate." }
        if lines != nil && query != nil { return "Give either a QUERY or --lines FILE, not both." }
        if lines == nil && query == nil { return "Missing expected argument '<query>' (or --lines FILE)." }
        return nil
    }

    func run() throws {
        if let lines { return try runLines(lines) }
        let text = try QueryInput.text(of: query)
        var warnings: [String] = []
        defer { warnings.forEach(Output.warning) }  // before an error's message, as they arose
        Output.line(try translator.translate(text, warnings: &warnings))
    }

    /// `--lines`: a bad line reports its error (with its line number) and
    /// leaves an empty output line; the run goes on and exits 1 at the end.
    /// Lines end at `\n` (a `\r` before it is dropped), found by byte, not
    /// by Character: `"\r\n"` is one Character, so a Character split read a
    /// CRLF file as a single line. ``LineTranslation`` shares the lines out
    /// among the cores and writes the results in input order.
    private func runLines(_ path: String) throws {
        let reader = LineBlockReader(path: path == "-" ? "<stdin>" : path, standardInput: path == "-",
                                     maxLineLength: LineTranslation.maxLineLength)
        let run = LineTranslation(translator: translator, name: reader.path)
        let (lines, failures) = try run.run(reader)
        if failures > 0 {
            throw CommandFailure("error: \(failures) of \(lines) lines failed")
        }
    }
}

extension TranslateInvocation {
    /// The invocation that `arguments` (those after `translate`) spell, read
    /// without argument-parser, or nil when they are not in the plain form
    /// this reads: long options, each at most once, a value as the next
    /// argument (not after `=`, not starting with `-`), at most one query,
    /// values the options accept, options that go together. Everything else
    /// (help, short names, `--`, a bad value, a usage error) is nil, and
    /// argument-parser reads it, with its messages and usage.
    ///
    /// Why: argument-parser builds a command's options by reflection, and
    /// each new (type, protocol) pair costs the Swift runtime a scan of every
    /// protocol conformance in the binary (NIO, GRDB and static Foundation
    /// included): most of a one-query `cql translate` and the largest serial
    /// part of `--lines`. `TranslateInvocationTests` checks it against
    /// argument-parser's reading over thousands of argument lists: wherever
    /// this one gives an invocation, argument-parser gives the same.
    ///
    ///     read(["--to", "sql", "select * from T"])
    ///     // translator.to == .sql, query "select * from T", lines nil
    static func read(_ arguments: some Collection<String>) -> TranslateInvocation? {
        var to: TargetLanguage?, dialect: OutputDialect?, language: QueryLanguage?, limit: Int?
        // Arrays, not a Dictionary and a Set: their generic types would cost
        // the runtime a conformance scan each, more than this whole reading.
        var strings: [(name: String, value: String)] = []
        var flags: [String] = []
        var query: String?
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("-"), argument != "-" else {
                if query != nil { return nil }
                query = argument
                continue
            }
            guard argument.hasPrefix("--"), !argument.contains("=") else { return nil }
            let name = String(argument.dropFirst(2))
            switch name {
            case "literal", "condition-only", "pretty", "mongo-id", "optimize", "no-optimize":
                guard !flags.contains(name) else { return nil }
                flags.append(name)
                continue
            case "to", "dialect", "from", "params", "args", "vars", "class", "limit", "cursor", "lines":
                break
            default:
                return nil
            }
            guard let value = iterator.next(), !value.hasPrefix("-") || value == "-" else { return nil }
            switch name {
            case "to":
                guard to == nil, let v = TargetLanguage(rawValue: value) else { return nil }
                to = v
            case "dialect":
                guard dialect == nil, let v = OutputDialect(rawValue: value) else { return nil }
                dialect = v
            case "from":
                guard language == nil, let v = QueryLanguage(rawValue: value) else { return nil }
                language = v
            case "limit":
                guard limit == nil, let v = Int(value) else { return nil }
                limit = v
            default:
                guard !strings.contains(where: { $0.name == name }) else { return nil }
                strings.append((name, value))
            }
        }
        if flags.contains("optimize") && flags.contains("no-optimize") { return nil }
        func string(_ name: String) -> String? { strings.first { $0.name == name }?.value }
        let settings = QuerySettings(
            language: language, params: string("params"), args: string("args"), vars: string("vars"),
            className: string("class") ?? "", literal: flags.contains("literal"), limit: limit, cursor: string("cursor"))
        let invocation = TranslateInvocation(
            translator: Translator(input: settings, optimize: !flags.contains("no-optimize"), to: to ?? .where, dialect: dialect,
                                   conditionOnly: flags.contains("condition-only"), pretty: flags.contains("pretty"),
                                   mongoId: flags.contains("mongo-id")),
            query: query, lines: string("lines"))
        return invocation.problem == nil ? invocation : nil
    }
}
