import ArgumentParser
import CQLKit

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show how a query is read: tokens, AST, and each backend's output."
    )

    @OptionGroup var input: QueryInput

    func run() throws {
        let text = try input.text()
        let language = input.language ?? QueryLanguage.detect(text)
        Output.line("language: \(language.rawValue)")
        if language != .whereJSON {
            Output.line("tokens:")
            do {
                for line in try tokenLines(text, language) { Output.line("  " + line) }
            } catch {
                throw CommandFailure(error.withSource(text))
            }
        }
        let (parsed, _) = try input.parse(text)
        Output.line("ast:")
        for line in ASTPrinter.describe(parsed).split(separator: "\n") { Output.line("  " + line) }
        let bound = try input.bind(parsed, source: text, resolveTime: true)
        if bound != parsed {
            Output.line("bound ast:")
            for line in ASTPrinter.describe(bound).split(separator: "\n") { Output.line("  " + line) }
        }
        Output.line("output:")
        for dialect in WhereJSONDialect.allCases {
            Output.line("  where (\(dialect.rawValue)): " + attempt { () throws(QueryError) -> String in JSONWriter.string(try WhereJSONEmitter.emit(bound, dialect: dialect)) })
        }
        Output.line("  cql: " + attempt { () throws(QueryError) -> String in try CQLFormatter.format(parsed) })
        Output.line("  usergrid: " + attempt { () throws(QueryError) -> String in try UsergridFormatter.format(parsed, literal: input.literal) })
        Output.line("  nspredicate: " + attempt { () throws(QueryError) -> String in try NSPredicateFormatter.format(parsed) })
    }

    private func attempt(_ body: () throws(QueryError) -> String) -> String {
        do { return try body() } catch { return "error: " + error.message }
    }

    private func tokenLines(_ text: String, _ language: QueryLanguage) throws(QueryError) -> [String] {
        var rows: [(String, String, String)] = []
        switch language {
        case .cql:
            for t in try CQLLexer.tokenize(text) { rows.append((position(t.range, text), "\(t.kind)", t.text)) }
        case .usergrid:
            for t in try UsergridLexer.tokenize(text) { rows.append((position(t.range, text), "\(t.kind)", t.text)) }
        case .nspredicate:
            for t in try NSPredicateLexer.tokenize(text) { rows.append((position(t.range, text), "\(t.kind)", t.text)) }
        case .whereJSON:
            break
        }
        let w0 = rows.map(\.0.count).max() ?? 0
        let w1 = rows.map(\.1.count).max() ?? 0
        return rows.map { $0.0.padding(w0) + "  " + $0.1.padding(w1) + "  " + $0.2 }
    }

    private func position(_ range: SourceRange, _ text: String) -> String {
        let e = QueryError(.syntax, "", range: range, source: text)
        guard let (l, c) = e.lineAndColumn else { return "?" }
        return "\(l):\(c)"
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
