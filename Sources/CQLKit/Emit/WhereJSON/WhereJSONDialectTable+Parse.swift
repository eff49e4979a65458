extension WhereJSONDialectTable {
    /// Parse Server: LeanCloud's set plus `$eq`, `$nor`, `$containedBy`,
    /// `$text`, `$relativeTime`, `$geoWithin` (`$polygon`, `$centerSphere`) and
    /// `$geoIntersects`. It has no field-level `$not`, `$elemMatch`, `$type`
    /// or `$mod` (its query validator rejects them).
    static let parse = WhereJSONDialectTable(
        name: "parse",
        features: [.eq, .nor, .containedBy, .fullText, .relativeTime, .polygon, .centerSphere, .geoIntersects,
                   .subqueries, .relatedTo],
        points: .geoPoint,
        distances: .unitKeys,
        dates: .rest,
        boxOperator: "$within"
    )
}
