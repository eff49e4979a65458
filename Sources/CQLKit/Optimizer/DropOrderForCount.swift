/// Drops `order by` from a query that asks only for a count.
///
/// ```
/// select count(*) from T where a > 1 order by -b    →   select count(*) from T where a > 1
/// select count(*), * from T order by -b             stays (the results are returned too)
/// ```
///
/// Sound at the top level of a query: with `count(*)` alone no object is
/// returned, and the count is the number of matches before skip and limit
/// (EvaluationSemantics.md), which no order changes. A subquery is never a count
/// query, and its order (with its limit) decides which objects it yields, so
/// subqueries are left alone. (An order over two parallel arrays is a runtime
/// error; a count-only query no longer raises it, as MongoDB's count
/// ignores the sort.)
public struct DropOrderForCount: OptimizerRule {
    public init() {}
    public var name: String { "DropOrderForCount" }
    /// Fires only on a count-only query with an order (a feature of the
    /// query itself, not of its condition).
    public var triggers: ConditionFeatures? { .countOnlyOrder }

    public func apply(_ query: Query) -> Query { rewritten(query) ?? query }

    /// `nil` (unchanged) unless a count-only query has an order: the
    /// optimizer then neither copies nor compares the query.
    public func rewritten(_ query: Query) -> Query? {
        guard query.count == .only, !query.order.isEmpty else { return nil }
        var q = query
        q.order = []
        return q
    }
}
