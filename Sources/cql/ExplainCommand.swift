import ArgumentParser
import CQLKit

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show how a query is read: tokens, AST, the optimizer's rewrites, and each backend's output.",
        discussion: """
            Each optimizer rule that changed the query is listed with the query \
            in canonical CQL before and after it; the backends' outputs are \
            those of `translate` (optimized unless --no-optimize).
            """
    )

    @OptionGroup var input: QueryInput

    @OptionGroup var optimizer: OptimizeOption

    func run() throws {
        let text = try input.text()
        let language = input.language ?? QueryLanguage.detect(text)
        Output.line("language: \(language.rawValue)")
        if language != .whereJSON && language != .rest {
            Output.line("tokens:")
            do {
                for line in try tokenLines(text, language) { Output.line("  " + line) }
            } catch {
                throw CommandFailure(error.withSource(text))
            }
        }
        let (statement, _) = try input.parseStatement(text)
        guard case .select(let parsed) = statement else { return try explainWrite(statement, text) }
        Output.line("ast:")
        for line in ASTPrinter.describe(parsed).split(separator: "\n") { Output.line("  " + line) }
        let bound = try input.bind(parsed, source: text, resolveTime: true)
        if bound != parsed {
            Output.line("bound ast:")
            for line in ASTPrinter.describe(bound).split(separator: "\n") { Output.line("  " + line) }
        }
        var final = bound
        // Text outputs as `translate --to cql` makes them: time functions stay unresolved.
        var textQuery = try input.bind(parsed, source: text, resolveTime: false)
        if optimizer.optimize {
            let result: Optimizer.Result
            do {
                result = try Optimizer().optimize(bound)
            } catch {
                throw CommandFailure(error.withSource(text))
            }
            Output.line(result.steps.isEmpty ? "optimizer: no rule applies" : "optimizer:")
            for step in result.steps {
                Output.line("  \(step.rule)")
                Output.line("    before: " + attempt { () throws(QueryError) -> String in try CQLFormatter.format(step.before) })
                Output.line("    after:  " + attempt { () throws(QueryError) -> String in try CQLFormatter.format(step.after) })
            }
            final = result.query
            if !result.steps.isEmpty {
                Output.line("optimized ast:")
                for line in ASTPrinter.describe(final).split(separator: "\n") { Output.line("  " + line) }
            }
            textQuery = try optimizer.apply(textQuery, source: text)
        } else {
            Output.line("optimizer: off (--no-optimize)")
        }
        Output.line("output:")
        for dialect in WhereJSONDialect.allCases {
            Output.line("  where (\(dialect.rawValue)): " + attempt { () throws(QueryError) -> String in JSONWriter.string(try WhereJSONEmitter.emit(final, dialect: dialect)) })
        }
        for dialect in SQLDialectName.allCases {
            Output.line("  sql (\(dialect.rawValue)): " + attempt { () throws(QueryError) -> String in JSONWriter.string(try SQLGenerator.translate(final, dialect: dialect).json) })
        }
        Output.line("  cql: " + attempt { () throws(QueryError) -> String in try CQLFormatter.format(textQuery) })
        Output.line("  usergrid: " + attempt { () throws(QueryError) -> String in try UsergridFormatter.format(textQuery, literal: input.literal) })
        Output.line("  nspredicate: " + attempt { () throws(QueryError) -> String in try NSPredicateFormatter.format(textQuery) })
    }

    /// A write: its canonical CQL and the REST request(s) it means.
    private func explainWrite(_ statement: Statement, _ text: String) throws {
        Output.line("ast:")
        for line in ASTPrinter.describe(statement).split(separator: "\n") { Output.line("  " + line) }
        let bound = try input.bind(statement, source: text)
        if bound != statement {
            Output.line("bound ast:")
            for line in ASTPrinter.describe(bound).split(separator: "\n") { Output.line("  " + line) }
        }
        Output.line("output:")
        Output.line("  cql: " + attempt { () throws(QueryError) -> String in try CQLFormatter.format(statement) })
        Output.line("  rest: " + attempt { () throws(QueryError) -> String in JSONWriter.string(try RESTEmitter.emit(bound)) })
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
        case .whereJSON, .rest:
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
