import CQLEval
import CQLKit
import Crypto
import Foundation

/// One subscribed query of one installation id, with what its subscriber
/// may read: its events are built here (LiveQuery.md, "Events").
///
/// The matcher is the query as the caller-query path makes it for a find
/// (``CallerQuery/restricted(_:as:)``: restricted to the subscriber's
/// grantees, `_User`'s secrets refused with 105), so "matches" means
/// "matches and is readable by it": an object that becomes unreadable is a
/// `leave`, one that becomes readable an `enter`.
///
/// ```swift
/// let s = try Subscription(query: q, fingerprint: #"{"className":"Todo"}"#, installationId: "d1", userId: nil, grantees: ["*"], hidden: [])
/// try s.event(ObjectChange(className: "Todo", objectId: "a", before: nil, after: ["title": "x"]))
/// // {"object":{"className":"Todo","objectId":"a","title":"x"},"op":"create","query_id":"..."}
/// ```
final class Subscription: Sendable {
    let queryId: String
    let installationId: String
    let className: String
    /// The query as subscribed (without the ACL), to restrict again when
    /// the subscriber's roles change.
    let query: Query
    let userId: String?
    /// nil: the master key (reads everything).
    let grantees: [String]?
    let matcher: ChangeMatcher
    /// Top-level keys selected (`keys`); nil: all.
    let selected: Set<String>?
    /// Keys `keys` excluded (`-title`).
    let excluded: Set<String>
    let returnACL: Bool
    /// Keys never shown: `_User`'s secrets, keys the class's permissions hide.
    let hidden: Set<String>
    /// The equality `key = value` the index files it under.
    let indexKey: (String, IndexValue)?
    /// The query's `include` paths: the hub resolves them in each event's
    /// object (``LiveQueryHub/includeObjects``).
    var includes: [FieldPath] { query.includes }

    /// The query's canonical JSON (className, where, keys, returnACL),
    /// which its id is made from.
    let fingerprint: String

    /// Throws ``APIError`` (what the caller may not ask) or `QueryError`.
    init(query: Query, fingerprint: String, installationId: String, userId: String?, grantees: [String]?, hidden: Set<String>) throws {
        self.query = query
        self.fingerprint = fingerprint
        self.installationId = installationId
        self.userId = userId
        self.grantees = grantees
        self.hidden = hidden
        className = query.className
        // One path with finds: a subscription may ask no more than a find may (`_User`'s secrets: 105).
        matcher = try ChangeMatcher(try CallerQuery.restricted(query, as: QueryCaller(grantees: grantees)))
        returnACL = query.returnACL
        var selected = Set<String>(), excluded = Set<String>()
        for k in query.keys {
            guard let name = k.path.singleComponent, k.alias == nil else {
                throw QueryError(.unsupported, "LiveQuery: keys are top-level keys ('\(k.path)' is not)")
            }
            if k.excluded { excluded.insert(name) } else { selected.insert(name) }
        }
        self.selected = selected.isEmpty ? nil : selected
        self.excluded = excluded
        indexKey = Self.equality(query.condition)
        queryId = Self.queryId(installationId: installationId, fingerprint: fingerprint, userId: userId, master: grantees == nil)
    }

    /// The same subscription with other grantees (its roles changed).
    func with(grantees: [String]) throws -> Subscription {
        try Subscription(query: query, fingerprint: fingerprint, installationId: installationId, userId: userId, grantees: grantees, hidden: hidden)
    }

