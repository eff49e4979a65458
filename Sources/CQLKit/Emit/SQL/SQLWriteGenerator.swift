/// `cql translate --to sql` of a write statement: the SQL that applies it,
/// with the op semantics of CQL.md, every value bound.
///
/// - An insert is one `INSERT` of every row, each object built as `cql exec`
///   builds it (the columns' values, a fresh objectId, createdAt = updatedAt
///   = `now`).
/// - An update is one `UPDATE` of the row with the objectId, whose `WHERE`
///   also holds the extra condition and the ops' preconditions (an Increment
///   needs a number or nothing, an Add an array or nothing, ...), so that
///   it changes 1 row or none (``SQLWrite``). Each dialect writes the new
///   document from the old one: SQLite with `json_set` / `json_remove` /
///   `json_insert` on the stored text, PostgreSQL on the `json` text of
///   `raw` (member by member, so that untouched values keep their exact
///   text: `jsonb` would print `1e2` as `100`), from which `doc` is cast.
/// - A delete is a `DELETE` of the row, then one `DELETE` of the object's
///   rows in each relation table of its class (`_Join:<key>:<Class>`) that
///   `joinTables` names — only the database knows them.
///
/// AddRelation / RemoveRelation add statements after the `UPDATE`: the join
/// table (`CREATE TABLE IF NOT EXISTS`), then its rows inserted or deleted.
/// Those run only when the `UPDATE` changed its row.
///
/// What has no exact SQL is a named `unsupported` error, and `cql exec`
/// applies it by reading the object, applying the ops in memory and writing
/// it back: AddUnique / Remove of arrays, objects or typed values (semantic
/// equality of containers), a condition the dialect cannot express exactly,
/// a key SQLite's JSON paths cannot spell, NUL in PostgreSQL.
///
/// ```swift
/// let s = try Binder.bind(try CQLParser.parseStatement(
///     "update Account set amount = op('Decrement', {'amount': 50}) where objectId = 'a1' and amount >= 100"), parameters: [])
/// try SQLWriteGenerator.translate(s, dialect: .sqlite, now: .now, newObjectId: { "" }).statements[0].sql
/// // UPDATE "Account" AS t0 SET "doc" = json_set(json_set(t0."doc", '$."amount"', ...), '$."updatedAt"', ?5)
/// // WHERE t0."objectId" = ?1 AND (...amount >= 100...) AND (...amount is a number or missing...)
/// ```
public enum SQLWriteGenerator {
    public static func translate(
        _ statement: Statement, dialect name: SQLDialectName, now: DateValue, newObjectId: () -> String,
        joinTables: [String] = []
    ) throws(QueryError) -> SQLWrite {
        do throws(QueryError) {
            switch statement {
            case .select(let q):
                throw QueryError(.unsupported, "a select is a query: translate it with SQLGenerator", range: q.range)
            case .insert(let s):
                return SQLWrite([try insert(s, dialect: name, now: now, newObjectId: newObjectId)])
            case .update(let s):
                return SQLWrite(try update(s, dialect: name, now: now))
            case .delete(let s):
                return SQLWrite(try delete(s, dialect: name, joinTables: joinTables))
            }
        } catch {
            throw statement.source.map { error.withSource($0) } ?? error
        }
    }

    /// The relation tables of `className` among `tables`: what a delete of
    /// one of its objects also deletes rows from.
    public static func joinTables(of className: String, among tables: some Sequence<String>) -> [String] {
        tables.filter { $0.hasPrefix("_Join:") && $0.hasSuffix(":" + className) }.sorted()
    }

    static func insert(
        _ s: InsertStatement, dialect name: SQLDialectName, now: DateValue, newObjectId: () -> String
    ) throws(QueryError) -> SQLStatement {
        let dialect = name.writeDialect
        let stamp = Value.string(ISODate.format(now))
        var ctx = SQLContext(dialect: dialect)
        var rows: [String] = []
        var ids = Set<String>()
        for row in s.rows {
            var object: [String: Value] = [:]
            for (column, term) in zip(s.columns, row) { object[column.name] = try bound(term, s.range) }
            var id = newObjectId()
            for _ in 0..<100 where id.isEmpty || ids.contains(id) { id = newObjectId() }
            ids.insert(id)
            object["objectId"] = .string(id)
            object["createdAt"] = stamp
            object["updatedAt"] = stamp
            let json = JSONWriter.string(.object(object))
            if !dialect.storesNUL && json.contains("\\u0000") { throw nul(s.range) }
            let p = ctx.bind(.string(id)), d = ctx.bind(.string(json))
            // The date columns (SQLStoredColumns) hold the stamp's instant.
            let t = ctx.bind(.int(now.millisecondsSince1970))
            rows.append(dialect.insertRow(objectId: p, document: d, stamp: t))
        }
        return SQLStatement(sql: "INSERT INTO \(try dialect.quote(s.className)) \(dialect.insertColumns) VALUES " + rows.joined(separator: ", "),
                            arguments: ctx.arguments)
    }

