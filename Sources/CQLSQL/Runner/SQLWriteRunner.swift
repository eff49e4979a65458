import CQLEval
import CQLKit

/// `cql exec --sqlite|--postgres`: a write (insert, update, delete) applied
/// to a database in one transaction, with exactly the meaning it has in
/// memory.
///
/// An update or a delete runs as the SQL `SQLWriteGenerator` writes for
/// it (what `cql translate --to sql` prints), inside a savepoint. When it
/// changes the row, that is the write. When it changes nothing or fails,
/// the runner finds out why by the exact path below, which throws error 101,
/// 305 or the op's own error.
///
/// The exact path — for what has no SQL text of the same meaning
/// (AddUnique/Remove of containers, conditions the dialect cannot express
/// exactly) and for inserts: inside the transaction the
/// runner reads what the statement reads (the target row by its
/// `objectId`, the classes and join rows its condition and relation ops
/// need), applies the evaluator's own `StatementExecutor` to them — the op
/// semantics, errors 101 and 305, fresh objectIds, createdAt/updatedAt —
/// and writes back exactly the rows that changed. Any error rolls the
/// transaction back: the database is left as it was.
///
/// ```swift
/// let db = try SQLiteDatabase(path: "app.db")
/// let s = try Binder.bind(try CQLParser.parseStatement(
///     "update Account set amount = op('Decrement', {'amount': 50}) where objectId = 'a1' and amount >= 100"), parameters: [])
/// try SQLWriteRunner.apply(s, on: db, now: .now).summary   // {"updated":1}
/// ```
public enum SQLWriteRunner {
    ///
    /// - Parameter statement: the bound write (`select` is an error).
    /// - Parameter db: the database; the write is one transaction of it.
    /// - Parameter now: the instant written as createdAt / updatedAt.
    /// - Parameter newObjectId: makes objectIds for inserts.
    /// - Parameter strict: a test's check of the SQL path: when an update's
    ///   or delete's SQL changes no row but the write applies in memory, that
    ///   is an error instead of the in-memory result.
    /// - Parameter readBack: whether an update done by its SQL reads the
    ///   object back in the same transaction, so that `WriteResult.changes`
    ///   holds it (`after`; `before` stays nil) — what `fetchWhenSave` answers
    ///   with, exactly as committed even when other writers follow at once.
    ///   Without it the SQL path leaves `changes` empty.
    /// - Parameter images: whether every change carries the object as it
    ///   was (`before`) and as it is (`after`): an update or delete done by
    ///   its SQL then reads the object first and (an update) after, in the
    ///   same transaction — what a server's observers of committed writes
    ///   see. Without it, one statement and no reads on that path.
    /// - Parameter before: runs first inside the write's transaction (a
    ///   server's uniqueness check and its other rows, which must commit or
    ///   roll back with the write); throwing rolls everything back.
    /// - Parameter then: given the write's result, a second write to apply
    ///   in the same transaction, or nil (a server's create with relation
    ///   ops: the object, then its relations, all or nothing); the result
    ///   is the first write's, its object as the second left it (read back).
    /// - Parameter beforeCommit: given the final result, runs last inside
    ///   the transaction, just before COMMIT (a server's `pg_notify` of the
    ///   changes, delivered only if the write commits); throwing rolls
    ///   everything back.
    /// - Parameter checksNewObjectIds: whether an insert's new objectId is
    ///   first looked up in its table (and drawn again when taken). A server
    ///   whose ids are 96 random bits (CQLEval's `StatementExecutor.randomObjectId()`)
    ///   skips that round trip: a taken one is as likely as a guessed key,
    ///   and the table's primary key would then fail the write, never
    ///   overwrite an object.
    public static func apply(
        _ statement: Statement, on db: some SQLDatabaseWriter, now: DateValue,
        newObjectId: @escaping () -> String = StatementExecutor.randomObjectId, checksNewObjectIds: Bool = true, strict: Bool = false,
        readBack: Bool = false, images: Bool = false, before: (any SQLWriteSession) throws(QueryError) -> Void = { _ in },
        then: (WriteResult) throws(QueryError) -> Statement? = { _ in nil },
        beforeCommit: (WriteResult, any SQLWriteSession) throws(QueryError) -> Void = { _, _ in }
    ) throws(QueryError) -> WriteResult {
        guard statement.isWrite else {
            throw QueryError(.unsupported, "exec applies insert, update and delete; run a select with run", range: statement.range)
        }
        return try db.inWriteTransaction { session throws(QueryError) -> WriteResult in
            try before(session)
            var result = try apply(statement, in: session, now: now, newObjectId: newObjectId, checksNewObjectIds: checksNewObjectIds, strict: strict,
                                   readBack: readBack, images: images)
            if let next = try then(result) {
                guard next.isWrite else { throw QueryError(.unsupported, "a write's follow-up must be a write", range: next.range) }
                let second = try apply(next, in: session, now: now, newObjectId: newObjectId, checksNewObjectIds: checksNewObjectIds, strict: strict,
                                       readBack: true, images: false)
                for change in second.changes {
                    if let i = result.changes.firstIndex(where: { $0.objectId == change.objectId && $0.className == change.className }) {
                        result.changes[i].after = change.after
                    }
                }
                result.changedClasses.formUnion(second.changedClasses)
            }
            try beforeCommit(result, session)
            return result
        }
    }

