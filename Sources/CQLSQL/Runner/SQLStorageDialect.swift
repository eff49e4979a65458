import CQLKit

/// The SQL CQLSQL's storage writes beside the generator's (tables of
/// settings and sessions, unique indexes, write sessions), as each dialect
/// spells it: the storage asks `SQLDialectName.storage` rather than the
/// dialect's name, so a new dialect states each of these (no defaults).
public protocol SQLStorageDialect: SQLDialect {
    /// The row's `doc` column read as JSON text.
    var documentText: String { get }
    /// The row's `doc` column's value at the top-level key `key` as text
    /// (`key` is letters only: it is spelled in the SQL).
    func textAtKey(_ key: String) -> String
    /// The statements a write session's savepoint runs before the write.
    var writeSetup: [String] { get }
    /// Whether a find's SQL depends on the class's document index
    /// (`SQLContext.documentIndexed`): only then does the preflight ask.
    var findsDependOnDocumentIndex: Bool { get }
    /// Whether a find may be answered from the storage's read memo (else
    /// the dialect's own reads keep theirs).
    var usesReadMemo: Bool { get }
    /// Whether an argument holding NUL sends the write through the object
    /// path (which marks the database as holding NUL) rather than its SQL.
    var writesNULThroughObjects: Bool { get }
    /// The SELECT of the name of the index named by the first argument, if it exists.
    var indexExistsQuery: String { get }
    /// `expression`'s value as text (for a message).
    func asText(_ expression: String) -> String
    /// A bound text argument, the `index`-th, as a unique index compares it.
    func textArgument(_ index: Int) -> String
    /// `expression` with ASCII letters lowered, on any build of the database.
    func lowerASCII(_ expression: String) -> String
}

extension SQLDialectName {
    /// The dialect's storage SQL.
    public var storage: any SQLStorageDialect {
        switch self {
        case .sqlite: return SQLiteDialect()
        case .postgres: return PostgreSQLDialect()
        }
    }
}

extension SQLiteDialect: SQLStorageDialect {
    public var documentText: String { "\"doc\"" }
    public func textAtKey(_ key: String) -> String { "json_extract(\"doc\", '$.\(key)')" }
    public var writeSetup: [String] { [] }
    public var findsDependOnDocumentIndex: Bool { false }
    public var usesReadMemo: Bool { true }
    /// SQLite marks a database holding NUL when an object is written (``SQLiteDatabase``).
    public var writesNULThroughObjects: Bool { true }
    public var indexExistsQuery: String { "SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?" }
    public func asText(_ expression: String) -> String { "CAST(\(expression) AS TEXT)" }
    public func textArgument(_ index: Int) -> String { "?" }
    public func lowerASCII(_ expression: String) -> String { "lower(\(expression))" }
}

extension PostgreSQLDialect: SQLStorageDialect {
    /// `doc` is jsonb: read as text.
    public var documentText: String { "\"doc\"::text" }
    public func textAtKey(_ key: String) -> String { "(\"doc\"->>'\(key)')" }
    /// float8out prints doubles exactly from 1 on (PostgreSQL's default).
    public var writeSetup: [String] { ["SET LOCAL extra_float_digits = 1"] }
    public var findsDependOnDocumentIndex: Bool { true }
    /// Its asynchronous reads keep their own memo.
    public var usesReadMemo: Bool { false }
    public var writesNULThroughObjects: Bool { false }
    public var indexExistsQuery: String {
        "SELECT c.relname::text FROM pg_class c WHERE c.relkind = 'i' AND c.relname = $1 AND c.relnamespace = current_schema()::regnamespace"
    }
    public func asText(_ expression: String) -> String { expression }
    public func textArgument(_ index: Int) -> String { "$\(index)::text" }
    /// Under the "C" collation, which folds ASCII letters only.
    public func lowerASCII(_ expression: String) -> String { "lower(\(expression) COLLATE \"C\")" }
}
