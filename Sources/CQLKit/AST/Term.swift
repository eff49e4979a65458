/// A dotted key path such as `post.author.name`.
///
/// Where a step meets an array at evaluation time, the path fans out over the
/// elements; a numeric step (`tags.0`) on an array reaches both the element
/// at that index and the field `"0"` of each object element
/// (<doc:EvaluationSemantics>).
///
/// ```swift
/// let path = FieldPath(dotted: "post.author.name")
/// path.components   // ["post", "author", "name"]
/// let index: FieldPath = "tags.0"   // a string literal is a dotted path
/// index.dotted      // "tags.0"
/// ```
public struct FieldPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    // A path of one component (almost every key) keeps its String, which
    // needs no allocation when short (up to 15 UTF-8 bytes) and no retain to
    // copy; only a dotted path allocates an array. A path of exactly one
    // component is always `.one`, so the synthesized `==` and hash compare
    // paths by their components.
    private enum Storage: Hashable, Sendable {
        case one(String)
        case many([String])
    }

    private var storage: Storage

    /// The path's keys, outermost first. (Reading it builds an array for a
    /// one-component path: hot code reads ``singleComponent`` first.)
    public var components: [String] {
        get {
            switch storage {
            case .one(let c): return [c]
            case .many(let cs): return cs
            }
        }
        set { self = FieldPath(newValue) }
    }

    public init(_ components: [String]) {
        storage = components.count == 1 ? .one(components[0]) : .many(components)
    }

    /// A one-component path.
    init(single component: String) { storage = .one(component) }

    /// Splits `dotted` at each `.`: every U+002E, even one a combining mark
    /// follows (as Characters, `".\u{6D8}"` is not `"."`; found by fuzzing).
    public init(dotted: String) {
        if !dotted.utf8.contains(UInt8(ascii: ".")) {
            self.init(single: dotted)
            return
        }
        self.init(dotted.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false)
            .map { String(String.UnicodeScalarView($0)) })
    }

    public init(stringLiteral value: String) { self.init(dotted: value) }

    /// The number of components (`a.b.c`: 3).
    ///
    /// ```swift
    /// FieldPath(dotted: "post.author").componentCount   // 2
    /// ```
    public var componentCount: Int {
        switch storage {
        case .one: return 1
        case .many(let cs): return cs.count
        }
    }

    /// The component of a one-component path (`nil` for any other), read
    /// without building ``components``.
    ///
    /// ```swift
    /// FieldPath(dotted: "score").singleComponent   // "score"
    /// FieldPath(dotted: "a.b").singleComponent     // nil
    /// ```
    public var singleComponent: String? {
        if case .one(let c) = storage { return c }
        return nil
    }

    /// `a.b.c`
    public var dotted: String {
        switch storage {
        case .one(let c): return c
        case .many(let cs): return cs.joined(separator: ".")
        }
    }
    public var description: String { dotted }
}

/// An operand in a condition, `limit` or `skip`: a value, or something the
/// binder turns into one.
///
/// Parsers fold constant function calls at parse time (`date('2011-08-20')`
/// is a `.value(.date(...))`); a call becomes a `.call` only when one of its
/// arguments is a placeholder. After `Binder.bind(_:parameters:now:)` every
/// term of a query is a `.value`.
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where at > date(?) limit ?")
/// q.limit        // .placeholder(index: 1, range: 41..<42)
/// let bound = try Binder.bind(q, parameters: ["2020-01-01T00:00:00.000Z", 5])
/// bound.limit    // .value(.int(5))
/// bound.condition?.predicate
/// // .compare("at", .greaterThan, .value(.date(DateValue(millisecondsSince1970: 1577836800000))))
/// ```
public enum Term: Hashable, Sendable {
    case value(Value)
    /// The `index`-th `?` of the statement (0-based, in order of appearance).
    case placeholder(index: Int, range: SourceRange?)
    /// An array or list whose elements include a placeholder or call.
    case array([Term])
    /// A typed-value function whose arguments are not all constants yet:
    /// `date(?)`, `pointer('Post', ?)`, `geopoint(?, ?)`, `file(?)`, `base64(?)`.
    indirect case call(Function, [Term], range: SourceRange?)
    /// `current_timestamp()`: the instant the query is bound.
    case currentTimestamp
    /// Parse Server's `{"$relativeTime": "in 2 days"}`, resolved when bound.
    case relativeTime(String)

    /// The functions of CQL that build typed values.
    public enum Function: String, Hashable, Sendable, CaseIterable {
        case date, pointer, geopoint, file, base64
    }

    /// The value, if the term is already one.
    public var value: Value? {
        if case .value(let v) = self { return v }
        return nil
    }

    public static func == (a: Term, b: Term) -> Bool {
        switch (a, b) {
        case (.value(let x), .value(let y)): return x == y
        case (.placeholder(let i, _), .placeholder(let j, _)): return i == j
        case (.array(let x), .array(let y)): return x == y
        case (.call(let f, let x, _), .call(let g, let y, _)): return f == g && x == y
        case (.currentTimestamp, .currentTimestamp): return true
        case (.relativeTime(let x), .relativeTime(let y)): return x == y
        default: return false
        }
    }

    public func hash(into h: inout Hasher) {
        switch self {
        case .value(let v): h.combine(0); h.combine(v)
        case .placeholder(let i, _): h.combine(1); h.combine(i)
        case .array(let a): h.combine(2); h.combine(a)
        case .call(let f, let a, _): h.combine(3); h.combine(f); h.combine(a)
        case .currentTimestamp: h.combine(4)
        case .relativeTime(let s): h.combine(5); h.combine(s)
        }
    }
}

/// A distance bound of `near`: a number and the unit it is in.
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where loc near geopoint(116.4, 39.9) max 2 km")
/// // q.condition?.predicate:
/// // .near("loc", point: .value(.geoPoint(GeoPoint(latitude: 39.9, longitude: 116.4))),
/// //       min: nil, max: Distance(.value(.int(2)), .kilometers))
/// ```
public struct Distance: Hashable, Sendable {
    public var value: Term
    public var unit: DistanceUnit
    public init(_ value: Term, _ unit: DistanceUnit) {
        self.value = value
        self.unit = unit
    }
}

/// Units of geo distances. `radians` are central angles (CQL's default);
/// `meters` come from Usergrid's `within`.
///
/// ```swift
/// DistanceUnit.kilometers.earthRadius   // 6371.0
/// 2 / DistanceUnit.kilometers.earthRadius   // 2 km as radians: 0.000313922...
/// ```
public enum DistanceUnit: String, Hashable, Sendable, CaseIterable {
    case radians, kilometers, miles, meters

    /// Earth radius in this unit (6371.0 km, 3958.8 mi; <doc:EvaluationSemantics>).
    public var earthRadius: Double {
        switch self {
        case .radians: return 1
        case .kilometers: return 6371.0
        case .miles: return 3958.8
        case .meters: return 6_371_000.0
        }
    }
}