    /// One write inside the transaction `session` is in.
    static func apply(_ statement: Statement, in session: some SQLWriteSession, now: DateValue, newObjectId: @escaping () -> String,
                      checksNewObjectIds: Bool, strict: Bool, readBack: Bool, images: Bool) throws(QueryError) -> WriteResult {
        if let write = try translated(statement, session, now: now) {
            // The object as it was, read only when asked for (the SQL path otherwise reads nothing).
            let target = try images ? imageTarget(statement, session) : nil
            let before = try target.flatMap { (t) throws(QueryError) in try objects(session, try objectById(t.className, t.id, session)).first }
            let joins = relationTables(statement)
            // Every collection the write changed, its join tables too (what a server's table cache learns of).
            let changed = Set(joins).union([statement.className])
            if try changedTheRow(write, joinTables: joins, session) {
                if readBack || images, case .update(let u) = statement, case .value(.string(let id)) = u.objectId {
                    let after = try objects(session, try objectById(u.className, id, session)).first
                    return WriteResult(kind: .updated, count: 1,
                                       changes: [ObjectChange(className: u.className, objectId: id, before: before, after: after)],
                                       changedClasses: changed)
                }
                if let target, let before, case .delete = statement {
                    return WriteResult(kind: .deleted, count: 1,
                                       changes: [ObjectChange(className: target.className, objectId: target.id, before: before, after: nil)],
                                       changedClasses: changed)
                }
                // (The SQL does not read the object back: `changes` is left empty.)
                let kind: WriteResult.Kind
                if case .delete = statement { kind = .deleted } else { kind = .updated }
                return WriteResult(kind: kind, count: 1, changes: [],
                                   changedClasses: changed)
            }
            // Nothing changed: the exact path says why (it throws 101, 305 or the op's error).
            let result = try readApplyWrite(statement, session, now: now, newObjectId: newObjectId, checksNewObjectIds: checksNewObjectIds)
            if strict {
                throw QueryError(.data, "the SQL of this \(statement.verb) changed no row, but it applies in memory: \(write.statements[0].sql)")
            }
            return result
        }
        return try readApplyWrite(statement, session, now: now, newObjectId: newObjectId, checksNewObjectIds: checksNewObjectIds)
    }

    /// The SQL of an update or a delete, or `nil` when it has none of the
    /// same meaning (and for inserts, whose fresh objectIds are checked
    /// against the table on the exact path).
    ///
    /// The condition's relation keys are resolved over the tables, as a
    /// find resolves them; a condition reading a table that does not exist
    /// has no SQL (the exact path reads it as empty).
    static func translated(_ statement: Statement, _ session: some SQLWriteSession, now: DateValue) throws(QueryError) -> SQLWrite? {
        var joinTables: [String] = []
        var tables: Set<String>?
        func present() throws(QueryError) -> Set<String> {
            if let tables { return tables }
            let names = try session.tableNames()
            tables = names
            return names
        }
        switch statement {
        case .update: break
        case .delete: joinTables = SQLWriteGenerator.joinTables(of: statement.className, among: try present())
        case .insert, .select: return nil
        }
        var statement = statement
        if let condition = statement.writeCondition {
            var read = Set<String>()
            SQLRunner.collectClasses(condition, into: &read)
            if !read.isEmpty, !read.isSubset(of: try present()) { return nil }
            var failure: QueryError?
            let asked = Query(className: statement.className, condition: condition)
            let resolved = asked.resolvingRelationKeys { name in
                do throws(QueryError) { return try present().contains(name) } catch { failure = error; return false }
            }
            if let failure { throw failure }
            if let c = resolved?.condition { statement = statement.withCondition(c) }
        }
        guard let write = try? SQLWriteGenerator.translate(statement, dialect: session.dialect, now: now, newObjectId: { "" },
                                                           joinTables: joinTables) else { return nil }
        if session.dialect.storage.writesNULThroughObjects && write.statements.contains(where: { $0.arguments.contains(where: mentionsNUL) }) { return nil }
        return write
    }

