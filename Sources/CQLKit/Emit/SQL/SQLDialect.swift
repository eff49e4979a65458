/// The SQL dialects the generator writes.
public enum SQLDialectName: String, Hashable, Sendable, CaseIterable {
    case sqlite
    case postgres

    /// The dialect's generator.
    public var dialect: any SQLDialect {
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
    /// sort-key rule, semantics.md): a dialect that cannot tell overrides it.
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
        // SQLite keeps names starting with sqlite_ (any case) for itself;
        // PostgreSQL silently cuts names at 63 bytes, so two long class names
        // would share a table: both are refused by name instead.
        if name == .sqlite && identifier.utf8.count >= 7 && identifier.prefix(7).lowercased() == "sqlite_" {
            throw QueryError(.unsupported, "sqlite: the table name '\(identifier)' starts with sqlite_, which SQLite reserves")
        }
        if name == .postgres && identifier.utf8.count > 63 {
            throw QueryError(.unsupported, "postgres: the table name '\(identifier)' is longer than PostgreSQL's 63 bytes")
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
