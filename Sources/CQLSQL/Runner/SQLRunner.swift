import CQLEval
import CQLKit

/// `cql run`: a query answered by a database, with exactly the evaluator's
/// results (EvaluationSemantics.md).
///
/// The generator's exact parts run in the database; when a part is only a
/// superset (`SQLTranslation.isExact` is false) the database returns the
/// prefiltered rows in input order and the evaluator's own plan re-checks,
/// sorts and pages them. Projection and `include` are always applied by the
/// evaluator's shaping to the fetched objects; `include` reads only the
/// objects the page's Pointers name, by objectId.
///
/// ```swift
/// let db = try SQLiteDatabase(path: "scores.db")
/// let r = try SQLRunner.run(query, on: db)
/// r.objects   // the same objects, in the same order, as `cql eval`
/// ```
public enum SQLRunner {
    public struct Result: Sendable {
        public var objects: [[String: Value]]
        /// The count, when asked for (`count(*)`, `--count`).
        public var count: Int?
        public var translation: SQLTranslation
        /// The stored documents' text, in order, instead of ``objects``, when
        /// asked for (``run(_:on:countOnly:source:presentTables:storedText:memo:)``) and nothing
        /// reshapes them: `objects` is then empty.
        public var storedText: [String]? = nil
    }

    ///
    /// `presentTables`: the tables the caller knows the database holds (a
    /// server's cache), so that none is asked for; `nil` asks the database.
    ///
    /// `storedText`: when the database answers alone and nothing reshapes
    /// the objects (no `keys`, no `include`), return the stored documents'
    /// text (``Result/storedText``), not objects. `memo`: what earlier runs
    /// of this very query worked out (``ReadMemo``; SQLite: the query as
    /// begun and its SQL for the last preflight answer).
    public static func run(
        _ query: Query, on db: some SQLDatabaseReader, countOnly: Bool = false, source: String? = nil, presentTables: Set<String>? = nil,
        storedText: Bool = false, memo: ReadMemo? = nil
    ) throws(QueryError) -> Result {
        try run(query, on: db, countOnly: countOnly, source: source, presentTables: presentTables, written: nil, storedText: storedText,
                memo: memo)
    }

    /// ``run(_:on:countOnly:source:presentTables:storedText:memo:)`` with the matching
    /// objects as NDJSON in `JSONWriter`'s form (one object per line,
    /// each ending with `\n`), what `cql run` prints: `ndjson` holds them,
    /// and the result's `objects` is empty.
    ///
    /// Why: when the database answers alone and nothing reshapes the
    /// objects (no `keys`, no `include`), each stored document is copied to
    /// the writer's form from its bytes (`JSONLineScan`), not read into a
    /// dictionary and written again — which cost as much as the query.
    ///
    /// ```swift
    /// var out: [UInt8] = []
    /// let r = try SQLRunner.run(query, on: db, writingTo: &out)
    /// // out: {"objectId":"a1","score":90}\n...
    /// ```
    public static func run(
        _ query: Query, on db: some SQLDatabaseReader, countOnly: Bool = false, source: String? = nil, writingTo ndjson: inout [UInt8]
    ) throws(QueryError) -> Result {
        var result = try withUnsafeMutablePointer(to: &ndjson) { (out) throws(QueryError) -> Result in
            try run(query, on: db, countOnly: countOnly, source: source, presentTables: nil, written: out, storedText: false, memo: nil)
        }
        for o in result.objects {
            JSONWriter.write(.object(o), to: &ndjson)
            ndjson.append(0x0A)
        }
        result.objects = []
        return result
    }

