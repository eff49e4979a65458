/// An emitted condition before it becomes a JSON object: ordered entries that
/// remember whether a key holds an equality or operators, so that AND can
/// merge them (a Mongo `{"$date":...}` equality must not pass for operators).
struct WhereDoc {
    enum FieldValue {
        /// `{"k": v}`
        case equals(Value)
        /// `{"k": {"$op": v, ...}}`, operators in emission order.
        case operators([(String, Value)])
    }

    enum Entry {
        /// A key path (never starts with `$`).
        case field(String, FieldValue)
        /// A top-level operator: `$or`, `$and`, `$nor`, `$relatedTo`.
        case top(String, Value)

        /// The entry's key: the key path or the top-level operator.
        var key: String {
            switch self {
            case .field(let k, _), .top(let k, _): return k
            }
        }
    }

    var entries: [Entry] = []

    init(_ entries: [Entry] = []) { self.entries = entries }
    static func field(_ key: String, _ value: FieldValue) -> WhereDoc { WhereDoc([.field(key, value)]) }
    static func op(_ key: String, _ op: String, _ value: Value) -> WhereDoc { .field(key, .operators([(op, value)])) }

    /// Matches nothing in every dialect (`$in: []` matches no value, not even
    /// a missing one); `$or: []` would be rejected by MongoDB.
    static let matchesNothing = WhereDoc.op("objectId", "$in", .array([]))
}