    /// The object an update or delete names, when its table exists (else it
    /// has no image to read).
    static func imageTarget(_ statement: Statement, _ session: some SQLWriteSession) throws(QueryError) -> (className: String, id: String)? {
        let id: Term
        switch statement {
        case .update(let u): id = u.objectId
        case .delete(let d): id = d.objectId
        case .insert, .select: return nil
        }
        guard case .value(.string(let objectId)) = id, try session.hasTable(statement.className) else { return nil }
        return (statement.className, objectId)
    }

    /// The `_Join:<key>:<Class>` tables an update's relation ops edit.
    static func relationTables(_ statement: Statement) -> [String] {
        guard case .update(let u) = statement else { return [] }
        return u.assignments.compactMap { a in
            guard case .operation(let op) = a.change, op.kind == .addRelation || op.kind == .removeRelation else { return nil }
            return StatementExecutor.joinClass(key: a.key.name, owner: u.className)
        }
    }

    static func mentionsNUL(_ v: Value) -> Bool {
        guard case .string(let s) = v else { return false }
        return s.unicodeScalars.contains("\0") || s.contains("\\u0000")
    }

    /// Runs the write's statements in a savepoint: whether the first one
    /// changed its row (else, or on a failure, nothing is changed).
    static func changedTheRow(_ write: SQLWrite, joinTables: [String], _ session: some SQLWriteSession) throws(QueryError) -> Bool {
        try session.execute(SQLStatement(sql: "SAVEPOINT cql_write", arguments: []))
        var changed = false
        do throws(QueryError) {
            // The relation tables a write edits, with exec's indexes (the SQL's
            // CREATE TABLE IF NOT EXISTS then does nothing).
            for table in joinTables { try session.createTable(table) }
            for setup in session.dialect.storage.writeSetup { try session.execute(SQLStatement(sql: setup, arguments: [])) }
            changed = try session.execute(write.statements[0]) == 1
            if changed { for s in write.statements.dropFirst() { try session.execute(s) } }
        } catch {
            changed = false
        }
        try session.execute(SQLStatement(sql: changed ? "RELEASE SAVEPOINT cql_write" : "ROLLBACK TO SAVEPOINT cql_write", arguments: []))
        if !changed { try session.execute(SQLStatement(sql: "RELEASE SAVEPOINT cql_write", arguments: [])) }
        return changed
    }

    /// The exact path: read, apply in memory, write back the changed rows.
    static func readApplyWrite(_ statement: Statement, _ session: some SQLWriteSession, now: DateValue,
                               newObjectId: @escaping () -> String, checksNewObjectIds: Bool) throws(QueryError) -> WriteResult {
        let read = try read(statement, session)
        var store = read.store
        let statement = read.statement
        let before = store
        // The store holds only what the statement reads: an insert's fresh
        // objectId is also checked against the table (drawn again if taken).
        let fresh = checksNewObjectIds ? try freshObjectIds(statement, session, newObjectId) : newObjectId
        let result = try StatementExecutor.apply(statement, to: &store, now: now, newObjectId: fresh)
        try write(result, store: store, before: before, session)
        return result
    }

