/// What `cql translate --to sql` makes of a write (insert, update, delete):
/// the statements to run, in order, in one transaction.
///
/// The first statement's changed-row count is the write's count, and the
/// statements after it run only when it changed a row. For an
/// update or a delete it is 1 when the write happened, and 0 when it did not:
/// no object has the objectId (CQL.md's error 101), the extra condition is
/// false (305), or an op does not apply to the value the object holds
/// (`op('Increment')` on a string). A statement may also fail outright (a
/// missing table, an Increment past the double range): the write did not
/// happen either. `cql exec` tells these apart by applying the statement in
/// memory to the object it reads back.
///
/// ```swift
/// let s = try Binder.bind(try CQLParser.parseStatement("delete from Todo where objectId = 'a1'"), parameters: [])
/// let w = try SQLWriteGenerator.translate(s, dialect: .sqlite, now: .now, newObjectId: { "" })
/// w.statements[0].sql   // DELETE FROM "Todo" AS t0 WHERE t0."objectId" = ?1
/// ```
public struct SQLWrite: Hashable, Sendable {
    public var statements: [SQLStatement]

    public init(_ statements: [SQLStatement]) { self.statements = statements }

    /// One statement: `{"sql": ..., "arguments": [...]}` (the shape of a
    /// select's translation); several: `{"statements": [{...}, ...]}`.
    public var json: Value {
        statements.count == 1 ? statements[0].json : .object(["statements": .array(statements.map(\.json))])
    }
}

/// A scalar of an AddUnique or Remove argument, as the SQL of the element
/// tests needs it: numbers compare by value across int and double (CQL.md:
/// semantic equality, `1 == 1.0`), exactly, so each dialect tests a stored
/// integer against the argument's integer value and a stored double against
/// its double value (`nil`: no stored value of that kind can equal it).
enum SQLElementScalar: Hashable {
    case null
    case bool(Bool)
    case string(String)
    case number(asInteger: Int64?, asDouble: Double?)

    init?(_ v: Value) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(s)
        case .int(let i):
            // A stored double equals i only when i converts to it exactly.
            let d = Double(i)
            self = .number(asInteger: i, asDouble: Int64(exactly: d) == i ? d : nil)
        case .double(let d):
            guard d.isFinite else { return nil }
            self = .number(asInteger: Int64(exactly: d), asDouble: d)
        default:
            return nil
        }
    }

    /// The argument's elements as scalars, the repeats of a value (by
    /// semantic equality) dropped after its first occurrence, as AddUnique
    /// and Remove treat them; `nil` when one is not a scalar.
    static func distinct(_ values: [Value]) -> [(SQLElementScalar, Value)]? {
        var seen = Set<String>()
        var out: [(SQLElementScalar, Value)] = []
        for v in values {
            guard let s = SQLElementScalar(v) else { return nil }
            if seen.insert(s.semanticKey).inserted { out.append((s, v)) }
        }
        return out
    }

    /// Equal keys exactly for semantically equal scalars.
    var semanticKey: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return "s" + JSONWriter.string(.string(s))
        case .number(let i?, _): return "i\(i)"
        case .number(nil, let d?): return "d\(d.bitPattern == (-0.0).bitPattern ? 0 : d.bitPattern)"
        case .number(nil, nil): return "none"
        }
    }
}
