/// The targets of ``WhereJSONEmitter``: like SQL dialects, each accepts a
/// different operator set, declared as a table (`WhereJSONDialectTable+LeanCloud.swift`,
/// `WhereJSONDialectTable+Parse.swift`, `WhereJSONDialectTable+Mongo.swift`).
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where not (name regexp 'x')")
/// try WhereJSONEmitter.emit(q, dialect: .parse)      // {"className":"T","where":{"$nor":[{"name":{"$regex":"x"}}]}}
/// try WhereJSONEmitter.emit(q, dialect: .mongo)      // {"className":"T","where":{"name":{"$not":{"$regex":"x"}}}}
/// try WhereJSONEmitter.emit(q, dialect: .leancloud)  // throws: 'not regexp' cannot be expressed in the leancloud where-JSON dialect
/// ```
public enum WhereJSONDialect: String, CaseIterable, Sendable {
    /// Only the operators LeanCloud documents; distances as `$maxDistanceInKilometers` etc.
    case leancloud
    /// Parse Server: adds `$nor`, `$eq`, `$containedBy`, `$text`, `$relativeTime`, `$geoWithin`, `$geoIntersects`.
    case parse
    /// A MongoDB filter document: `$not`, `$nor`, `$elemMatch`, `$type`, `$mod`; points as `[lng, lat]`.
    case mongo

    var table: WhereJSONDialectTable {
        switch self {
        case .leancloud: return .leancloud
        case .parse: return .parse
        case .mongo: return .mongo
        }
    }
}

/// What one dialect supports. The emitter asks the table, never the dialect's
/// name, so adding a dialect is adding a table.
struct WhereJSONDialectTable: Sendable {
    /// Optional operators; everything not listed here is common to all dialects
    /// (`$ne $lt $lte $gt $gte $in $nin $all $size $exists $regex $or $and`,
    /// `$nearSphere`, box search).
    ///
    /// A bit set rather than a `Set` of an enum: the first use of a table
    /// instantiated `Set<Feature>`'s generic metadata (demangling its name),
    /// and every `supports` hashed.
    struct Feature: OptionSet, Sendable {
        let rawValue: UInt32

        /// `$eq`: lets equality merge with other operators on the same key.
        static let eq = Feature(rawValue: 1 << 0)
        /// `$nor`: the general negation of a condition.
        static let nor = Feature(rawValue: 1 << 1)
        /// Field-level `$not: {...}` (preferred over `$nor` when it fits).
        static let fieldNot = Feature(rawValue: 1 << 2)
        static let containedBy = Feature(rawValue: 1 << 3)
        static let elemMatch = Feature(rawValue: 1 << 4)
        static let type = Feature(rawValue: 1 << 5)
        static let mod = Feature(rawValue: 1 << 6)
        static let fullText = Feature(rawValue: 1 << 7)
        static let polygon = Feature(rawValue: 1 << 8)
        static let centerSphere = Feature(rawValue: 1 << 9)
        static let geoIntersects = Feature(rawValue: 1 << 10)
        /// `$select`, `$dontSelect`, `$inQuery`, `$notInQuery`.
        static let subqueries = Feature(rawValue: 1 << 11)
        /// Top-level `$relatedTo`.
        static let relatedTo = Feature(rawValue: 1 << 12)
        /// `{"$relativeTime": "in 2 days"}` as the operand of a range comparison.
        static let relativeTime = Feature(rawValue: 1 << 13)
        /// LeanCloud's `"returnACL":"true"` request parameter.
        static let returnACL = Feature(rawValue: 1 << 14)
    }

    /// How geo points are written.
    enum PointForm: Sendable {
        /// `{"__type":"GeoPoint","latitude":..,"longitude":..}`
        case geoPoint
        /// `[lng, lat]` (MongoDB legacy coordinates)
        case lngLatArray
    }

    /// How `near` distance bounds are written.
    enum DistanceForm: Sendable {
        /// `$maxDistanceInKilometers` / `InMiles` / `InRadians` (meters become kilometers).
        case unitKeys
        /// `$maxDistance` / `$minDistance` in radians, converted from every unit.
        case radians
    }

    /// How Dates are written.
    enum DateForm: Sendable {
        /// `{"__type":"Date","iso":...}`
        case rest
        /// MongoDB extended JSON `{"$date":...}`
        case extendedJSON
    }

    let name: String
    let features: Feature
    let points: PointForm
    let distances: DistanceForm
    let dates: DateForm
    /// The operator of a box search: `$within` or `$geoWithin`.
    let boxOperator: String
    /// The stored name of the built-in `objectId` key (MongoDB's own `_id`
    /// when asked for; see ``WhereJSONEmitter/emit(_:dialect:objectIdAsMongoId:)``).
    var objectIdKey = "objectId"

    func supports(_ feature: Feature) -> Bool { features.contains(feature) }

    /// `"'\(construct)' cannot be expressed in the \(name) where-JSON dialect"`
    func unsupported(_ construct: String, range: SourceRange?) -> QueryError {
        QueryError(.unsupported, "'\(construct)' cannot be expressed in the \(name) where-JSON dialect", range: range)
    }
}