    /// What the statement reads: its target object, the join rows the
    /// target owns, and — only when its extra condition could not be
    /// decided in the database (``decidingCondition(_:className:objectId:tables:_:)``)
    /// — the classes and join tables that condition reads. Returns the
    /// statement to apply: the condition decided is a constant.
    static func read(_ statement: Statement, _ session: some SQLWriteSession) throws(QueryError) -> (store: DocumentStore, statement: Statement) {
        var store = DocumentStore()
        var statement = statement
        let className = statement.className
        let target: (id: Term, condition: Condition?)?
        switch statement {
        case .update(let u): target = (u.objectId, u.condition)
        case .delete(let d): target = (d.objectId, d.condition)
        default: target = nil
        }
        // An insert reads nothing (its fresh objectIds are checked apart).
        guard let target else { return (store, statement) }
        let tables = try session.tableNames()
        let d = try dialect(session)
        var object: [[String: Value]] = []
        if case .value(.string(let id)) = target.id, tables.contains(className) {
            object = try objects(session, try objectById(className, id, session))
            if let condition = target.condition {
                // No object: 101 comes before the condition is looked at.
                var decided: Bool? = true
                do throws(QueryError) {
                    if !object.isEmpty { decided = try decidingCondition(condition, className: className, objectId: id, tables: tables, session) }
                } catch {
                    throw statement.source.map { error.withSource($0) } ?? error
                }
                if let decided { statement = statement.withCondition(Condition(.constant(decided), range: condition.range)) }
            }
        }
        var names = Set<String>()
        SQLRunner.collectClasses(statement.writeCondition, into: &names)
        names.remove(className)
        for name in names.sorted() where tables.contains(name) {
            let table = try d.quote(name)
            if name.hasPrefix("_Join:") {
                store.add(try session.joinRows(SQLStatement(sql: "SELECT \"owningId\", \"relatedId\" FROM \(table) ORDER BY \(d.inputOrder(table))", arguments: [])),
                          to: name)
            } else {
                store.add(try objects(session, SQLStatement(sql: "SELECT \(d.documentColumn(table)) FROM \(table) ORDER BY \(d.inputOrder(table))", arguments: [])),
                          to: name)
            }
        }
        guard case .value(.string(let id)) = target.id, tables.contains(className) else { return (store, statement) }
        let idArgument = d.placeholder(1)
        store.add(object, to: className)
        // The join rows the object owns (relation ops edit them, a delete drops them).
        let suffix = ":" + className
        for join in tables.sorted() where join.hasPrefix("_Join:") && join.hasSuffix(suffix) && !names.contains(join) {
            let j = try d.quote(join)
            store.add(try session.joinRows(SQLStatement(
                sql: "SELECT \"owningId\", \"relatedId\" FROM \(j) WHERE \"owningId\" = \(idArgument) ORDER BY \(d.inputOrder(j))",
                arguments: [.string(id)])), to: join)
        }
        return (store, statement)
    }

    /// Whether the extra condition of a write holds for its object (which
    /// exists), decided in the database as a find decides it: the
    /// generator's SQL for `objectId = id and condition` (relation keys
    /// resolved over the tables, values bound), with the exact answer when
    /// that SQL is exact, and `false` when even its superset holds no row.
    /// `nil` — evaluate in memory over the classes it names — when the SQL
    /// is a superset that holds the row, when its statement fails, when a
    /// table the condition reads is missing, or when the data defeats the SQL
    /// (``SQLWriteSession/requiresRecheck(tables:)``). The condition is
    /// planned first as the evaluator plans it, so that its errors (a bad
    /// regular expression, a limit) are the evaluator's.
    static func decidingCondition(_ condition: Condition, className: String, objectId id: String, tables: Set<String>,
                                  _ session: some SQLWriteSession) throws(QueryError) -> Bool? {
        _ = try QueryPlan(Query(className: className, condition: condition), store: DocumentStore())
        let asked = Query(className: className, condition: condition)
        let resolved = asked.resolvingRelationKeys(hasTable: tables.contains) ?? asked
        let read = SQLRunner.tablesRead(by: resolved)
        guard read.isSubset(of: tables), try !session.requiresRecheck(tables: read) else { return nil }
        var find = resolved
        find.condition = Condition.and([Condition(.compare("objectId", .equal, .value(.string(id)))), resolved.condition ?? Condition(.constant(true))])
        guard let t = try? SQLGenerator.pushdown(find, dialect: session.dialect) else { return nil }
        // In a savepoint: a statement that fails (an order PostgreSQL cannot
        // rank, SQLite's parallel arrays) leaves the condition to memory, as
        // a find re-checks it, and the transaction usable.
        try session.execute(SQLStatement(sql: "SAVEPOINT cql_condition", arguments: []))
        var found: [String]?
        do throws(QueryError) {
            found = try session.documents(SQLStatement(sql: "SELECT q.\"objectId\" FROM (\(t.select.sql)) AS q", arguments: t.select.arguments))
        } catch {
            try session.execute(SQLStatement(sql: "ROLLBACK TO SAVEPOINT cql_condition", arguments: []))
        }
        try session.execute(SQLStatement(sql: "RELEASE SAVEPOINT cql_condition", arguments: []))
        guard let found else { return nil }
        if found.isEmpty { return false }
        return t.whereIsExact ? true : nil
    }