    /// The same id for the same installation, query and subscriber: an SDK
    /// subscribing again after a reconnect gets its query id back.
    static func queryId(installationId: String, fingerprint: String, userId: String?, master: Bool) -> String {
        let text = [installationId, fingerprint, userId ?? "", master ? "M" : ""].joined(separator: "\u{0}")
        return SHA256.hash(data: Data(text.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    /// A value an equality is filed under: a string, or a number by its
    /// double (`1` and `1.0` are equal, as in a find; two integers that
    /// share a double share an entry, which only adds candidates).
    enum IndexValue: Hashable, Sendable {
        case string(String)
        case number(Double)

        /// The entry a stored or subscribed value is under; nil for the
        /// other kinds (their subscriptions are not indexed, and a stored
        /// one is looked up in every entry).
        init?(_ v: Value) {
            switch v {
            case .string(let s): self = .string(s)
            case .int(let i): self = .number(Double(i))
            case .double(let d) where !d.isNaN: self = .number(d == 0 ? 0 : d)  // -0.0 is 0
            default: return nil
            }
        }
    }

    /// A top-level `key = "string"` or `key = number` the query requires
    /// (alone or in its top `and`).
    static func equality(_ c: Condition?) -> (String, IndexValue)? {
        guard let c else { return nil }
        // Only these two shapes file a subscription under a key; any other
        // (a new predicate too) leaves it unindexed, matched on every write.
        if case .compare(let path, .equal, .value(let v)) = c.predicate, let key = path.singleComponent, let entry = IndexValue(v) {
            return (key, entry)
        }
        if case .and(let items) = c.predicate {
            for item in items { if let found = equality(item) { return found } }
        }
        return nil
    }

    /// The event JSON this change produces for the subscriber; nil: none.
    func event(_ change: ObjectChange) throws(QueryError) -> String? {
        try eventBody(change).map { JSONWriter.string(.object($0.body)) }
    }

    /// The event this change produces for the subscriber (nil: none), and
    /// whether its object has content `include` may resolve in (a `leave`
    /// out of the subscriber's reach has none).
    func eventBody(_ change: ObjectChange) throws(QueryError) -> (body: [String: Value], hasContent: Bool)? {
        guard let op = try matcher.event(before: change.before, after: change.after) else { return nil }
        var hasContent = true
        var body: [String: Value] = ["query_id": .string(queryId), "op": .string(op.rawValue)]
        switch op {
        case .create:
            body["object"] = shown(change.after, change)
        case .delete:
            body["object"] = shown(change.before, change)
        case .update, .enter:
            body["object"] = shown(change.after, change)
            body["updatedKeys"] = updatedKeys(change)
        case .leave:
            if let after = change.after, grantees.map({ ACLRule.grants(after["ACL"], .read, to: $0) }) ?? true {
                body["object"] = shown(after, change)
                body["updatedKeys"] = updatedKeys(change)
            } else {
                // No longer readable: the object's new content, and what
                // the write changed, are not the subscriber's to know.
                body["object"] = .object(["className": .string(className), "objectId": .string(change.objectId)])
                body["updatedKeys"] = .array([])
                hasContent = false
            }
        }
        return (body, hasContent)
    }

    /// Whether the subscriber is shown `key` (with `ACL` only by `returnACL`).
    func shows(_ key: String) -> Bool {
        if hidden.contains(key) || excluded.contains(key) { return false }
        if key == "ACL" { return returnACL }
        if let selected, !selected.contains(key), !Self.alwaysShown.contains(key) { return false }
        return true
    }

    static let alwaysShown: Set<String> = ["objectId", "createdAt", "updatedAt"]

    /// The object as this subscriber's find would return it (File
    /// references as stored: LiveQuery.md).
    func shown(_ object: [String: Value]?, _ change: ObjectChange) -> Value {
        var o = (object ?? [:]).filter { shows($0.key) }
        if returnACL { API.showACL(&o, true) }
        o["className"] = .string(className)
        o["objectId"] = .string(change.objectId)
        return .object(o)
    }

    /// The keys the write changed that the subscriber is shown, sorted.
    func updatedKeys(_ change: ObjectChange) -> Value {
        let before = change.before ?? [:], after = change.after ?? [:]
        let keys = Set(before.keys).union(after.keys).filter { k in
            k != "updatedAt" && k != "createdAt" && shows(k) && before[k] != after[k]
        }
        return .array(keys.sorted().map { .string($0) })
    }
}
