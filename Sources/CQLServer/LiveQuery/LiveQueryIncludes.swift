import CQLEval
import CQLKit

extension API {
    /// A LiveQuery event's object with its subscription's `include` paths
    /// resolved as that subscriber's find would resolve them (LiveQuery.md,
    /// "include"): the Pointers read by objectId, level by level, as a
    /// find's include reads them; then the find's answer steps —
    /// ``permitted(_:className:grantees:)`` (an included object of a class
    /// the subscriber may not `get` is its bare Pointer, protected keys
    /// removed) and ``hidingUnreadable(_:grantees:)`` (one its ACL hides is
    /// its bare Pointer) — and the answer's shape: `"__type":"Pointer"`,
    /// `ACL` by `returnACL`, no `_User` secret. File references stay as
    /// stored, as in every event.
    ///
    /// The included objects are read when the event is made: they are what
    /// a find made then would include.
    func includedForLiveQuery(_ object: [String: Value], className: String, includes: [FieldPath], grantees: [String]?,
                              returnACL: Bool) async throws -> [String: Value]
    {
        var store = DocumentStore()
        var asked = Set<Pointer>()
        while true {
            let lacking = store.pointersIncludeLacks(in: [object], paths: includes).filter { !asked.contains($0) }
            if lacking.isEmpty { break }
            asked.formUnion(lacking)
            // A name with ':' is a join table or the server's own, never a class a Pointer may name.
            for (pointed, pointers) in Dictionary(grouping: lacking, by: \.className) where !pointed.contains(":") {
                let byId = Query(className: pointed, condition: Condition(.in("objectId", pointers.map { .value(.string($0.objectId)) }, negated: false)))
                // As master, as a find's include reads: what the subscriber may not see is hidden below.
                store.add(try await storage.find(try Self.prepared(byId, as: .master)).objects, to: pointed)
            }
        }
        let included = store.including(object, paths: includes)
        let shown = try await hidingUnreadable(try await permitted([included], className: className, grantees: grantees), grantees: grantees)
        guard case .object(let o) = Self.expandingFiles(.object(shown.first ?? included), nil, returnACL: returnACL) else { return included }
        return o
    }
}