    /// Writes back the objects the result changed and, for each changed join
    /// table, the rows of the changed objects.
    static func write(_ result: WriteResult, store: DocumentStore, before: DocumentStore, _ session: some SQLWriteSession) throws(QueryError) {
        let d = try dialect(session)
        var created = false
        for change in result.changes {
            let table = try d.quote(change.className)
            switch (change.before, change.after) {
            case (nil, let after?):
                if !created { try session.createTable(change.className); created = true }
                try session.insertObject(change.objectId, json: JSONWriter.string(.object(after)), into: change.className)
            case (_?, let after?):
                guard try session.replaceObject(change.objectId, json: JSONWriter.string(.object(after)), in: change.className) == 1 else {
                    throw QueryError(.data, "\(change.className) '\(change.objectId)' changed during the write")
                }
            case (_?, nil):
                try session.execute(SQLStatement(sql: "DELETE FROM \(table) WHERE \"objectId\" = \(d.placeholder(1))", arguments: [.string(change.objectId)]))
            case (nil, nil):
                break
            }
        }
        let owners = Set(result.changes.map(\.objectId))
        for join in result.changedClasses.sorted() where join.hasPrefix("_Join:") {
            try session.createTable(join)
            let j = try d.quote(join)
            for owner in owners.sorted() {
                try session.execute(SQLStatement(sql: "DELETE FROM \(j) WHERE \"owningId\" = \(d.placeholder(1))", arguments: [.string(owner)]))
            }
            for row in store.objects(in: join) where owners.contains(row["owningId"]?.stringValue ?? "") {
                try session.execute(SQLStatement(
                    sql: "INSERT INTO \(j) (\"owningId\", \"relatedId\") VALUES (\(d.placeholder(1)), \(d.placeholder(2)))",
                    arguments: [row["owningId"] ?? .null, row["relatedId"] ?? .null]))
            }
        }
    }

    /// `newObjectId`, skipping objectIds the statement's table already holds.
    static func freshObjectIds(_ statement: Statement, _ session: some SQLWriteSession,
                               _ newObjectId: @escaping () -> String) throws(QueryError) -> () -> String {
        guard case .insert(let s) = statement, try session.hasTable(s.className) else { return newObjectId }
        let d = try dialect(session)
        let sql = "SELECT \"objectId\" FROM \(try d.quote(s.className)) WHERE \"objectId\" = \(d.placeholder(1))"
        return {
            var id = newObjectId()
            for _ in 0..<100 {
                guard let taken = try? session.documents(SQLStatement(sql: sql, arguments: [.string(id)])), !taken.isEmpty else { break }
                id = newObjectId()
            }
            return id
        }
    }

    /// The SELECT of one object's document by its objectId.
    static func objectById(_ className: String, _ id: String, _ session: some SQLWriteSession) throws(QueryError) -> SQLStatement {
        let d = try dialect(session)
        let table = try d.quote(className)
        return SQLStatement(sql: "SELECT \(d.documentColumn(table)) FROM \(table) WHERE \(table).\"objectId\" = \(d.placeholder(1))",
                            arguments: [.string(id)])
    }

    static func objects(_ session: some SQLWriteSession, _ statement: SQLStatement) throws(QueryError) -> [[String: Value]] {
        var out: [[String: Value]] = []
        for doc in try session.documents(statement) { out.append(try DataFiles.object(json: doc)) }
        return out
    }

    static func dialect(_ session: some SQLWriteSession) throws(QueryError) -> any SQLDialect {
        session.dialect.dialect
    }
}

extension Statement {
    /// The extra condition of an update or delete.
    fileprivate var writeCondition: Condition? {
        switch self {
        case .update(let u): return u.condition
        case .delete(let d): return d.condition
        case .insert, .select: return nil
        }
    }

    /// An update or delete with `condition` as its extra condition.
    fileprivate func withCondition(_ condition: Condition) -> Statement {
        switch self {
        case .update(var u): u.condition = condition; return .update(u)
        case .delete(var d): d.condition = condition; return .delete(d)
        case .insert, .select: return self
        }
    }
}
