extension WhereJSONDialectTable {
    /// A MongoDB filter document: `$eq`, `$not`, `$nor`, `$elemMatch`,
    /// `$type`, `$mod`, `$geoWithin` and `$geoIntersects` with `[lng, lat]`
    /// points, `$nearSphere` with radian distances, Dates as `{"$date":...}`.
    /// Subqueries and relations are resolved by the REST servers, not by
    /// MongoDB, so they are errors here; so are Parse's `$containedBy`,
    /// `$text` (MongoDB's is collection-wide) and `$relativeTime`.
    static let mongo = WhereJSONDialectTable(
        name: "mongo",
        features: [.eq, .nor, .fieldNot, .elemMatch, .type, .mod, .polygon, .centerSphere, .geoIntersects],
        points: .lngLatArray,
        distances: .radians,
        dates: .extendedJSON,
        boxOperator: "$geoWithin"
    )
}
