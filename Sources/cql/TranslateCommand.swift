import ArgumentParser
import CQLEval
import CQLKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        abstract: "Translate a query to REST where-JSON, SQL (SQLite, PostgreSQL), CQL, Usergrid or NSPredicate text.",
        discussion: """
            Examples:
              cql translate "select * from GameScore where score > 80 order by -score limit 10"
              cql translate --dialect mongo --pretty "select * from T where name regexp 'a.c'"
              cql translate --from usergrid --to where "name = 'fred*' order by age desc"
              cql translate --to sql --dialect postgres "select * from GameScore where score > 80 limit 5"
              cql translate --to sql "update T set n = op('Increment', {'amount': 1}) where objectId = 'a1'"
              cql translate --from nspredicate --class GameScore --args '["Dan", 18]' "playerName = %@ AND playerAge > %d"
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
        if let dialect {
            if to == .sql && dialect.sql == nil { throw ValidationError("--to sql takes --dialect sqlite or postgres") }
            if (to == .where || to == .rest) && dialect.whereJSON == nil { throw ValidationError("--to \(to.rawValue) takes --dialect leancloud, parse or mongo") }
        }
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
        let (statement, language) = try input.parseStatement(text)
        guard case .select(let parsed) = statement, to != .rest else { return try translateWrite(statement, language, text) }
        let query = try optimizer.apply(try input.bind(parsed, source: text, resolveTime: to == .where || to == .sql), source: text)
        // CQL is LeanCloud's language, so its queries target LeanCloud unless told
        // otherwise; Usergrid and where-JSON input default to Parse Server's
        // dialect, the most expressive REST one (it has `$nor` for Usergrid's `not`).
        let dialect = self.dialect?.whereJSON ?? (language == .cql ? .leancloud : .parse)
        do {
            switch to {
            case .where:
                let request = try WhereJSONEmitter.emit(query, dialect: dialect, objectIdAsMongoId: mongoId)
                return JSONWriter.string(request, pretty: pretty)
            case .sql:
                let translation = try SQLGenerator.translate(query, dialect: self.dialect?.sql ?? .sqlite)
                return JSONWriter.string(translation.json, pretty: pretty)
            case .cql: return try CQLFormatter.format(query)
            case .usergrid: return try UsergridFormatter.format(query, literal: input.literal)
            case .nspredicate: return try NSPredicateFormatter.format(query, conditionOnly: conditionOnly)
            case .rest: return ""
            }
        } catch {
            throw CommandFailure(error.withSource(text))
        }
    }

    /// A write statement's output: `--to rest` (default for writes) or `--to cql`.
    func translateWrite(_ statement: Statement, _ language: QueryLanguage, _ text: String) throws(CommandFailure) -> String {
        do {
            switch to {
            case .cql:
                return try CQLFormatter.format(statement)
            case .rest where statement.isWrite, .where where statement.isWrite:
                let bound = try input.bind(statement, source: text)
                return JSONWriter.string(try RESTEmitter.emit(bound, dialect: dialect?.whereJSON ?? .leancloud), pretty: pretty)
            case .rest:
                throw QueryError(.unsupported, "--to rest translates writes (insert, update, delete); translate a select --to where", range: statement.range)
            case .sql where statement.isWrite:
                // One instant for current_timestamp() and the createdAt/updatedAt written.
                let now = DateValue.now
                let bound = try input.bind(statement, source: text, now: now)
                if case .delete(let d) = bound {
                    // Only the database knows which _Join:<key>:<Class> tables exist: exec deletes their rows too.
                    Output.warning("the object's relation rows (tables _Join:<key>:\(d.className)) are not deleted by this SQL: "
                        + "only the database knows those tables; cql exec --sqlite FILE or --postgres URL deletes them too")
                }
                return JSONWriter.string(try SQLWriteGenerator.translate(
                    bound, dialect: self.dialect?.sql ?? .sqlite, now: now, newObjectId: StatementExecutor.randomObjectId).json, pretty: pretty)
            case .where, .usergrid, .nspredicate, .sql:
                throw QueryError(.unsupported, "'\(statement.verb)' is a write: translate it --to rest or --to cql", range: statement.range)
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as QueryError {
            throw CommandFailure(error.withSource(text))
        } catch {
            throw CommandFailure("error: \(error)")
        }
    }

    /// `--lines`: a bad line reports its error (with its line number) and
    /// leaves an empty output line; the run goes on and exits 1 at the end.
    /// Lines end at `\n` (a `\r` before it is dropped), found by byte, not
    /// by Character: `"\r\n"` is one Character, so a Character split read a
    /// CRLF file as a single line.
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
        var utf8 = content
        utf8.makeContiguousUTF8()
        utf8.utf8.withContiguousStorageIfAvailable { bytes in
            LineSplitter.forEachLine(bytes) { line in
                lineNumber += 1
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                    Output.line("")
                    return
                }
                let text = String(decoding: line, as: UTF8.self)
                do throws(CommandFailure) {
                    Output.line(try translate(text))
                } catch let failure {
                    failures += 1
                    Output.line("")
                    Output.error(failure.text.replacingFirst("<input>:1:", with: "\(name):\(lineNumber):")
                        .replacingFirst("<input>:", with: "\(name):\(lineNumber): "))
                }
            }
        }
        if failures > 0 {
            throw CommandFailure("error: \(failures) of \(lineNumber) lines failed")
        }
    }
}

/// The lines of a text by byte: each ends at `\n` (a final line need not),
/// without its `\n` or a `\r` before it.
enum LineSplitter {
    static func forEachLine(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            var end = bytes.count
            var next = bytes.count
            if let hit = memchr(base + start, 0x0A, bytes.count - start) {
                end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                next = end + 1
            }
            var stop = end
            if stop > start && base[stop - 1] == 0x0D { stop -= 1 }
            body(UnsafeBufferPointer(start: base + start, count: stop - start))
            start = next
        }
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = range(of: target) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }
}
