/// One CQL statement: a `select` query or a write (DML).
///
/// LeanCloud's CQL has `insert into`, `update ... set` and `delete from`
/// beside `select` (CQL.md, "Statements"). Writes name one object by its
/// `objectId` (no bulk writes) and may carry an extra condition, which the
/// REST API sends as the request's `where` (a conditional write).
///
/// ```swift
/// let s = try CQLParser.parseStatement("update Account set balance = op('Decrement', {'amount': 50}) where objectId = 'a1' and balance >= 100")
/// if case .update(let u) = s {
///     u.className                     // "Account"
///     u.assignments[0].key            // "balance"
///     u.assignments[0].change         // .operation(FieldOperation(.decrement, argument: .value(.int(50))))
///     u.objectId                      // .value(.string("a1"))
///     u.condition?.predicate          // .compare("balance", .greaterThanOrEqual, .value(.int(100)))
/// }
/// ```
public enum Statement: Hashable, Sendable {
    // The writes are boxed (a Query is one reference already): a statement
    // is then a word and a tag, not the largest write's 130 bytes copied
    // through every layer a parsed select is returned from.
    case select(Query)
    indirect case insert(InsertStatement)
    indirect case update(UpdateStatement)
    indirect case delete(DeleteStatement)

    /// The class the statement reads or writes.
    public var className: String {
        switch self {
        case .select(let q): return q.className
        case .insert(let s): return s.className
        case .update(let s): return s.className
        case .delete(let s): return s.className
        }
    }

    /// The whole statement's text range.
    public var range: SourceRange? {
        switch self {
        case .select(let q): return q.range
        case .insert(let s): return s.range
        case .update(let s): return s.range
        case .delete(let s): return s.range
        }
    }

    /// The text the ranges point into, when parsed.
    public var source: String? {
        switch self {
        case .select(let q): return q.source
        case .insert(let s): return s.source
        case .update(let s): return s.source
        case .delete(let s): return s.source
        }
    }

    /// Whether this is `insert`, `update` or `delete`.
    public var isWrite: Bool {
        if case .select = self { return false }
        return true
    }

    /// `select`, `insert`, `update` or `delete`, for messages.
    public var verb: String {
        switch self {
        case .select: return "select"
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        }
    }
}

/// A name with the text it came from (a column of `insert`, a key of `set`).
public struct NamedKey: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var range: SourceRange?
    public init(_ name: String, range: SourceRange? = nil) {
        self.name = name
        self.range = range
    }
    public static func == (a: NamedKey, b: NamedKey) -> Bool { a.name == b.name }
    public func hash(into h: inout Hasher) { h.combine(name) }
    public var description: String { name }
}

/// `insert into T(a, b) values (1, 'x'), (2, 'y')`: one object per row.
///
/// Every row has one term per column. Columns are plain keys (no dots), each
/// once, never `objectId`, `createdAt` or `updatedAt` (the store assigns them).
public struct InsertStatement: Hashable, Sendable {
    public var className: String
    public var columns: [NamedKey]
    public var rows: [[Term]]
    public var range: SourceRange?
    /// The parsed text (not part of equality).
    public var source: String? = nil

    public init(className: String, columns: [NamedKey], rows: [[Term]], range: SourceRange? = nil) {
        self.className = className
        self.columns = columns
        self.rows = rows
        self.range = range
    }

    public static func == (a: InsertStatement, b: InsertStatement) -> Bool {
        a.className == b.className && a.columns == b.columns && a.rows == b.rows
    }
    public func hash(into h: inout Hasher) {
        h.combine(className)
        h.combine(columns)
        h.combine(rows)
    }

    /// Row `i` as an object (column name → term).
    public func object(row i: Int) -> [String: Term] {
        var o: [String: Term] = [:]
        for (c, t) in zip(columns, rows[i]) { o[c.name] = t }
        return o
    }
}

/// `update T set a = v, b = op(...) where objectId = 'x' [and cond]`.
public struct UpdateStatement: Hashable, Sendable {
    public var className: String
    public var assignments: [Assignment]
    /// The object written: a string, or a `?` until bound.
    public var objectId: Term
    /// The extra condition (`and cond`), which must hold for the write to happen
    /// (else error 305); `nil` when there is none.
    public var condition: Condition?
    public var range: SourceRange?
    /// Where the `objectId = ...` condition is, for error 101.
    public var objectIdRange: SourceRange?
    public var source: String? = nil

    public init(className: String, assignments: [Assignment], objectId: Term, condition: Condition? = nil,
                range: SourceRange? = nil, objectIdRange: SourceRange? = nil) {
        self.className = className
        self.assignments = assignments
        self.objectId = objectId
        self.condition = condition
        self.range = range
        self.objectIdRange = objectIdRange
    }

