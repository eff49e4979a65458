import CQLKit

/// A class's class-level permissions, as LeanCloud's console sets them:
/// who may `create`, `find`, `get`, `update` and `delete` its objects and
/// `add_fields` (write a key the class has not held before), and which keys
/// (`protectedFields`) readers other than the object's own user never see.
///
/// Each operation is granted to everyone (`{"*": true}`), to logged-in users
/// (`{"onlySignInUsers": true}`), or to listed users and roles
/// (`{"users": ["<objectId>"], "roles": ["<name>"]}`); `{}` grants it to no
/// client (the master key only). The master key is never refused.
///
/// ```swift
/// let p = try ClassPermissions(json: ["permissions": ["create": ["roles": ["admin"]]]], className: "Post")
/// p.allows(.create, grantees: ["*", "u1"])                 // false
/// p.allows(.create, grantees: ["*", "role:admin", "u1"])   // true
/// p.allows(.find, grantees: ["*"])                         // true: not set, open as every class
/// ```
public struct ClassPermissions: Sendable, Equatable {
    /// The operations a class-level permission grants.
    public enum Operation: String, Sendable, CaseIterable {
        case create, find, get, update, delete
        case addFields = "add_fields"

        /// How a refusal names it: "The user is not permitted to <phrase> ...".
        var phrase: String {
            switch self {
            case .create: return "create objects in"
            case .find: return "find objects in"
            case .get: return "get objects of"
            case .update: return "update objects of"
            case .delete: return "delete objects of"
            case .addFields: return "add fields to"
            }
        }
    }

    /// Who an operation is granted to.
    public struct Grant: Sendable, Equatable {
        /// `*`: every caller, the anonymous one included.
        public var everyone = false
        /// Any caller with a session.
        public var signedIn = false
        /// Users by objectId.
        public var users: Set<String> = []
        /// Roles by name (a role's members and its child roles' members).
        public var roles: Set<String> = []

        /// Everyone: what an operation no setting names is granted to.
        public static let open = Grant(everyone: true)
        /// No client: the master key only.
        public static let masterOnly = Grant()

        /// Whether a caller with these ACL grantees (`*`, its user's objectId,
        /// `role:<name>`; ``CallerGrantees``) holds the grant.
        func admits(_ grantees: [String]) -> Bool {
            if everyone { return true }
            for g in grantees where g != ACLRule.everyone {
                if g.hasPrefix("role:") {
                    if roles.contains(String(g.dropFirst(5))) { return true }
                } else if signedIn || users.contains(g) {
                    return true
                }
            }
            return false
        }

        /// LeanCloud's form: `{"*":true}`, `{"onlySignInUsers":true}`,
        /// `{"users":[...],"roles":[...]}` (combined when several hold).
        var json: Value {
            var o: [String: Value] = [:]
            if everyone { o["*"] = true }
            if signedIn { o["onlySignInUsers"] = true }
            if !users.isEmpty || !roles.isEmpty || o.isEmpty {
                o["users"] = .array(users.sorted().map { .string($0) })
                o["roles"] = .array(roles.sorted().map { .string($0) })
            }
            return .object(o)
        }

        /// LeanCloud's form, or Parse's (`{"*":true,"requiresAuthentication":true,
        /// "role:admin":true,"<objectId>":true}`); a `false` grants nothing.
        init(json: Value, _ what: String) throws(APIError) {
            guard case .object(let o) = json else { throw ClassPermissions.invalid("\(what): expected an object") }
            for (key, value) in o {
                switch (key, value) {
                case (_, .bool(false)): continue
                case ("*", .bool(true)): everyone = true
                case ("onlySignInUsers", .bool(true)), ("requiresAuthentication", .bool(true)): signedIn = true
                case ("users", .array(let items)), ("roles", .array(let items)):
                    for item in items {
                        guard case .string(var s) = item, !s.isEmpty else { throw ClassPermissions.invalid("\(what).\(key): expected strings") }
                        if key == "users" { users.insert(s); continue }
                        if s.hasPrefix("role:") { s.removeFirst(5) }
                        roles.insert(s)
                    }
                case (_, .bool(true)) where key.hasPrefix("role:") && key.count > 5: roles.insert(String(key.dropFirst(5)))
                case (_, .bool(true)) where !key.isEmpty && !key.contains(":"): users.insert(key)
                default: throw ClassPermissions.invalid("\(what).\(key): not a grant ('*', 'onlySignInUsers', 'users', 'roles')")
                }
            }
        }

        init(everyone: Bool = false) { self.everyone = everyone }
    }

    /// The grants set for this class; an operation not here takes the
    /// class's default (``defaults(for:)``).
    public var grants: [Operation: Grant] = [:]
    /// Keys hidden per reader: `*` (everyone), `authenticated` (logged-in
    /// users), a user's objectId, `role:<name>`. A caller sees a key unless
    /// every entry that applies to it lists the key (Parse Server's rule);
    /// `nil`: the class's default.
    public var protectedFields: [String: [String]]?

    /// A setting; what it leaves out takes the class's defaults.
    public init(grants: [Operation: Grant] = [:], protectedFields: [String: [String]]? = nil) {
        self.grants = grants
        self.protectedFields = protectedFields
    }

