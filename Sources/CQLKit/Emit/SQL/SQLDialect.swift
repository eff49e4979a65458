/// The SQL dialects the generator writes.
public enum SQLDialectName: String, Hashable, Sendable, CaseIterable {
    case sqlite
    case postgres

    /// The dialect's generator.
    public var dialect: any SQLDialect { writeDialect }

    /// The dialect's generator, with the shapes of its writes.
    var writeDialect: any SQLWriteDialect {
        switch self {
        case .sqlite: return SQLiteDialect()
        case .postgres: return PostgreSQLDialect()
        }
    }
}

/// A pushed-down piece of a condition: SQL that is either exactly the
/// predicate (`exact`) or only a superset of it (a prefilter whose rows are
/// re-checked). `sql == nil` is the superset `TRUE`: nothing pushed down.
public struct SQLFragment: Hashable, Sendable {
    public var sql: String?
    public var exact: Bool

    public init(sql: String?, exact: Bool) {
        self.sql = sql
        self.exact = exact
    }

    public static func exact(_ sql: String) -> SQLFragment { SQLFragment(sql: sql, exact: true) }
    public static func superset(_ sql: String?) -> SQLFragment { SQLFragment(sql: sql, exact: false) }
    /// Nothing pushed down: every row passes to the re-check.
    public static let notPushed = SQLFragment(sql: nil, exact: false)
}

/// One SQL dialect: a table of how each leaf predicate, order key and paging
/// clause is written (sqlglot's model: the generator walks the query, the
/// dialect overrides the shapes).
///
/// Leaf predicates must return SQL that is TRUE exactly when the evaluator's
/// predicate holds (`exact`), or a superset of those rows (`superset`); a
/// result may be SQL NULL where FALSE is meant (negation wraps it in
/// `COALESCE`).
public protocol SQLDialect: Sendable {
    var name: SQLDialectName { get }
    /// The n-th placeholder (1-based): `?n` or `$n`.
    func placeholder(_ index: Int) -> String
    /// The column holding the object's JSON text as loaded (what results print).
    func documentColumn(_ alias: String) -> String
    /// The column expression of the input (load) order of a table alias.
    func inputOrder(_ alias: String) -> String
    /// `LIMIT .. OFFSET ..` for the placeholders given.
    func paging(limit: String?, offset: String?) -> String
    /// A leaf predicate over `context.document` (the `doc` column of the
    /// current row); `nil` for logic and subquery nodes, which the generator
    /// handles.
    func leaf(_ predicate: Predicate, _ context: inout SQLContext) throws(QueryError) -> SQLFragment
    /// ORDER BY terms for one key, or `nil` when the dialect cannot order it exactly.
    func order(_ key: OrderKey, _ context: inout SQLContext) -> [String]?
    /// ORDER BY terms for all the keys of a query, or `nil` when the dialect
    /// cannot order them exactly. The default concatenates ``order(_:_:)``
    /// per key, which is exact only where no array pairs the keys (MongoDB's
    /// sort-key rule, EvaluationSemantics.md): a dialect that cannot tell overrides it.
    func order(_ keys: [OrderKey], _ context: inout SQLContext) -> [String]?
    /// ORDER BY terms for a key the table keeps in a column
    /// (``SQLStoredColumns``: `objectId`, `createdAt`, `updatedAt`), led by
    /// the column so that its index serves the order, or `nil` when the
    /// dialect cannot order it exactly.
    func columnOrder(_ key: OrderKey, column: String, _ context: inout SQLContext) -> [String]?
    /// The SQL over a reached value `x` (whose JSON type is `t`) testing that
    /// it is a Pointer to `className` whose objectId is in `ids` (a subselect).
    func pointerIn(path: FieldPath, className: String, ids: String, _ context: inout SQLContext) -> SQLFragment
    /// ORDER BY terms putting rows nearest first for the `near` predicate
    /// `near` (the evaluator's order when a query has no order keys: the
    /// smallest distance of the points reached, rows without one last), or
    /// `nil` when the dialect cannot order by it exactly.
    func nearOrder(_ near: Predicate, _ context: inout SQLContext) -> [String]?
    /// `select path in (select key from C ...)`: the SQL testing that some
    /// value `path` reaches equals some value `key` reaches in the objects
    /// of `documents` (a subselect of one column, `"doc"`), or
    /// ``SQLFragment/notPushed``.
    func selectIn(path: FieldPath, key: FieldPath, documents: String, _ context: inout SQLContext) -> SQLFragment
    /// The operands of one `AND`, in the order the database must test
    /// them so that a test that can fail on a row (an error, not a false)
    /// runs only on rows the ACL tests among them let through: no error may
    /// depend on an object the caller cannot read. The default keeps them
    /// as given: PostgreSQL's row tests that can fail are not pushed (the
    /// evaluator tests them on the rows the SQL, ACL included, returns).
    func orderingACLFirst(_ conjuncts: [SQLConjunct]) -> [String]