    /// `written`: where to copy the objects as NDJSON when the database
    /// answers alone and nothing reshapes them (the objects are then not
    /// built); the caller writes `objects` after whatever was copied.
    private static func run(
        _ query: Query, on db: some SQLDatabaseReader, countOnly: Bool, source: String?, presentTables: Set<String>?,
        written: UnsafeMutablePointer<[UInt8]>?, storedText: Bool, memo: ReadMemo?
    ) throws(QueryError) -> Result {
        var memo = db.dialect.storage.usesReadMemo ? memo : nil
        var present = presentTables
        let query = try resolvingRelationKeys(query, db, present: &present, memo: &memo)
        let presentTables = present
        let begun = try begin(query, countOnly: countOnly, source: source, dialect: db.dialect,
                              recheckConcernsOnlyDateColumns: db.recheckConcernsOnlyDateColumns, memo: memo)
        let q = begun.query
        try prepareTables(q, db, present: presentTables)
        let preflight = try db.preflight(begun.question)
        var translation = try pushdown(q, preflight, on: db, memo: memo)
        if q.count == .only, translation.isExact, let c = translation.count {
            // Only the count is asked (`count=1&limit=0`): the database
            // counts, no object is read (an index may answer alone).
            return Result(objects: [], count: try db.integer(c), translation: translation)
        }
        if let written, translation.isExact, leavesObjectsAsStored(q), q.count != .only {
            // Nothing to shape: each document copied to the writer's form as
            // the database hands its bytes over, none kept. A statement that
            // fails part way leaves nothing written: the failures below that
            // fall back to every row are then met again by `documents`.
            let mark = written.pointee.count
            let scan = JSONLineScan()
            do {
                try db.forEachDocument(translation.select) { (bytes) throws(QueryError) in
                    if !(scan.scan(bytes) && scan.writeSorted(to: &written.pointee)) {
                        JSONWriter.write(.object(try DataFiles.object(jsonBytes: bytes)), to: &written.pointee)
                    }
                    written.pointee.append(0x0A)
                }
                var count: Int?
                if q.count != .none, let c = translation.count { count = try db.integer(c) }
                return Result(objects: [], count: count, translation: translation)
            } catch {
                written.pointee.removeSubrange(mark...)
                guard isOrderFailure(error) else { throw error }
            }
        }
        let docs: [String]
        do {
            docs = try db.documents(translation.select)
        } catch where isOrderFailure(error) {
            // PostgreSQL met an array or object at an order key (of the
            // query or of a subquery), which its ORDER BY cannot rank exactly
            // (the statement fails rather than answer in another order), or
            // SQLite's compound sort key met parallel arrays: every row of the
            // class, and the evaluator does the rest (where parallel arrays
            // give its own error).
            let all = try SQLGenerator.pushdown(Query(className: q.className), dialect: db.dialect)
            translation = SQLTranslation(select: all.select, count: nil, whereIsExact: false, orderIsExact: false,
                                         rechecked: ["every row: an array or object at an order key"], query: q)
            docs = try db.documents(translation.select)
        }
        if storedText, translation.isExact, leavesObjectsAsStored(q), q.count != .only {
            // What shaped() would do to them: nothing.
            var count: Int?
            if q.count != .none, let c = translation.count { count = try db.integer(c) }
            return Result(objects: [], count: count, translation: translation, storedText: docs)
        }
        var objects: [[String: Value]] = []
        objects.reserveCapacity(docs.count)
        for d in docs { objects.append(try DataFiles.object(json: d)) }

        var store = DocumentStore()
        let exact = translation.isExact
        var classes = Set<String>()
        if !exact { collectClasses(q.condition, into: &classes) }
        // Class tables only: a name with ':' is a `_Join:` table or a
        // server's own (its sessions), never a class a Pointer may name.
        for name in classes.sorted() { try loadCollection(name, db, into: &store) }

        if exact {
            var count: Int?
            if q.count != .none, let c = translation.count { count = try db.integer(c) }
            try addIncluded(q, from: objects, db, into: &store)
            return try shaped(q, translation, objects: objects, count: count, store: store, source: source)
        }
        if q.includes.isEmpty {
            let result = try QueryPlan(q, store: store, source: source).run(over: objects)
            return Result(objects: result.objects, count: result.count, translation: translation)
        }
        // Filter, order and page first (include and keys come after, in
        // the plan too), then read what the page includes.
        var unshaped = q
        unshaped.includes = []
        unshaped.keys = []
        let page = try QueryPlan(unshaped, store: store, source: source).run(over: objects)
        try addIncluded(q, from: page.objects, db, into: &store)
        let result = try shaped(q, translation, objects: page.objects, count: page.count, store: store, source: source)
        return Result(objects: result.objects, count: page.count, translation: translation)
    }