    /// `DELETE FROM "Class" AS t0 WHERE t0."objectId" = ?1 [AND condition]`,
    /// then the join rows the object owned, once it is gone.
    static func delete(_ d: DeleteStatement, dialect name: SQLDialectName, joinTables: [String]) throws(QueryError) -> [SQLStatement] {
        var ctx = SQLContext(dialect: name.dialect)
        let id = try objectId(d.objectId, d.objectIdRange ?? d.range)
        let table = try ctx.dialect.quote(d.className)
        let idArgument = ctx.bind(.string(id))
        var sql = "DELETE FROM \(table) AS t0 WHERE t0.\"objectId\" = \(idArgument)"
        if let c = d.condition { sql += " AND " + (try condition(c, name, &ctx)) }
        var out = [SQLStatement(sql: sql, arguments: ctx.arguments)]
        for join in joinTables {
            let p = name.dialect.placeholder(1)
            out.append(SQLStatement(
                sql: "DELETE FROM \(try ctx.dialect.quote(join)) WHERE \"owningId\" = \(p) AND NOT EXISTS (SELECT 1 FROM \(table) WHERE \"objectId\" = \(p))",
                arguments: [.string(id)]))
        }
        return out
    }

    /// The `UPDATE`, then the join rows of its relation ops (run only when
    /// the `UPDATE` changed its row).
    static func update(_ u: UpdateStatement, dialect name: SQLDialectName, now: DateValue) throws(QueryError) -> [SQLStatement] {
        var ctx = SQLContext(dialect: name.dialect)
        let id = try objectId(u.objectId, u.objectIdRange ?? u.range)
        var steps: [SQLUpdateStep] = []
        for a in u.assignments { steps.append(try step(a, dialect: name)) }
        let plan = SQLUpdatePlan(className: u.className, objectId: id, steps: steps, updatedAt: now)
        let conditionSQL: String? = try u.condition.map { c throws(QueryError) in try condition(c, name, &ctx) }
        var out = [try name.writeDialect.update(plan, condition: conditionSQL, &ctx)]
        for step in steps {
            guard case .relation(let kind, _, let ids) = step.change else { continue }
            out += try joinRows(kind, key: step.key, owner: u.className, objectId: id, relatedIds: ids, dialect: name)
        }
        return out
    }

    /// AddRelation / RemoveRelation on `_Join:<key>:<Owner>`: the table
    /// (created when missing, as exec creates it; an empty relation table
    /// means what a missing one means), then one row added per related id
    /// not already there, or the rows of these ids removed.
    static func joinRows(_ kind: FieldOperation.Kind, key: String, owner: String, objectId: String, relatedIds: [String],
                         dialect name: SQLDialectName) throws(QueryError) -> [SQLStatement] {
        let d = name.writeDialect
        let join = try d.quote("_Join:\(key):\(owner)")
        var out = [SQLStatement(sql: "CREATE TABLE IF NOT EXISTS \(join) \(d.joinTableColumns)", arguments: [])]
        guard !relatedIds.isEmpty else { return out }
        let p1 = d.placeholder(1), p2 = d.placeholder(2)
        if kind == .removeRelation {
            let list = relatedIds.indices.map { d.placeholder($0 + 2) }.joined(separator: ", ")
            out.append(SQLStatement(sql: "DELETE FROM \(join) WHERE \"owningId\" = \(p1) AND \"relatedId\" IN (\(list))",
                                    arguments: [.string(objectId)] + relatedIds.map { .string($0) }))
        } else {
            for rid in relatedIds {
                out.append(SQLStatement(
                    sql: "INSERT INTO \(join) (\"owningId\", \"relatedId\") SELECT \(p1), \(p2) WHERE NOT EXISTS "
                        + "(SELECT 1 FROM \(join) WHERE \"owningId\" = \(p1) AND \"relatedId\" = \(p2))",
                    arguments: [.string(objectId), .string(rid)]))
            }
        }
        return out
    }

