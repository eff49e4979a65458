/// A read query over one class: the common AST of CQL `select`, Usergrid `ql`,
/// REST where-JSON requests and the Swift builders.
///
/// ```swift
/// let q = try CQLParser.parse("select * from GameScore where score > 80 order by -score limit 10")
/// q.className          // "GameScore"
/// q.order              // [OrderKey("score", descending: true)]
/// q.limit              // .value(.int(10))
/// ```
public struct Query: Hashable, @unchecked Sendable {
    // The fields live in one box shared by copies and copied on the first
    // write to a shared one (as Array does): a query passes through the
    // parser, the binder, the optimizer and the emitters, and copying or
    // destroying it is then one retain or release, not one per field of a
    // 150-byte struct (nor a 150-byte memcpy at each call boundary).
    // A ManagedBuffer's header is read and written through a pointer, so
    // field accesses have no run-time exclusivity check (a class's stored property would).
    private struct Fields {
        var className: String
        var keys: [SelectedKey]
        var includes: [FieldPath]
        var count: CountMode
        var condition: Condition?
        var order: [OrderKey]
        var skip: Term?
        var limit: Term?
        var direct: [Value]
        var returnACL: Bool
        var range: SourceRange?
        var source: String?
    }

    /// `@unchecked Sendable`: a box is written only while one query holds
    /// it (``uniqueFields``), so a box that queries on several threads
    /// share is never written.
    private typealias Box = ManagedBuffer<Fields, UInt8>

    private var box: Box

    private init(fields: Fields) {
        box = Box.create(minimumCapacity: 0) { _ in fields }
    }

    /// The fields, read in place.
    private var fields: UnsafeMutablePointer<Fields> {
        box.withUnsafeMutablePointerToHeader { $0 }
    }

    /// The fields, for writing: the box is copied first when another query
    /// shares it. (The pointer stays valid while `box` holds the buffer.)
    private var uniqueFields: UnsafeMutablePointer<Fields> {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { self = Query(fields: fields.pointee) }
            return fields
        }
    }

    public var className: String {
        get { fields.pointee.className }
        _modify { yield &uniqueFields.pointee.className }
    }
    /// Projection; empty means every key. Entries may exclude (`-author`) or
    /// rename (Usergrid `{source:alias}`).
    public var keys: [SelectedKey] {
        get { fields.pointee.keys }
        _modify { yield &uniqueFields.pointee.keys }
    }
    /// Pointer paths to resolve (`include post.author`).
    public var includes: [FieldPath] {
        get { fields.pointee.includes }
        _modify { yield &uniqueFields.pointee.includes }
    }
    public var count: CountMode {
        get { fields.pointee.count }
        _modify { yield &uniqueFields.pointee.count }
    }
    /// `nil` means no condition (every object matches).
    public var condition: Condition? {
        get { fields.pointee.condition }
        _modify { yield &uniqueFields.pointee.condition }
    }
    /// Explicit order; empty means store order (or nearest first with `near`).
    public var order: [OrderKey] {
        get { fields.pointee.order }
        _modify { yield &uniqueFields.pointee.order }
    }
    public var skip: Term? {
        get { fields.pointee.skip }
        _modify { yield &uniqueFields.pointee.skip }
    }
    public var limit: Term? {
        get { fields.pointee.limit }
        _modify { yield &uniqueFields.pointee.limit }
    }
    /// Usergrid `direct name, uuid, ...`: read these entities only.
    public var direct: [Value] {
        get { fields.pointee.direct }
        _modify { yield &uniqueFields.pointee.direct }
    }
    /// LeanCloud's `returnACL` request parameter (`"returnACL":"true"`, which
    /// the LeanCloud SDKs send): the results also carry each object's `ACL`
    /// field. Only where-JSON can say it; CQL and Usergrid text cannot.
    public var returnACL: Bool {
        get { fields.pointee.returnACL }
        _modify { yield &uniqueFields.pointee.returnACL }
    }
    /// The whole statement's text range.
    public var range: SourceRange? {
        get { fields.pointee.range }
        _modify { yield &uniqueFields.pointee.range }
    }
    /// The text `range` and the ranges inside point into, when the query was
    /// parsed (set on the top-level query), so later stages (binder, emitters)
    /// can render positioned errors. Not part of equality.
    public var source: String? {
        get { fields.pointee.source }
        _modify { yield &uniqueFields.pointee.source }
    }

    public init(
        className: String, keys: [SelectedKey] = [], includes: [FieldPath] = [], count: CountMode = .none,
        condition: Condition? = nil, order: [OrderKey] = [], skip: Term? = nil, limit: Term? = nil,
        direct: [Value] = [], range: SourceRange? = nil
    ) {
        self.init(fields: Fields(className: className, keys: keys, includes: includes, count: count, condition: condition,
                                 order: order, skip: skip, limit: limit, direct: direct, returnACL: false, range: range, source: nil))
    }

    /// A query of no class with nothing set: what parsers fill in place.
    static var empty: Query { Query(className: "") }

    public static func == (a: Query, b: Query) -> Bool {
        a.className == b.className && a.keys == b.keys && a.includes == b.includes && a.count == b.count
            && a.condition == b.condition && a.order == b.order && a.skip == b.skip && a.limit == b.limit
            && a.direct == b.direct && a.returnACL == b.returnACL
    }

    public func hash(into h: inout Hasher) {
        h.combine(className)
        h.combine(keys)
        h.combine(condition)
        h.combine(order)
    }
}

/// Whether a query asks for the number of matches.
///
/// ```swift
/// try CQLParser.parse("select count(*) from T").count      // .only
/// try CQLParser.parse("select count(*), * from T").count   // .withResults
/// ```
public enum CountMode: Hashable, Sendable {
    /// No count.
    case none
    /// `select count(*) from T`: the count only, no results.
    case only
    /// `select count(*), * from T`: the results and the count.
    case withResults
}

/// One entry of a projection.
///
/// ```swift
/// try WhereJSONReader.read(#"{"className":"Post","keys":"title,-body"}"#).keys
/// // [SelectedKey("title"), SelectedKey("body", excluded: true)]
/// try UsergridParser.parse("select {name:n}").keys
/// // [SelectedKey("name", alias: "n")]
/// ```
public struct SelectedKey: Hashable, Sendable {
    public var path: FieldPath
    /// `-author` in `keys`: return everything but this.
    public var excluded: Bool
    /// Usergrid `{source:alias}`: return the value of `path` under `alias`.
    public var alias: String?
    public init(_ path: FieldPath, excluded: Bool = false, alias: String? = nil) {
        self.path = path
        self.excluded = excluded
        self.alias = alias
    }
}

/// One key of `order by`.
///
/// ```swift
/// try CQLParser.parse("select * from T order by score, +name desc").order
/// // [OrderKey("score", descending: true), OrderKey("name")]
/// ```
public struct OrderKey: Hashable, Sendable {
    public var path: FieldPath
    public var descending: Bool
    public init(_ path: FieldPath, descending: Bool = false) {
        self.path = path
        self.descending = descending
    }
}