    /// The most objectIds one statement of ``addIncluded(_:from:_:into:)`` binds.
    static let includeBatch = 500

    /// The objects `include` reaches from `objects` added to `store`, read
    /// by objectId, so that the store includes exactly what a store of
    /// every class would, and no table is read whole: the Pointers the
    /// store lacks (``DocumentStore/pointersIncludeLacks(in:paths:)``), read
    /// at most ``includeBatch`` ids a statement (bound), then the Pointers
    /// inside what was read, level by level. Only class tables are read (a
    /// name with ':' is a `_Join:` table or a server's own, never a class a
    /// Pointer may name); a Pointer to no table or to no row stays a Pointer.
    static func addIncluded(_ q: Query, from objects: [[String: Value]], _ db: some SQLDatabaseReader,
                            into store: inout DocumentStore) throws(QueryError) {
        guard !q.includes.isEmpty, q.count != .only else { return }
        var tables: Set<String>?
        var asked = Set<Pointer>()
        while true {
            let lacking = store.pointersIncludeLacks(in: objects, paths: q.includes).filter { !asked.contains($0) }
            if lacking.isEmpty { return }
            asked.formUnion(lacking)
            if tables == nil { tables = try db.tableNames() }
            let d = db.dialect.dialect
            for (className, pointers) in Dictionary(grouping: lacking, by: \.className).sorted(by: { $0.key < $1.key })
            where !className.contains(":") && tables!.contains(className) {
                let table = try d.quote(className)
                for start in stride(from: 0, to: pointers.count, by: includeBatch) {
                    let batch = pointers[start..<min(pointers.count, start + includeBatch)]
                    let list = batch.indices.map { d.placeholder($0 - start + 1) }.joined(separator: ", ")
                    let byId = SQLStatement(sql: "SELECT \(d.resultColumns) FROM \(table) AS t0 WHERE t0.\"objectId\" IN (\(list))",
                                            arguments: batch.map { .string($0.objectId) })
                    var found: [[String: Value]] = []
                    for doc in try db.documents(byId) { found.append(try DataFiles.object(json: doc)) }
                    store.add(found, to: className)
                }
            }
        }
    }

    // MARK: The phases every read goes through
    //
    // `run` above and the server's asynchronous PostgreSQL read
    // (``run(_:on:countOnly:source:)-(_,PostgreSQLReadConnection,_,_)``) are the same
    // steps: these functions, with the database's answers in between.

    /// What a query asks its database before its SQL is generated
    /// (``SQLDatabaseReader/preflight(_:keys:tables:documentIndex:)``).
    public struct PreflightQuestion: Sendable, Hashable {
        public var className: String
        public var keys: Set<String>
        public var tables: Set<String>
        public var documentIndex: Bool
    }

    /// The query as run (`countOnly` applied), after the evaluator's own
    /// checks (bad regex, geo out of range, ...), so that errors are the
    /// same as eval's and come before any SQL runs.
    static func begin(_ query: Query, countOnly: Bool, source: String?) throws(QueryError) -> Query {
        var q = query
        if countOnly { q.count = .only }
        _ = try QueryPlan(q, store: DocumentStore(), source: source)
        return q
    }

    /// ``begin(_:countOnly:source:)`` and the query's preflight question,
    /// from the memo when it holds them.
    static func begin(_ query: Query, countOnly: Bool, source: String?, dialect: SQLDialectName, recheckConcernsOnlyDateColumns: Bool,
                      memo: ReadMemo?) throws(QueryError) -> ReadMemo.Begun {
        if let known = memo?.begun(countOnly: countOnly) { return known }
        let q = try begin(query, countOnly: countOnly, source: source)
        let begun = ReadMemo.Begun(query: q, countOnly: countOnly, question: preflightQuestion(
            q, dialect: dialect, recheckConcernsOnlyDateColumns: recheckConcernsOnlyDateColumns))
        memo?.setBegun(begun)
        return begun
    }

