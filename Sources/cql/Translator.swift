import CQLEval
import CQLKit

/// What `translate` does to one query, with its options as plain values
/// (``Translate`` reads them from the command line once; `--lines` runs
/// this for every line).
struct Translator: Equatable {
    var input: QuerySettings
    var optimize: Bool
    var to: TargetLanguage
    var dialect: OutputDialect?
    var conditionOnly: Bool
    var pretty: Bool
    var mongoId: Bool

    /// Appends one query's output text to `out` (nothing when it throws):
    /// compact where-JSON of a select is written straight to bytes, the
    /// rest as ``translate(_:warnings:cqlParser:)`` gives it. CQL is read
    /// with `cqlParser` when one is given.
    func write(_ text: String, to out: inout [UInt8], warnings: inout [String], cqlParser: ReusableCQLParser? = nil) throws(CommandFailure) {
        guard to == .where || to == .sql, !pretty else {
            return out.append(contentsOf: try translate(text, warnings: &warnings, cqlParser: cqlParser).utf8)
        }
        let (statement, language) = try input.parseStatement(text, cqlParser: cqlParser)
        // Consumed, so the query is moved out rather than copied (and the
        // statement's copy destroyed after).
        let parsed: Query
        switch consume statement {
        case .select(let q): parsed = q
        case let write: return out.append(contentsOf: try translateWrite(write, language, text, warnings: &warnings).utf8)
        }
        let query = try optimizer(try input.bind(consume parsed, source: text, resolveTime: true), source: text)
        let dialect = self.dialect?.whereJSON ?? (language == .cql ? .leancloud : .parse)
        do {
            if to == .sql {
                // Written straight into the output, as the where-JSON is.
                try SQLGenerator.translate(query, dialect: self.dialect?.sql ?? .sqlite).write(to: &out)
            } else {
                try WhereJSONEmitter.write(query, dialect: dialect, objectIdAsMongoId: mongoId, to: &out)
            }
        } catch {
            throw CommandFailure(error.withSource(text))
        }
    }

    /// One query's output text. Warnings (the run goes on) are appended to
    /// `warnings` rather than printed, so `--lines` can print them in line
    /// order whichever thread translated the line.
    func translate(_ text: String, warnings: inout [String], cqlParser: ReusableCQLParser? = nil) throws(CommandFailure) -> String {
        let (statement, language) = try input.parseStatement(text, cqlParser: cqlParser)
        guard case .select(let parsed) = statement, to != .rest else {
            return try translateWrite(statement, language, text, warnings: &warnings)
        }
        let query = try optimizer(try input.bind(parsed, source: text, resolveTime: to == .where || to == .sql), source: text)
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
    func translateWrite(
        _ statement: Statement, _ language: QueryLanguage, _ text: String, warnings: inout [String]
    ) throws(CommandFailure) -> String {
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
                    warnings.append("the object's relation rows (tables _Join:<key>:\(d.className)) are not deleted by this SQL: "
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

    /// The query the backend gets (``OptimizeOption/apply(_:source:)``).
    private func optimizer(_ query: consuming Query, source: String) throws(CommandFailure) -> Query {
        guard optimize else { return query }
        do {
            return try Optimizer.optimize(consume query)
        } catch {
            throw CommandFailure(error.withSource(source))
        }
    }
}
