import CQLKit

/// Which LiveQuery event a write produces for a subscribed query, as the
/// LeanCloud Swift SDK's `LiveQuery` events define them.
///
/// | event | when |
/// |---|---|
/// | `create` | a new object matches |
/// | `update` | the object matched before and after the write |
/// | `enter` | it matches after the write but did not before |
/// | `leave` | it matched before the write but does not after |
/// | `delete` | a deleted object matched |
///
/// ```swift
/// let q = Query(className: "GameScore", condition: Condition(.compare("score", .greaterThan, .value(80))))
/// let m = try ChangeMatcher(q)
/// try m.event(before: ["score": 70], after: ["score": 90])   // .enter
/// try m.event(before: ["score": 90], after: ["score": 95])   // .update
/// try m.event(before: nil, after: ["score": 10])             // nil
/// ```
public struct ChangeMatcher: Sendable {
    public enum Event: String, Sendable, Hashable, CaseIterable {
        case create, update, enter, leave, delete
    }

    /// The compiled query (subqueries ran against the store given to `init`).
    public let plan: QueryPlan

    /// - Parameters:
    ///   - query: the subscribed query, bound.
    ///   - store: data for subqueries and relations, as of subscription time.
    ///   - source: the query text, so errors render with a caret.
    /// - Throws: the plan-time errors of ``QueryPlan``.
    public init(_ query: Query, store: DocumentStore = DocumentStore(), source: String? = nil) throws(QueryError) {
        plan = try QueryPlan(query, store: store, source: source)
    }

    /// The event for one write: `before` is `nil` for a creation, `after` is
    /// `nil` for a deletion. `nil` when the subscriber hears nothing.
    public func event(before: [String: Value]?, after: [String: Value]?) throws(QueryError) -> Event? {
        switch (before, after) {
        case (nil, nil):
            return nil
        case (nil, let new?):
            return try plan.matches(new) ? .create : nil
        case (let old?, nil):
            return try plan.matches(old) ? .delete : nil
        case (let old?, let new?):
            switch (try plan.matches(old), try plan.matches(new)) {
            case (true, true): return .update
            case (false, true): return .enter
            case (true, false): return .leave
            case (false, false): return nil
            }
        }
    }
}
