extension WhereJSONDialectTable {
    /// LeanCloud documents the common operators only: no `$eq`, no general
    /// negation (so `not regexp` is an error, not a silently different query),
    /// no Parse- or Mongo-only operators. Geo uses REST GeoPoints with the
    /// unit-named distance keys; subqueries and `$relatedTo` are supported,
    /// and so is the `returnACL` request parameter (its own).
    static let leancloud = WhereJSONDialectTable(
        name: "leancloud",
        features: [.subqueries, .relatedTo, .returnACL],
        points: .geoPoint,
        distances: .unitKeys,
        dates: .rest,
        boxOperator: "$within"
    )
}