    static func preflightQuestion(_ q: Query, dialect: SQLDialectName, recheckConcernsOnlyDateColumns: Bool) -> PreflightQuestion {
        // A get by id on PostgreSQL then asks nothing before its statement.
        let marksMatter = !recheckConcernsOnlyDateColumns || namesDateKeys(q)
        return PreflightQuestion(className: q.className, keys: oneStepKeys(q.condition), tables: marksMatter ? tablesRead(by: q) : [],
                                 documentIndex: dialect.storage.findsDependOnDocumentIndex && testsKeysByValue(q.condition))
    }

    /// `db.pushdown(q, preflight)`, from the memo when it holds the SQL of
    /// that answer and of the same indexed keys.
    static func pushdown(_ q: Query, _ preflight: Preflight, on db: some SQLDatabaseReader, memo: ReadMemo?) throws(QueryError) -> SQLTranslation {
        guard let memo else { return try db.pushdown(q, preflight) }
        let indexed = try db.pushdownIndexedKeys(q.className)
        if let known = memo.generated(for: preflight, indexedKeys: indexed) { return known.translation }
        let translation = try db.pushdown(q, preflight, indexedKeys: indexed)
        memo.setGenerated(ReadMemo.Generated(preflight: preflight, indexedKeys: indexed, translation: translation))
        return translation
    }

    /// The generator's SQL for `q` given the preflight's answer.
    static func pushdown(_ q: Query, _ preflight: Preflight, dialect: SQLDialectName, residualMatch: Bool = false,
                         indexedKeys: Set<String> = []) throws(QueryError) -> SQLTranslation {
        if preflight.requiresRecheck { return try everyRowRechecked(q, dialect: dialect) }
        return try SQLGenerator.pushdown(
            q, dialect: dialect, arrayFreeKeys: preflight.arrayFreeKeys, residualMatch: residualMatch, indexedKeys: indexedKeys,
            documentIndexed: preflight.documentIndexed, unindexedKeys: preflight.unindexedKeys,
            publicGrantByContainment: preflight.documentIndexConfirmed)
    }

    /// Nothing pushed down: every row of the class, re-checked by the evaluator.
    static func everyRowRechecked(_ q: Query, dialect: SQLDialectName) throws(QueryError) -> SQLTranslation {
        let all = try SQLGenerator.pushdown(Query(className: q.className), dialect: dialect)
        return SQLTranslation(select: all.select, count: nil, whereIsExact: false, orderIsExact: false,
                              rechecked: ["every row: the data holds strings with NUL or an array at createdAt/updatedAt"], query: q)
    }

    /// The guard every stored-text fast path shares (FastPaths.md): nothing
    /// reshapes the objects — ``shaped(_:_:objects:count:store:source:)``
    /// would return them as stored (no `keys`, no `include`).
    static func leavesObjectsAsStored(_ q: Query) -> Bool {
        q.keys.isEmpty && q.includes.isEmpty
    }

    /// The answer when the database filtered, ordered and paged
    /// (`translation.isExact`): the objects only shaped (keys, include,
    /// returnACL) by the evaluator.
    static func shaped(_ q: Query, _ translation: SQLTranslation, objects: [[String: Value]], count: Int?, store: DocumentStore,
                       source: String?) throws(QueryError) -> Result {
        var shape = Query(className: q.className, keys: q.keys, includes: q.includes)
        shape.source = q.source
        shape.returnACL = q.returnACL
        let shaped = q.count == .only ? [] : try QueryPlan(shape, store: store, source: source).run(over: objects).objects
        return Result(objects: shaped, count: count, translation: translation)
    }

    /// Whether a PostgreSQL statement failed because its ORDER BY met what
    /// it cannot rank exactly, or SQLite's compound sort key met parallel
    /// arrays: the evaluator then does the work (see ``run(_:on:countOnly:source:presentTables:)``).
    static func isOrderFailure(_ error: QueryError) -> Bool {
        error.message.contains(PostgreSQLDialect.orderFailure) || error.message.contains("parallel arrays")
    }

