import ArgumentParser
import CQLKit

/// Output languages of `translate`.
enum TargetLanguage: String, ExpressibleByArgument, CaseIterable {
    case `where`, cql, usergrid, nspredicate, sql
    /// The REST request(s) of a write (insert, update, delete).
    case rest
}

/// `--dialect`: a where-JSON dialect or an SQL dialect.
enum OutputDialect: String, ExpressibleByArgument, CaseIterable {
    case leancloud, parse, mongo, sqlite, postgres

    var whereJSON: WhereJSONDialect? { WhereJSONDialect(rawValue: rawValue) }
    var sql: SQLDialectName? { SQLDialectName(rawValue: rawValue) }
}

struct Translate: ParsableCommand {
    static let configuration = CommandConfiguration(
        _superCommandName: "cql",
        abstract: "Translate a query to REST where-JSON, SQL (SQLite, PostgreSQL), CQL, Usergrid or NSPredicate text.",
        // One line per paragraph and examples under 78 columns (see Eval).
        discussion: """
            CQL input goes to the leancloud where-JSON dialect by default, \
            other input to parse. --lines FILE translates one query per line \
            in constant memory: a bad line prints its error with its line \
            number and the run goes on (exit status 1 at the end).

            Examples:
              cql translate "select * from T where score > 80 limit 10"
              cql translate --dialect mongo "select * from T where a regexp 'x'"
              cql translate --from usergrid --to where "name = 'fred*'"
              cql translate --to sql --dialect postgres "select * from T"
              cql translate --to rest "delete from T where objectId = 'a1'"
              cql translate --from nspredicate --args '[18]' "age > %d"
              cql translate --lines queries.txt
            """
    )

    @OptionGroup var input: QueryInput

    @OptionGroup var optimizer: OptimizeOption

    @Option(help: "Output: where, sql, cql, usergrid, nspredicate, or rest (the REST request of an insert, update or delete).")
    var to: TargetLanguage = .where

    @Option(help: "where-JSON dialect: leancloud, parse or mongo (default: leancloud for CQL input, parse otherwise); SQL dialect: sqlite (default) or postgres.")
    var dialect: OutputDialect?

    @Flag(name: .customLong("condition-only"), help: "nspredicate output: write the condition alone, leaving out order, limit, skip and keys (set them on the query object).")
    var conditionOnly = false

    @Flag(help: "Indent the JSON output.")
    var pretty = false

    @Flag(name: .customLong("mongo-id"), help: "mongo dialect: write the objectId key as MongoDB's _id.")
    var mongoId = false

    @Option(help: "Translate each line of FILE ('-' for standard input) as its own query; one output line per input line.")
    var lines: String?

    func validate() throws {
        if let problem = invocation.problem { throw ValidationError(problem) }
    }

    func run() throws {
        try invocation.run()
    }

    /// The options as plain values, read once for every query of a run
    /// (a property wrapper's getter costs a lookup on every read).
    var invocation: TranslateInvocation {
        TranslateInvocation(
            translator: Translator(input: input.settings, optimize: optimizer.optimize, to: to, dialect: dialect,
                                   conditionOnly: conditionOnly, pretty: pretty, mongoId: mongoId),
            query: input.query, lines: lines)
    }
}


extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = range(of: target) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }
}
