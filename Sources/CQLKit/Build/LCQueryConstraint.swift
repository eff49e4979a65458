/// What ``LCQuery/where(_:_:)`` asks of a key: the constraints of the
/// LeanCloud / AVOS Cloud SDKs' `whereKey(_:_:)`.
///
/// ```swift
/// LCQuery("Todo").where("priority", .greaterThanOrEqualTo(3))
/// // {"className":"Todo","where":{"priority":{"$gte":3}}}
/// LCQuery("Todo").where("title", .prefixedBy("a.b"))
/// // {"className":"Todo","where":{"title":{"$regex":"^\\Qa.b\\E"}}}
/// LCQuery("Todo").where("createdAt", .descending)
/// // {"className":"Todo","order":"-createdAt"}
/// ```
///
/// Values are converted when the constraint is made; a bad value (a NaN, a
/// GeoPoint out of range, a regex option outside `imxs`) is remembered and
/// thrown by ``LCQuery/build()``.
public struct LCQueryConstraint: Sendable {
    enum Kind: Sendable {
        case compare(ComparisonOperator, Value)
        case membership([Value], negated: Bool)
        case all([Value])
        case size(Int64)
        case exists(Bool)
        case regex(String, options: String)
        case inQuery(Query, negated: Bool)
        case select(key: FieldPath, Query, negated: Bool)
        case relatedTo(Pointer)
        case near(GeoPoint, min: Distance?, max: Distance?)
        case withinBox(southwest: GeoPoint, northeast: GeoPoint)
        case selected, included, ascending, descending
    }

    /// The SDK name of the constraint, for messages.
    let name: String
    let kind: Result<Kind, QueryError>

    init(_ name: String, _ make: () throws(QueryError) -> Kind) {
        self.name = name
        do { kind = .success(try make()) } catch { kind = .failure(error) }
    }

    // MARK: Comparison

    /// `{"k": v}` — equals; on an array field, contains `v`.
    public static func equalTo(_ value: some ValueConvertible) -> Self {
        Self("equalTo") { () throws(QueryError) in .compare(.equal, try BuilderSupport.value(value)) }
    }

    /// `{"k": {"$ne": v}}`
    public static func notEqualTo(_ value: some ValueConvertible) -> Self {
        Self("notEqualTo") { () throws(QueryError) in .compare(.notEqual, try BuilderSupport.value(value)) }
    }

    /// `{"k": {"$lt": v}}`
    public static func lessThan(_ value: some ValueConvertible) -> Self {
        Self("lessThan") { () throws(QueryError) in .compare(.lessThan, try BuilderSupport.value(value)) }
    }

    /// `{"k": {"$lte": v}}`
    public static func lessThanOrEqualTo(_ value: some ValueConvertible) -> Self {
        Self("lessThanOrEqualTo") { () throws(QueryError) in .compare(.lessThanOrEqual, try BuilderSupport.value(value)) }
    }

    /// `{"k": {"$gt": v}}`
    public static func greaterThan(_ value: some ValueConvertible) -> Self {
        Self("greaterThan") { () throws(QueryError) in .compare(.greaterThan, try BuilderSupport.value(value)) }
    }

    /// `{"k": {"$gte": v}}`, e.g. `.greaterThanOrEqualTo(3)` → `{"priority":{"$gte":3}}`.
    public static func greaterThanOrEqualTo(_ value: some ValueConvertible) -> Self {
        Self("greaterThanOrEqualTo") { () throws(QueryError) in .compare(.greaterThanOrEqual, try BuilderSupport.value(value)) }
    }

    // MARK: Lists and arrays

    /// `{"k": {"$in": [..]}}`, e.g. `.containedIn(["a", 1])` → `{"$in":["a",1]}`.
    public static func containedIn(_ values: [any ValueConvertible]) -> Self {
        Self("containedIn") { () throws(QueryError) in .membership(try BuilderSupport.values(values), negated: false) }
    }