    // What the database is, which the generators ask instead of the
    // dialect's name (no default: each dialect decides each).

    /// The columns of the top-level SELECT: the objectId and the document
    /// text (``documentColumn(_:)``) of `t0`, made once.
    var resultColumns: String { get }
    /// How deeply its parser nests parentheses before it fails, which the
    /// generator keeps under by pushing less of a deep condition; `nil`:
    /// no such limit (``SQLGenerator/maxPushedDepth`` alone bounds the text).
    var maxParenthesisDepth: Int? { get }
    /// The test that `right` is granted to `grantees` (``ACLRule``).
    func aclGrants(_ right: ACLRight, grantees: [String], _ context: inout SQLContext) -> String
    /// Whether the SQL may call `cql_match` on the rows' documents (the
    /// evaluator registered as a function) where ``SQLContext/residualMatch``
    /// says the connection has it.
    var hasResidualMatch: Bool { get }
    /// Why the database would take `identifier` as another table's name or
    /// its own (refused by name), or `nil`.
    func tableNameProblem(_ identifier: String) -> String?
    /// Whether its text and JSON values hold U+0000 (else a write of one is refused by name).
    var storesNUL: Bool { get }
}

/// The shapes of the writes (``SQLWriteGenerator``) a dialect overrides.
protocol SQLWriteDialect: SQLDialect {
    /// The columns an INSERT of objects fills, and one row of them.
    var insertColumns: String { get }
    func insertRow(objectId: String, document: String, stamp: String) -> String
    /// The columns of a `_Join:` table, as `CREATE TABLE` lists them.
    var joinTableColumns: String { get }
    /// Why an update cannot write the key `key`, or `nil`.
    func unwritableKey(_ key: String) -> String?
    /// The UPDATE of one object by its steps, under `condition` (SQL).
    func update(_ plan: SQLUpdatePlan, condition: String?, _ context: inout SQLContext) throws(QueryError) -> SQLStatement
}

/// One operand of an `AND` as SQL, and whether it is an ACL test
/// (``SQLDialect/orderingACLFirst(_:)``).
public struct SQLConjunct: Sendable {
    public var sql: String
    public var isACL: Bool
    public init(sql: String, isACL: Bool) {
        self.sql = sql
        self.isACL = isACL
    }
}

extension SQLDialect {
    /// The shared answer for a leaf the dialect has no SQL for (sqlglot's
    /// `unsupported`): noted for `explain`, and every row goes to the
    /// evaluator's re-check.
    public func notPushed(_ predicate: Predicate, _ context: inout SQLContext) -> SQLFragment {
        context.note(SQLNotes.describe(predicate))
        return .notPushed
    }

    public func orderingACLFirst(_ conjuncts: [SQLConjunct]) -> [String] {
        conjuncts.map(\.sql)
    }
    public func nearOrder(_ near: Predicate, _ context: inout SQLContext) -> [String]? { nil }
    public func selectIn(path: FieldPath, key: FieldPath, documents: String, _ context: inout SQLContext) -> SQLFragment { .notPushed }
}

extension SQLDialect {
    /// `"name"`, with embedded quotes doubled. NUL cannot be quoted (both
    /// engines end identifiers there): an unsupported error.
    public func quote(_ identifier: String) throws(QueryError) -> String {
        if identifier.utf8.contains(0) {
            throw QueryError(.unsupported, "\(name.rawValue): an identifier cannot contain NUL")
        }
        if let problem = tableNameProblem(identifier) {
            throw QueryError(.unsupported, "\(name.rawValue): the table name '\(identifier)' \(problem)")
        }
        if !identifier.utf8.contains(UInt8(ascii: "\"")) { return "\"\(identifier)\"" }
        var out = "\""
        for c in identifier.unicodeScalars {
            if c == "\"" { out += "\"\"" } else { out.unicodeScalars.append(c) }
        }
        return out + "\""
    }
}

extension SQLDialect {
    public func order(_ keys: [OrderKey], _ context: inout SQLContext) -> [String]? {
        var terms: [String] = []
        for key in keys {
            guard let t = order(key, &context) else { return nil }
            terms += t
        }
        return terms
    }
}
