import CQLKit

/// A create body (`POST /1.1/classes/<Class>`) as an insert can take it.
///
/// The SDKs send operations in a new object's body too (`increment` or
/// `add` before the first save). On an object that does not exist yet each
/// means what it does on a missing key: `Increment`/`Decrement`/`BitOr`/
/// `BitXor` set the amount (negated for `Decrement`), `BitAnd` sets 0, `Add`
/// and `AddUnique` set the array (duplicates dropped for `AddUnique`),
/// `Remove` sets `[]`, `Delete` leaves the key out. Relation operations are
/// kept apart: relation rows are added once the object exists.
/// `createdAt`, `updatedAt` and `objectId` are the server's to set and are
/// dropped.
///
/// ```swift
/// try CreateBody(["n": .object(["__op": "Increment", "amount": 2]), "t": "x"]).values
/// // ["n": 2, "t": "x"]
/// ```
struct CreateBody {
    /// Keys only the server writes.
    static let serverKeys = ["createdAt", "updatedAt", "objectId"]
    /// LeanCloud's flag that a write skips the app's hooks: accepted in any
    /// write's body and never stored.
    static let ignoreHooks = "__ignore_hooks"

    var values: [String: Value] = [:]
    var relationOps: [String: Value] = [:]

    init(_ body: [String: Value]) throws(APIError) {
        for (key, value) in body where !Self.serverKeys.contains(key) && key != Self.ignoreHooks {
            guard case .object(let o) = value, case .string(let op)? = o["__op"] else {
                values[key] = value
                continue
            }
            switch op {
            case "Increment", "BitOr", "BitXor": values[key] = try Self.amount(o, key, op)
            case "Decrement":
                switch try Self.amount(o, key, op) {
                case .int(let i): values[key] = .int(0 &- i)
                case .double(let d): values[key] = .double(-d)
                default: break
                }
            case "BitAnd": _ = try Self.amount(o, key, op); values[key] = .int(0)
            case "Add", "AddUnique":
                var items = try Self.objects(o, key, op)
                if op == "AddUnique" {
                    var unique: [Value] = []
                    for item in items where !unique.contains(item) { unique.append(item) }
                    items = unique
                }
                values[key] = .array(items)
            case "Remove": _ = try Self.objects(o, key, op); values[key] = .array([])
            case "Delete": break
            case "AddRelation", "RemoveRelation", "Batch": relationOps[key] = value
            default: throw APIError(code: 111, "\(key): unknown operation '\(op)'")
            }
        }
    }

    /// 111 for an update's operation whose `__op` names none (LeanCloud's
    /// code; the reader's own error for it would be 102).
    static func checkOperationNames(_ body: [String: Value]) throws(APIError) {
        for (key, value) in body {
            guard case .object(let o) = value, let op = o["__op"] else { continue }
            guard case .string(let name) = op, FieldOperation.Kind.named(name) != nil else {
                throw APIError(code: 111, "\(key): unknown operation \(op.stringValue.map { "'\($0)'" } ?? "(not a string)")")
            }
        }
    }

    static func amount(_ o: [String: Value], _ key: String, _ op: String) throws(APIError) -> Value {
        switch o["amount"] ?? o["value"] {
        case .int(let i)?: return .int(i)
        case .double(let d)? where op != "BitOr" && op != "BitXor": return .double(d)
        case nil where op == "Increment" || op == "Decrement": return .int(1)
        default: throw APIError(code: 111, "\(key): \(op) needs a number as 'amount'")
        }
    }

    static func objects(_ o: [String: Value], _ key: String, _ op: String) throws(APIError) -> [Value] {
        guard case .array(let items)? = o["objects"] else { throw APIError(code: 111, "\(key): \(op) needs an array 'objects'") }
        return items
    }
}