    /// `{"k": {"$nin": [..]}}`
    public static func notContainedIn(_ values: [any ValueConvertible]) -> Self {
        Self("notContainedIn") { () throws(QueryError) in .membership(try BuilderSupport.values(values), negated: true) }
    }

    /// `{"k": {"$all": [..]}}`: the array holds every value.
    public static func containedAllIn(_ values: [any ValueConvertible]) -> Self {
        Self("containedAllIn") { () throws(QueryError) in .all(try BuilderSupport.values(values)) }
    }

    /// `{"k": {"$size": n}}`: the array has `n` elements (`n >= 0`).
    public static func equalToSize(_ size: Int) -> Self {
        Self("equalToSize") { () throws(QueryError) in
            guard size >= 0 else { throw BuilderSupport.invalid("the size must not be negative, found \(size)") }
            return .size(Int64(size))
        }
    }

    // MARK: Presence

    /// `{"k": {"$exists": true}}`
    public static var existed: Self { Self("existed") { .exists(true) } }

    /// `{"k": {"$exists": false}}`
    public static var notExisted: Self { Self("notExisted") { .exists(false) } }

    // MARK: Strings

    /// `{"k": {"$regex": "^\\Qtext\\E"}}`: starts with `text`, taken literally
    /// (`.prefixedBy("a.b")` does not match `"axb"`). The text is quoted as
    /// `\Q…\E`, a `\E` inside it written `\E\\E\Q`, as the Parse SDKs do.
    public static func prefixedBy(_ text: String) -> Self {
        Self("prefixedBy") { .regex("^" + TextRegex.quote(text), options: "") }
    }

    /// `{"k": {"$regex": "\\Qtext\\E$"}}`: ends with `text`, taken literally.
    public static func suffixedBy(_ text: String) -> Self {
        Self("suffixedBy") { .regex(TextRegex.quote(text) + "$", options: "") }
    }

    /// `{"k": {"$regex": "\\Qtext\\E"}}`: contains `text`, taken literally.
    public static func matchedSubstring(_ text: String) -> Self {
        Self("matchedSubstring") { .regex(TextRegex.quote(text), options: "") }
    }

    /// `{"k": {"$regex": pattern, "$options": option}}`: a PCRE search.
    /// `option` may hold only `i`, `m`, `x` and `s`.
    ///
    /// `.matchedRegularExpression("^to", option: "i")` → `{"$options":"i","$regex":"^to"}`
    public static func matchedRegularExpression(_ pattern: String, option: String? = nil) -> Self {
        Self("matchedRegularExpression") { () throws(QueryError) in
            let options = option ?? ""
            for ch in options where !"imxs".contains(ch) {
                throw QueryError(.pattern, "invalid regex option '\(ch)' in \"\(options)\": only i, m, x and s are allowed")
            }
            return .regex(pattern, options: options)
        }
    }

    // MARK: Subqueries and relations

    /// `{"k": {"$inQuery": {"className": C, "where": {..}}}}`: the pointer
    /// `k` points at an object that `query` matches.
    public static func matchedQuery(_ query: LCQuery) -> Self {
        Self("matchedQuery") { () throws(QueryError) in .inQuery(try query.build(), negated: false) }
    }

    /// `{"k": {"$notInQuery": {..}}}`
    public static func notMatchedQuery(_ query: LCQuery) -> Self {
        Self("notMatchedQuery") { () throws(QueryError) in .inQuery(try query.build(), negated: true) }
    }

    /// `{"k": {"$select": {"query": {"className": C, "where": {..}}, "key": key}}}`:
    /// `k` equals the `key` of some object `query` matches.
    public static func matchedQueryAndKey(query: LCQuery, key: String) -> Self {
        Self("matchedQueryAndKey") { () throws(QueryError) in
            .select(key: try BuilderSupport.path(key), try query.build(), negated: false)
        }
    }

    /// `{"k": {"$dontSelect": {..}}}`
    public static func notMatchedQueryAndKey(query: LCQuery, key: String) -> Self {
        Self("notMatchedQueryAndKey") { () throws(QueryError) in
            .select(key: try BuilderSupport.path(key), try query.build(), negated: true)
        }
    }