    /// Reads a `PUT /1.1/schemas/<Class>` body: `permissions` (LeanCloud's
    /// name) or `classLevelPermissions` (Parse Server's, whose `addField`
    /// is `add_fields` and whose `protectedFields` may sit inside it), and
    /// `protectedFields`. 107 for anything else.
    public init(json body: Value, className: String) throws(APIError) {
        guard case .object(let o) = body else { throw Self.invalid("the body must be a JSON object") }
        for key in o.keys where !["permissions", "classLevelPermissions", "protectedFields", "className"].contains(key) {
            throw Self.invalid("'\(key)': a schema PUT sets 'permissions' (or 'classLevelPermissions') and 'protectedFields'")
        }
        if case .string(let named)? = o["className"], named != className {
            throw Self.invalid("className '\(named)' is not the class of the path, '\(className)'")
        }
        var protected = o["protectedFields"]
        for name in ["permissions", "classLevelPermissions"] {
            guard let given = o[name], given != .null else { continue }
            guard case .object(let ops) = given else { throw Self.invalid("\(name): expected an object") }
            for (op, grant) in ops {
                if op == "protectedFields" { protected = grant; continue }
                // Parse's separate count is a find here, as on LeanCloud.
                if op == "count" { continue }
                guard let operation = Operation(rawValue: op == "addField" ? "add_fields" : op) else {
                    throw Self.invalid("\(name).\(op): not an operation (create, find, get, update, delete, add_fields)")
                }
                grants[operation] = try Grant(json: grant, "\(name).\(op)")
            }
        }
        if let protected, protected != .null {
            guard case .object(let entries) = protected else { throw Self.invalid("protectedFields: expected an object") }
            var fields: [String: [String]] = [:]
            for (who, keys) in entries {
                guard case .array(let items) = keys else { throw Self.invalid("protectedFields.\(who): expected an array of keys") }
                fields[who] = try items.map { (item) throws(APIError) -> String in
                    guard case .string(let k) = item, !k.isEmpty else { throw Self.invalid("protectedFields.\(who): expected key names") }
                    return k
                }
            }
            protectedFields = fields
        }
    }

    static func invalid(_ message: String) -> APIError { APIError(code: 107, "class-level permissions: " + message) }

    /// The stored document: `{"objectId":"<Class>","permissions":{...},"protectedFields":{...}}`.
    func document(className: String) -> Value {
        var o: [String: Value] = ["objectId": .string(className)]
        o["permissions"] = .object(Dictionary(uniqueKeysWithValues: grants.map { ($0.key.rawValue, $0.value.json) }))
        if let protectedFields { o["protectedFields"] = Self.json(protectedFields) }
        return .object(o)
    }

    static func json(_ fields: [String: [String]]) -> Value {
        .object(fields.mapValues { .array($0.map { .string($0) }) })
    }

    // MARK: Effective rules

    /// The defaults of a class no setting names, and of the operations a
    /// setting leaves out: every operation open, nothing protected — but
    /// `_Role` creation is the master key's (no user may pre-claim a role
    /// name an ACL names) and `_User`'s `email`, `mobilePhoneNumber` and
    /// `authData` are protected from everyone but the user itself.
    public static func defaults(for className: String) -> ClassPermissions {
        switch className {
        case "_Role": return ClassPermissions(grants: [.create: .masterOnly])
        case "_User": return ClassPermissions(protectedFields: ["*": ["email", "mobilePhoneNumber", "authData"]])
        default: return ClassPermissions()
        }
    }

    /// Keys of `_User` hidden from everyone but the user itself, whatever
    /// the setting: an `authData` holds third-party access tokens.
    static let alwaysProtectedUserKeys: Set<String> = ["authData"]

    /// This setting over the class's defaults.
    func effective(for className: String) -> ClassPermissions {
        let base = Self.defaults(for: className)
        return ClassPermissions(grants: base.grants.merging(grants) { _, set in set },
                                protectedFields: protectedFields ?? base.protectedFields)
    }

    /// Whether `grantees` (nil: the master key) may do `operation`.
    public func allows(_ operation: Operation, grantees: [String]?) -> Bool {
        guard let grantees else { return true }
        return (grants[operation] ?? .open).admits(grantees)
    }

    /// Whether everyone may do `operation` (nothing to check per caller).
    func isOpen(_ operation: Operation) -> Bool { (grants[operation] ?? .open).everyone }

    /// The keys of `className` hidden from `grantees` (none for the master
    /// key); the object that is the caller's own `_User` shows them all.
    func hiddenKeys(grantees: [String]?, className: String) -> Set<String> {
        guard let grantees else { return [] }
        var hidden: Set<String>?
        if let protectedFields {
            let signedIn = grantees.contains { $0 != ACLRule.everyone && !$0.hasPrefix("role:") }
            for (who, keys) in protectedFields {
                let applies = who == ACLRule.everyone || (who == "authenticated" && signedIn) || (who != "authenticated" && grantees.contains(who))
                guard applies else { continue }
                hidden = hidden.map { $0.intersection(keys) } ?? Set(keys)
            }
        }
        if className == "_User" { return (hidden ?? []).union(Self.alwaysProtectedUserKeys) }
        return hidden ?? []
    }
}
