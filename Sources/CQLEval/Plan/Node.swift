import CQLKit

/// A condition compiled for evaluation: paths pre-split, constants resolved
/// and canonical, `in` lists as hash sets, regexes compiled, geo bounds in
/// radians, subqueries already run. Built by ``Planner``, read by
/// ``Node/matches(_:_:)``.
indirect enum Node: Sendable {
    case constant(Bool)
    case and([Node])
    case or([Node])
    case not(Node)

    /// `k = v` with `v` not null: some value reached equals `v`, or is an
    /// array with an element equal to `v`.
    case equal(Accessor, Value)
    /// `k = null`: some branch is missing, or some value reached is null or
    /// an array holding null.
    case isNull(Accessor)
    /// `<`, `<=`, `>`, `>=` with type bracketing.
    case range(Accessor, RangeTest)
    /// `=` or a range against a number, string, boolean or Date: the same
    /// meaning as `.equal` / `.range`, evaluated without generic comparison.
    case scalar(Accessor, ScalarTest)
    /// `in (..)`: equality with any member.
    case member(Accessor, MemberSet)
    /// `size(k) = n`
    case size(Accessor, Int)
    /// `k is exists`
    case exists(Accessor)
    /// A string value (or array element) whose UTF-8 bytes start with one
    /// of these: `startsWith`, and regexes that only test a literal prefix
    /// (``LiteralPrefixPattern``).
    case prefix(Accessor, [[UInt8]])
    /// A string value (or array element) in which the regex is found.
    case regex(Accessor, CompiledRegex)
    /// `$elemMatch`: an array value with an element, taken whole, matching
    /// the node in the given form (``ElementMatchForm``).
    case elementMatch(Accessor, Node, ElementMatchForm)
    /// `$type`
    case type(Accessor, TypeTest)
    /// `$mod`
    case modulo(Accessor, divisor: Int64, remainder: Int64)
    /// `$containedBy`: an array value whose every element is in the set.
    case containedBy(Accessor, MemberSet)
    /// `$inQuery`: a Pointer (or array element) to `className` with one of these ids.
    case pointerIn(Accessor, className: String, ids: Set<String>)
    /// The object's `ACL` grants the right to one of the grantees (``ACLRule``).
    case aclGrants(ACLRight, [String])
    /// `$relatedTo`: the object's own `objectId` is one of these.
    case objectIdIn(Set<String>)
    /// A GeoPoint value (or array element) passing the test.
    case geo(Accessor, GeoTest)
    /// `$geoIntersects`: a stored polygon containing the point.
    case geoIntersects(Accessor, GeoPoint)
    /// Usergrid's case-insensitive string range: a string value (or array
    /// element) whose case folding compares as the test says.
    case foldedRange(Accessor, FoldedRangeTest)
}

/// A range comparison against a constant of a given class.
struct RangeTest: Sendable {
    let op: ComparisonOperator
    let constant: Value
    let constantClass: ValueOrder.RangeClass

    func passes(_ v: Value) -> Bool {
        guard ValueOrder.rangeClass(v) == constantClass else { return false }
        let c = ValueOrder.compare(Semantic.canonical(v), constant)
        switch op {
        case .lessThan: return c < 0
        case .lessThanOrEqual: return c <= 0
        case .greaterThan: return c > 0
        case .greaterThanOrEqual: return c >= 0
        case .equal: return c == 0
        case .notEqual: return c != 0
        }
    }
}

/// The members of a constant list, hashed by semantic equality
/// (`1` and `1.0` are the same member).
struct MemberSet: Sendable {
    let members: Set<SemanticKey>
    /// `null` is listed: missing and null values match.
    let hasNull: Bool
    /// The same members by type, when all are scalars (`allScalars`): the
    /// fast lookup. (Not an optional: unwrapping one copies it, on every probe.)
    let scalars: ScalarMembers
    let allScalars: Bool

    init(_ values: [Value]) {
        members = Set(values.map(SemanticKey.init))
        hasNull = values.contains(.null)
        let scalars = ScalarMembers(values)
        allScalars = scalars != nil
        self.scalars = scalars ?? ScalarMembers()
    }

    @inline(__always)
    func contains(_ v: Value) -> Bool {
        if allScalars { return scalars.contains(v) }
        return members.contains(SemanticKey(v))
    }
}

/// MongoDB's `$type` names, as the evaluator understands them.
enum TypeTest: String, Sendable, CaseIterable {
    case null, bool, number, int, double, string, object, array, date, pointer, geoPoint, bytes, file, relation

    /// Accepted spellings (MongoDB aliases and the REST type names).
    static func named(_ name: String) -> TypeTest? {
        switch name.lowercased() {
        case "null": return .null
        case "bool", "boolean": return .bool
        case "number": return .number
        case "int", "long", "integer": return .int
        case "double", "decimal": return .double
        case "string": return .string
        case "object": return .object
        case "array": return .array
        case "date": return .date
        case "pointer": return .pointer
        case "geopoint": return .geoPoint
        case "bytes", "bindata": return .bytes
        case "file": return .file
        case "relation": return .relation
        default: return nil
        }
    }

    func passes(_ value: Value) -> Bool {
        switch (self, Semantic.canonical(value)) {
        case (.null, .null), (.bool, .bool), (.number, .int), (.number, .double), (.int, .int), (.double, .double),
            (.string, .string), (.object, .object), (.object, .typedObject), (.array, .array), (.date, .date),
            (.pointer, .pointer), (.geoPoint, .geoPoint), (.bytes, .bytes), (.file, .file), (.relation, .relation):
            return true
        default:
            return false
        }
    }
}