    /// Top-level `{"$relatedTo": {"object": object, "key": k}}`: the objects
    /// in the relation `k` of `object`.
    public static func relatedTo(_ object: Pointer) -> Self {
        Self("relatedTo") { .relatedTo(object) }
    }

    // MARK: Geo

    /// `{"k": {"$nearSphere": p, "$maxDistanceInKilometers": 5}}` for
    /// `.locatedNear(p, within: .kilometers(5))`; results come nearest first.
    public static func locatedNear(_ point: GeoPoint, within maximal: Distance) -> Self {
        locatedNear(point, minimal: nil, maximal: maximal)
    }

    /// `$nearSphere` with optional `$minDistanceIn…` / `$maxDistanceIn…` bounds.
    public static func locatedNear(_ point: GeoPoint, minimal: Distance? = nil, maximal: Distance? = nil) -> Self {
        Self("locatedNear") { () throws(QueryError) in
            try BuilderSupport.checkPoint(point)
            try BuilderSupport.checkDistance(minimal, "minimal")
            try BuilderSupport.checkDistance(maximal, "maximal")
            return .near(point, min: minimal, max: maximal)
        }
    }

    /// `{"k": {"$within": {"$box": [southwest, northeast]}}}` (inclusive).
    /// Corners given the wrong way round are normalized, as MongoDB's `$box`
    /// does (EvaluationSemantics.md).
    public static func locatedWithin(southwest: GeoPoint, northeast: GeoPoint) -> Self {
        Self("locatedWithin") { () throws(QueryError) in
            try BuilderSupport.checkPoint(southwest)
            try BuilderSupport.checkPoint(northeast)
            let corners = OperandChecks.box(southwest, northeast)
            return .withinBox(southwest: corners.southwest, northeast: corners.northeast)
        }
    }

    // MARK: Projection and order

    /// Adds the key to `keys` (`"-k"` excludes it): `"keys":"title,-body"`.
    public static var selected: Self { Self("selected") { .selected } }

    /// Adds the key to `include` (resolve the pointer): `"include":"author"`.
    public static var included: Self { Self("included") { .included } }

    /// Appends the key to `order`, ascending: `"order":"createdAt"`.
    public static var ascending: Self { Self("ascending") { .ascending } }

    /// Appends the key to `order`, descending: `"order":"-createdAt"`.
    public static var descending: Self { Self("descending") { .descending } }
}

extension Distance {
    /// `n` kilometers: `.locatedNear(p, within: .kilometers(2))` → `"$maxDistanceInKilometers":2`.
    public static func kilometers(_ n: Int) -> Distance { Distance(.value(.int(Int64(n))), .kilometers) }
    /// `n` kilometers: `.kilometers(0.5)` → `"$maxDistanceInKilometers":0.5`.
    public static func kilometers(_ n: Double) -> Distance { Distance(.value(.double(n)), .kilometers) }
    /// `n` miles: `"$maxDistanceInMiles":n`.
    public static func miles(_ n: Int) -> Distance { Distance(.value(.int(Int64(n))), .miles) }
    /// `n` miles: `"$maxDistanceInMiles":n`.
    public static func miles(_ n: Double) -> Distance { Distance(.value(.double(n)), .miles) }
    /// `n` radians (a central angle): `"$maxDistanceInRadians":n`.
    public static func radians(_ n: Int) -> Distance { Distance(.value(.int(Int64(n))), .radians) }
    /// `n` radians (a central angle): `"$maxDistanceInRadians":n`.
    public static func radians(_ n: Double) -> Distance { Distance(.value(.double(n)), .radians) }
    /// `n` meters (Usergrid's unit); where-JSON writes it as kilometers (`n / 1000`).
    public static func meters(_ n: Int) -> Distance { Distance(.value(.int(Int64(n))), .meters) }
    /// `n` meters (Usergrid's unit); where-JSON writes it as kilometers (`n / 1000`).
    public static func meters(_ n: Double) -> Distance { Distance(.value(.double(n)), .meters) }
}
