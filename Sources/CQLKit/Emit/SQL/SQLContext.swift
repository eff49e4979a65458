/// The state of one generation: the arguments bound so far (values never
/// enter SQL text), the row being tested, fresh aliases, and notes on what
/// was not pushed down exactly.
///
/// ```swift
/// var ctx = SQLContext(dialect: SQLiteDialect())
/// ctx.bind(.int(80))   // "?1"; ctx.arguments == [80]
/// ```
public struct SQLContext: Sendable {
    public let dialect: any SQLDialect
    /// The values for the placeholders, in placeholder order.
    public private(set) var arguments: [Value] = []
    /// The `doc` column of the row being tested (`t0."doc"`).
    public var document: String
    /// The alias of the row being tested (`t0`).
    public var rowAlias: String
    /// Parts that were not pushed down exactly, for `explain`.
    public var rechecked: [String] = []
    /// How deep the condition being generated is nested (subqueries
    /// included): deeper trees are not pushed (``SQLGenerator/maxPushedDepth``).
    public var depth = 0
    /// How deep a condition is pushed (``SQLGenerator/maxPushedDepth`` or
    /// less, when the text would nest too deeply for SQLite's parser).
    public var maxDepth = SQLGenerator.maxPushedDepth
    /// Whether a part was left out for its depth.
    public var depthCut = false
    /// One-step keys that hold no array in any row of the queried class
    /// (the row `t0`), as the database proved for this query (CQLSQL probes
    /// the key's JSON-type index in the same read): a test on such a key
    /// skips the branch that looks into arrays, so an index on the key alone
    /// serves it — and an order after it. Empty: nothing is assumed.
    public var arrayFreeKeys: Set<String> = []
    /// Whether the SQL runs on a SQLite connection of CQLSQL, which
    /// registers `cql_match` (`cql run`, `cql serve`): then the conjuncts no
    /// index serves are tested by one `cql_match(doc, ?)` per row, which
    /// reads the document once, instead of a `json_type` + `json_extract`
    /// pair per leaf (`SQLGenerator.whereCondition`). Off for
    /// `translate --to sql`, whose text spells each leaf in SQL a reader can
    /// follow and run without the evaluator where the leaf allows.
    public var residualMatch = false
    /// Whether the queried class (the row `t0`) may have the GIN index on
    /// its whole document (PostgreSQL, `cql load --index`), which serves the
    /// `doc @? path` tests of equality and `in`. `false` when CQLSQL found
    /// none: those tests then read the keys with `->` instead
    /// (`PostgreSQLDialect.keyReadMembership`), which costs a
    /// third of a path test's interpretation per row. `true` (nothing
    /// known) for `translate --to sql`.
    public var documentIndexed = true
    /// Whether PostgreSQL's ACL condition first tests the public's grant by
    /// containment (``SQLACL``), which the class's document index serves:
    /// `true` only where that index is known to be there, or (nothing
    /// known) for `translate --to sql`.
    public var publicGrantByContainment = true
    /// One-step keys of the row `t0`'s class that have an index (`cql load
    /// --index`): with ``residualMatch``, their tests stay SQL the planner
    /// can serve from the index.
    public var indexedKeys: Set<String> = []
    /// One-step keys of the row `t0`'s class that the database showed have
    /// no index of their own (PostgreSQL: no `cql load --index` type index):
    /// a range on one is written as the path test alone, which reads the
    /// document once per row, not as the scalar branch an index would serve
    /// plus the path test for arrays, which reads the key two or three
    /// times (`PostgreSQLDialect.indexableRange`).
    /// Empty (nothing known) for `translate --to sql`.
    public var unindexedKeys: Set<String> = []
    private var aliases = 0

    public init(dialect: any SQLDialect) {
        self.dialect = dialect
        rowAlias = "t0"
        document = "t0.\"doc\""
    }

    /// Binds `value` and returns its placeholder.
    public mutating func bind(_ value: Value) -> String {
        arguments.append(value)
        return dialect.placeholder(arguments.count)
    }

    /// A fresh alias (`e1`, `t2`, ...) for a nested FROM.
    public mutating func alias(_ prefix: String) -> String {
        aliases += 1
        return prefix + String(aliases)
    }

    /// A mark to roll back to when a generated piece is dropped.
    public var mark: Int { arguments.count }

    /// Forgets the arguments bound after `mark` (their SQL was dropped).
    public mutating func rollback(to mark: Int) {
        if arguments.count > mark { arguments.removeLast(arguments.count - mark) }
    }

    /// Records a part that runs as a superset and is re-checked.
    public mutating func note(_ what: String) {
        if !rechecked.contains(what) { rechecked.append(what) }
    }
}

/// A quoted SQL string literal (`'it''s'`), for the fixed JSON paths and
/// type names the dialects write; user values are always bound instead.
func sqlLiteral(_ s: String) -> String {
    var out = "'"
    for c in s.unicodeScalars {
        if c == "'" { out += "''" } else { out.unicodeScalars.append(c) }
    }
    return out + "'"
}

/// What the database told about the queried class for one generation
/// (``SQLGenerator/pushdown(_:dialect:arrayFreeKeys:residualMatch:indexedKeys:documentIndexed:unindexedKeys:publicGrantByContainment:)``):
/// the facts each ``SQLContext`` of that generation starts from, in one value.
public struct SQLDatabaseFacts: Sendable {
    public var arrayFreeKeys: Set<String>
    public var residualMatch: Bool
    public var indexedKeys: Set<String>
    public var documentIndexed: Bool
    public var unindexedKeys: Set<String>
    public var publicGrantByContainment: Bool

    public init(
        arrayFreeKeys: Set<String> = [], residualMatch: Bool = false, indexedKeys: Set<String> = [], documentIndexed: Bool = true,
        unindexedKeys: Set<String> = [], publicGrantByContainment: Bool = true
    ) {
        self.arrayFreeKeys = arrayFreeKeys
        self.residualMatch = residualMatch
        self.indexedKeys = indexedKeys
        self.documentIndexed = documentIndexed
        self.unindexedKeys = unindexedKeys
        self.publicGrantByContainment = publicGrantByContainment
    }
}

extension SQLContext {
    /// A context for `dialect` starting from `facts`, pushing conditions at most `maxDepth` deep.
    public init(dialect: any SQLDialect, facts: SQLDatabaseFacts, maxDepth: Int) {
        self.init(dialect: dialect)
        self.maxDepth = maxDepth
        arrayFreeKeys = facts.arrayFreeKeys
        residualMatch = facts.residualMatch
        indexedKeys = facts.indexedKeys
        documentIndexed = facts.documentIndexed
        unindexedKeys = facts.unindexedKeys
        publicGrantByContainment = facts.publicGrantByContainment
    }
}