    /// One assignment as a step the dialects write, or a named error when
    /// it has no exact SQL.
    static func step(_ a: Assignment, dialect name: SQLDialectName) throws(QueryError) -> SQLUpdateStep {
        let key = a.key.name
        func unsupported(_ why: String) -> QueryError {
            QueryError(.unsupported, "\(name.rawValue): \(why); apply it with cql exec --sqlite FILE or --postgres URL "
                + "(it reads the object, applies the ops and writes it back in one transaction)", range: a.range)
        }
        let dialect = name.writeDialect
        if let why = dialect.unwritableKey(key) { throw unsupported(why) }
        if !dialect.storesNUL && key.unicodeScalars.contains("\0") { throw nul(a.range) }
        switch a.change {
        case .set(let t):
            let v = try bound(t, a.range)
            if !dialect.storesNUL && JSONWriter.string(v).contains("\\u0000") { throw nul(a.range) }
            return SQLUpdateStep(key: key, change: .set(v))
        case .operation(let op):
            let argument = try op.argument.map { t throws(QueryError) in try bound(t, a.range) }
            if !dialect.storesNUL, let argument, JSONWriter.string(argument).contains("\\u0000") { throw nul(a.range) }
            switch (op.kind, argument) {
            case (.delete, _):
                return SQLUpdateStep(key: key, change: .remove)
            case (.increment, let v?), (.decrement, let v?):
                guard v.numberValue != nil else { break }
                return SQLUpdateStep(key: key, change: .increment(v, negate: op.kind == .decrement))
            case (.add, .array(let items)?):
                return SQLUpdateStep(key: key, change: .add(items))
            case (.addUnique, .array(let items)?), (.remove, .array(let items)?):
                guard let scalars = SQLElementScalar.distinct(items) else {
                    throw unsupported("op('\(op.kind.rawValue)') with arrays, objects or typed values compares them by semantic equality")
                }
                return SQLUpdateStep(key: key, change: op.kind == .addUnique ? .addUnique(scalars) : .removeElements(scalars))
            case (.bitAnd, .int(let v)?), (.bitOr, .int(let v)?), (.bitXor, .int(let v)?):
                return SQLUpdateStep(key: key, change: .bit(op.kind, v))
            case (.addRelation, .array(let items)?), (.removeRelation, .array(let items)?):
                // As in memory: the first object's class sets or checks the key's
                // Relation (when it is a Pointer); every Pointer's id is a row.
                var ids: [String] = [], seen = Set<String>()
                for case .pointer(let p) in items where seen.insert(p.objectId).inserted { ids.append(p.objectId) }
                var className: String?
                if case .pointer(let first)? = items.first { className = first.className }
                return SQLUpdateStep(key: key, change: .relation(op.kind, className: className, relatedIds: ids))
            default:
                break
            }
            // The binder checks op arguments: this is an unbound or hand-built statement.
            throw QueryError(.binding, "op('\(op.kind.rawValue)') on '\(key)' needs \(op.kind.argumentDescription)", range: a.range)
        }
    }

    /// The extra condition of an update or delete, exact or a named error.
    static func condition(_ c: Condition, _ name: SQLDialectName, _ ctx: inout SQLContext) throws(QueryError) -> String {
        let fragment = try SQLGenerator.condition(c, &ctx)
        guard fragment.exact, let sql = fragment.sql else {
            throw QueryError(
                .unsupported,
                "\(name.rawValue) cannot express this condition exactly (\(ctx.rechecked.joined(separator: "; "))); "
                    + "apply the write with cql exec --sqlite FILE or --postgres URL",
                range: c.range)
        }
        return sql
    }

    static func objectId(_ t: Term, _ range: SourceRange?) throws(QueryError) -> String {
        guard case .string(let id) = try bound(t, range) else {
            throw QueryError(.invalidValue, "objectId must be a string", range: range)
        }
        return id
    }

    static func bound(_ t: Term, _ range: SourceRange?) throws(QueryError) -> Value {
        guard case .value(let v) = t else {
            throw QueryError(.binding, "the statement is not bound: a '?' or current_timestamp() has no value", range: range)
        }
        return v
    }

    static func nul(_ range: SourceRange?) -> QueryError {
        QueryError(.unsupported, "postgres: jsonb cannot hold a string with NUL (\\u0000)", range: range)
    }
}

/// An update, checked and ready for a dialect to write.
struct SQLUpdatePlan {
    var className: String
    var objectId: String
    var steps: [SQLUpdateStep]
    /// The new updatedAt.
    var now: DateValue
    /// The new updatedAt as the document holds it (ISO 8601).
    var updatedAt: String { ISODate.format(now) }

    init(className: String, objectId: String, steps: [SQLUpdateStep], updatedAt: DateValue) {
        self.className = className
        self.objectId = objectId
        self.steps = steps
        now = updatedAt
    }
}

/// What one assignment does to its key (CQL.md's op semantics).
struct SQLUpdateStep {
    var key: String
    var change: Change

    enum Change {
        case set(Value)
        /// `op('Delete')`.
        case remove
        /// Increment (or Decrement, `negate`) by an int or a double: a
        /// missing key counts as 0; ints stay exact (overflow refuses), a
        /// double on either side makes a double.
        case increment(Value, negate: Bool)
        case add([Value])
        case addUnique([(SQLElementScalar, Value)])
        case removeElements([(SQLElementScalar, Value)])
        case bit(FieldOperation.Kind, Int64)
        /// AddRelation or RemoveRelation: the key holds nothing or a
        /// Relation of `className` (the first object's class, when it is a
        /// Pointer: else the key is left alone); AddRelation sets it when
        /// missing. The join rows are statements of their own.
        case relation(FieldOperation.Kind, className: String?, relatedIds: [String])
    }
}