    /// `cql run --explain`: what ran where, then the database's plan.
    public static func explain(_ query: Query, on db: some SQLDatabaseReader, source: String? = nil) throws(QueryError) -> [String] {
        _ = try QueryPlan(query, store: DocumentStore(), source: source)
        try prepareTables(query, db)
        // No tables named, as before: PostgreSQL then asks no mark (SQLite's
        // one mark is the whole database's, asked either way).
        var question = preflightQuestion(query, dialect: db.dialect, recheckConcernsOnlyDateColumns: db.recheckConcernsOnlyDateColumns)
        question.tables = []
        let preflight = try db.preflight(question)
        let arrayFree = preflight.arrayFreeKeys
        let t = try db.pushdown(query, preflight)
        var lines = ["-- \(t.isExact ? "exact: the database answers alone" : "prefilter: rows re-checked by the evaluator")"]
        if !arrayFree.isEmpty { lines.append("-- no array at: \(arrayFree.sorted().joined(separator: ", ")) (their index says so: no array branch)") }
        if !preflight.unindexedKeys.isEmpty {
            lines.append("-- no index on: \(preflight.unindexedKeys.sorted().joined(separator: ", ")) (ranges are one path test: no branch for an index)")
        }
        for r in t.rechecked { lines.append("-- re-checked: \(r)") }
        if t.whereIsExact && !t.orderIsExact { lines.append("-- order, skip and limit applied by the evaluator") }
        lines.append("-- sql: \(t.select.sql)")
        lines.append("-- arguments: \(JSONWriter.string(.array(t.select.arguments)))")
        if let count = t.count {
            lines.append("-- count sql: \(count.sql)")
            lines.append("-- count arguments: \(JSONWriter.string(.array(count.arguments)))")
        }
        lines += try db.plan(t.select)
        return lines
    }

    /// The class and `_Join:` tables a query reads: its class, its
    /// subqueries' classes and the join tables of its `$relatedTo`.
    public static func tablesRead(by query: Query) -> Set<String> {
        var names: Set<String> = [query.className]
        collectClasses(query.condition, into: &names)
        return names
    }

    /// `query` with its relation keys' comparisons with Pointers resolved
    /// over the database's tables (`Query.resolvingRelationKeys(hasTable:)`;
    /// EvaluationSemantics, "Relation keys"). The catalog is asked only
    /// when the query compares some key with a Pointer and `present` is
    /// not given; a resolved query keeps no memo, as its meaning moves with
    /// the tables.
    static func resolvingRelationKeys(_ query: Query, _ db: some SQLDatabaseReader, present: inout Set<String>?,
                                      memo: inout ReadMemo?) throws(QueryError) -> Query {
        var tables = present, failure: QueryError?
        let resolved = query.resolvingRelationKeys { name in
            if tables == nil {
                do throws(QueryError) { tables = try db.tableNames() } catch { failure = error; tables = [] }
            }
            return tables!.contains(name)
        }
        if let failure { throw failure }
        present = tables
        guard let resolved else { return query }
        memo = nil
        return resolved
    }

    /// Creates empty temporary stand-ins for the tables the query names but
    /// the database lacks (eval treats a missing collection as empty).
    static func prepareTables(_ q: Query, _ db: some SQLDatabaseReader, present known: Set<String>? = nil) throws(QueryError) {
        var names: Set<String> = [q.className]
        collectClasses(q.condition, into: &names)
        if let known, names.isSubset(of: known) { return }
        let present = try db.tableNames()
        let missing = names.subtracting(present).sorted()
        if missing.isEmpty { return }
        try db.createTemporaryTables(classes: missing.filter { !$0.hasPrefix("_Join:") }, joins: missing.filter { $0.hasPrefix("_Join:") })
    }

    /// The one-step keys the query's own row is tested on by value
    /// (equality, `in`, ranges, patterns), outside subqueries: those whose
    /// array branch an index may prove empty (``SQLDatabaseReader/arrayFreeKeys(_:among:)``).
    static func oneStepKeys(_ c: Condition?) -> Set<String> {
        guard let c else { return [] }
        // objectId, createdAt and updatedAt are read from columns of their own.
        func key(_ path: FieldPath) -> Set<String> {
            guard path.components.count == 1, let k = path.components.first, k != "objectId", !SQLStoredColumns.dateKeys.contains(k)
            else { return [] }
            return [k]
        }
        switch c.predicate {
        case .and(let items), .or(let items): return items.reduce(into: []) { $0.formUnion(oneStepKeys($1)) }
        case .not(let inner): return oneStepKeys(inner)
        case .compare(let path, _, _), .in(let path, _, _), .regex(let path, _, _), .like(let path, _), .prefix(let path, _):
            return key(path)
        case .constant, .all, .size, .exists, .text, .containedBy, .elementMatch, .type, .modulo, .fullText, .select,
             .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects: return []
        }
    }