    public static func == (a: UpdateStatement, b: UpdateStatement) -> Bool {
        a.className == b.className && a.assignments == b.assignments && a.objectId == b.objectId && a.condition == b.condition
    }
    public func hash(into h: inout Hasher) {
        h.combine(className)
        h.combine(assignments)
        h.combine(objectId)
    }
}

/// `delete from T where objectId = 'x' [and cond]`.
public struct DeleteStatement: Hashable, Sendable {
    public var className: String
    public var objectId: Term
    public var condition: Condition?
    public var range: SourceRange?
    public var objectIdRange: SourceRange?
    public var source: String? = nil

    public init(className: String, objectId: Term, condition: Condition? = nil, range: SourceRange? = nil,
                objectIdRange: SourceRange? = nil) {
        self.className = className
        self.objectId = objectId
        self.condition = condition
        self.range = range
        self.objectIdRange = objectIdRange
    }

    public static func == (a: DeleteStatement, b: DeleteStatement) -> Bool {
        a.className == b.className && a.objectId == b.objectId && a.condition == b.condition
    }
    public func hash(into h: inout Hasher) {
        h.combine(className)
        h.combine(objectId)
    }
}

/// One `key = ...` of `update ... set`.
public struct Assignment: Hashable, Sendable {
    public var key: NamedKey
    public var change: Change
    /// From the key to the end of the value.
    public var range: SourceRange?

    /// What happens to the key.
    public enum Change: Hashable, Sendable {
        /// `k = v`: the key holds `v` (a `null` stores null; `op('Delete')` removes the key).
        case set(Term)
        /// `k = op('Increment', {'amount': 1})`: an atomic operation.
        case operation(FieldOperation)
    }

    public init(_ key: NamedKey, _ change: Change, range: SourceRange? = nil) {
        self.key = key
        self.change = change
        self.range = range
    }

    public static func == (a: Assignment, b: Assignment) -> Bool { a.key == b.key && a.change == b.change }
    public func hash(into h: inout Hasher) {
        h.combine(key)
        h.combine(change)
    }
}

/// An atomic field operation, `op(name, {argument})` in CQL and
/// `{"__op": name, ...}` in a REST body (CQL.md, "Writes: insert, update, delete").
///
/// | op | argument | REST body |
/// |---|---|---|
/// | Increment, Decrement | a number | `{"__op":"Increment","amount":1}` |
/// | Add, AddUnique, Remove | an array | `{"__op":"Add","objects":[...]}` |
/// | AddRelation, RemoveRelation | an array of Pointers of one class | `{"__op":"AddRelation","objects":[...]}` |
/// | BitAnd, BitOr, BitXor | an integer | `{"__op":"BitAnd","value":6}` |
/// | Delete | none | `{"__op":"Delete"}` |
public struct FieldOperation: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case delete = "Delete"
        case add = "Add"
        case addUnique = "AddUnique"
        case remove = "Remove"
        case addRelation = "AddRelation"
        case removeRelation = "RemoveRelation"
        case increment = "Increment"
        case decrement = "Decrement"
        case bitAnd = "BitAnd"
        case bitOr = "BitOr"
        case bitXor = "BitXor"

        /// The member of the argument object: `amount`, `objects`, `value`, or
        /// `nil` for `Delete`.
        public var argumentName: String? {
            switch self {
            case .delete: return nil
            case .increment, .decrement: return "amount"
            case .add, .addUnique, .remove, .addRelation, .removeRelation: return "objects"
            case .bitAnd, .bitOr, .bitXor: return "value"
            }
        }

        /// What the argument must be, for messages.
        var argumentDescription: String {
            switch self {
            case .delete: return "no argument"
            case .increment, .decrement: return "a number"
            case .add, .addUnique, .remove: return "an array"
            case .addRelation, .removeRelation: return "an array of Pointers"
            case .bitAnd, .bitOr, .bitXor: return "an integer"
            }
        }

        /// The kind named `name` (exact spelling, as the server takes it).
        public static func named(_ name: String) -> Kind? { Kind(rawValue: name) }
    }

    public var kind: Kind
    /// `nil` for `Delete`.
    public var argument: Term?
    public var range: SourceRange?

    public init(_ kind: Kind, argument: Term? = nil, range: SourceRange? = nil) {
        self.kind = kind
        self.argument = argument
        self.range = range
    }

    public static func == (a: FieldOperation, b: FieldOperation) -> Bool { a.kind == b.kind && a.argument == b.argument }
    public func hash(into h: inout Hasher) {
        h.combine(kind)
        h.combine(argument)
    }
}

/// The keys every object has, which the store assigns: writes cannot set them.
public enum BuiltInKeys {
    public static let all: Set<String> = ["objectId", "createdAt", "updatedAt"]
}
