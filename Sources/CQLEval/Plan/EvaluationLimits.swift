import CQLKit

/// The evaluator's limits: the query's sizes (CQLKit's `QueryLimits`), how many rows
/// one subquery may feed into the query around it, and the work one regular
/// expression match may do. Exceeding one is a `.limit` error (`.pattern`
/// for a regex: "regex too expensive"), never a hang.
///
/// ```swift
/// var limits = EvaluationLimits()
/// limits.maxSubqueryRows = 1
/// let store = DocumentStore(["T": [["objectId": "a", "k": 1], ["objectId": "b", "k": 2]]])
/// try QueryPlan(CQLParser.parse("select * from T where k in (select k from T)"), store: store, limits: limits)
/// // throws .limit: "the subquery yields 2 rows; the limit is 1"
/// ```
public struct EvaluationLimits: Hashable, Sendable {
    /// Checked when a query is planned.
    public var query = QueryLimits.default
    /// Rows one subquery (`in (select ...)`, `$inQuery`, `$select`) may yield.
    public var maxSubqueryRows = 100_000
    /// PCRE2's match limit: backtracking steps of one match (PCRE2's own
    /// default is 10,000,000).
    public var regexMatchLimit: UInt32 = 1_000_000
    /// PCRE2's depth limit: how deep the interpreter's backtracking may nest.
    public var regexDepthLimit: UInt32 = 10_000
    /// PCRE2's heap limit for the interpreter's backtracking frames, in KiB.
    public var regexHeapLimitKiB: UInt32 = 64 * 1024

    /// The engine that runs regexes: PCRE2 in the default build, the
    /// pure-Swift engine in a build without trait `PCRE2` (tests and
    /// `cql eval --regex-engine swift` may pick it in the default build too).
    /// Its budget is the three limits above.
    public var regexEngine = RegexEngineKind.standard

    public init() {}

    /// The defaults above.
    public static let `default` = EvaluationLimits()
}