    /// Whether the condition tests a key of the row's document (not a
    /// column) for equality or membership outside subqueries: only then does
    /// PostgreSQL's SQL depend on the document index (``SQLContext/documentIndexed``),
    /// so a get by objectId asks nothing more.
    static func testsKeysByValue(_ c: Condition?) -> Bool {
        guard let c else { return false }
        switch c.predicate {
        case .and(let items), .or(let items): return items.contains { testsKeysByValue($0) }
        case .not(let inner): return testsKeysByValue(inner)
        case .compare(let path, .equal, _), .compare(let path, .notEqual, _), .in(let path, _, _), .all(let path, _):
            guard let first = path.components.first else { return false }
            return !(path.components.count == 1 && first == "objectId") && !SQLStoredColumns.dateKeys.contains(first)
        case .constant, .compare, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .elementMatch, .type,
             .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon,
             .withinCenterSphere, .geoIntersects: return false
        }
    }

    /// Whether the query or one of its subqueries names createdAt or
    /// updatedAt (as the first step of a key) in a condition or an order:
    /// only then does its SQL read the date columns (``SQLGenerator``). No
    /// `default:` below, so that a new predicate must say.
    static func namesDateKeys(_ q: Query) -> Bool {
        q.order.contains { isDateKey($0.path) } || namesDateKeys(q.condition)
    }

    private static func isDateKey(_ p: FieldPath) -> Bool {
        p.components.first.map(SQLStoredColumns.dateKeys.contains) ?? false
    }

    private static func namesDateKeys(_ c: Condition?) -> Bool {
        guard let c else { return false }
        switch c.predicate {
        case .and(let items), .or(let items): return items.contains { namesDateKeys($0) }
        case .not(let inner): return namesDateKeys(inner)
        case .constant, .relatedTo, .relationHolds, .aclGrants: return false
        case .elementMatch(let p, let inner): return isDateKey(p) || namesDateKeys(inner)
        case .select(let p, let key, let sub, _): return isDateKey(p) || isDateKey(key) || namesDateKeys(sub)
        case .inQuery(let p, let sub, _): return isDateKey(p) || namesDateKeys(sub)
        case .compare(let p, _, _), .in(let p, _, _), .all(let p, _), .size(let p, _), .exists(let p, _), .regex(let p, _, _),
             .like(let p, _), .prefix(let p, _), .text(let p, _, _), .containedBy(let p, _), .type(let p, _), .modulo(let p, _, _),
             .fullText(let p, _), .near(let p, _, _, _), .withinBox(let p, _, _), .withinPolygon(let p, _),
             .withinCenterSphere(let p, _, _), .geoIntersects(let p, _):
            return isDateKey(p)
        }
    }

    /// The classes and join tables the condition's subqueries and relations read.
    static func collectClasses(_ c: Condition?, into names: inout Set<String>) {
        c?.forEach(entering: .everything) { node in
            switch node.outsideRead {
            case .subquery(let sub)?: names.insert(sub.className)
            case .relation(.value(.pointer(let owner)), let key)?: names.insert("_Join:\(key):\(owner.className)")
            case .ownRelation(let className, let key)?: names.insert("_Join:\(key):\(className)")
            case .relation?, nil: break
            }
        }
    }

    static func loadCollection(_ name: String, _ db: some SQLDatabaseReader, into store: inout DocumentStore) throws(QueryError) {
        if name.hasPrefix("_Join:") {
            store.add(try db.joinRows(name), to: name)
            return
        }
        let all = Query(className: name)
        let t = try SQLGenerator.pushdown(all, dialect: db.dialect)
        var objects: [[String: Value]] = []
        for d in try db.documents(t.select) { objects.append(try DataFiles.object(json: d)) }
        store.add(objects, to: name)
    }
}
