import CQLKit

/// What keeps `_User` objects to their owners, and their secrets inside the
/// server, on every path that names `_User` (the users API, the class API,
/// batch sub-requests, cloudQuery, sub-queries).
extension API {
    /// A new user's ACL when the client sends none: everyone reads, the
    /// user alone writes (Server.md).
    static func defaultUserACL(_ userId: String) -> Value {
        .object(["*": .object(["read": true]), userId: .object(["read": true, "write": true])])
    }

    /// 403 unless the write may change this `_User` object: the master key,
    /// or the session of that very user. A `_User` is made by signing up
    /// (`POST /1.1/users`), so a client's CQL insert into `_User` is refused.
    ///
    /// ```swift
    /// // update _User set nickname = 'x' where objectId = 'u2', with u1's session:
    /// // 403 {"code":206,"error":"a user can change or delete only itself ..."}
    /// ```
    static func checkUserTarget(_ statement: Statement, identity: Identity) throws(APIError) {
        guard statement.className == "_User", !identity.isMaster else { return }
        let target: Term
        switch statement {
        case .update(let u): target = u.objectId
        case .delete(let d): target = d.objectId
        case .insert:
            throw APIError.masterKeyRequired("inserting into _User other than by signing up (POST /1.1/users)")
        case .select: return
        }
        guard case .value(.string(let id)) = target, let user = identity.userId, id == user else {
            throw userCannotBeAltered
        }
    }

    static let userCannotBeAltered = APIError(
        status: 403, code: 206, "a user can change or delete only itself (with its session, X-LC-Session); other users need the master key")

    /// 105 when a query (or a write's condition, or any sub-query) tests,
    /// orders or selects `_User`'s `password`, `salt` or `sessionToken`: a
    /// hash must not leak a character at a time through `$regex`, nor its
    /// order through `order`. No key opens this (the values are the
    /// server's alone).
    static func checkSecretKeys(_ query: Query) throws(APIError) {
        if query.className == "_User" {
            for key in query.order { try refuseSecret(key.path, query.className) }
        }
        try checkSecretKeys(query.condition, className: query.className)
    }

    static func checkSecretKeys(_ statement: Statement) throws(APIError) {
        switch statement {
        case .select(let q): try checkSecretKeys(q)
        case .update(let u): try checkSecretKeys(u.condition, className: u.className)
        case .delete(let d): try checkSecretKeys(d.condition, className: d.className)
        case .insert: break
        }
    }

    static func checkSecretKeys(_ c: Condition?, className: String) throws(APIError) {
        // The query's own tests; each sub-query is checked as a query of its own class.
        try c?.forEach(entering: .ownTests) { (node: Condition) throws(APIError) in
            switch node.predicate {
            case .and, .or, .not: break  // entered by the traversal
            // aclGrants reads ACL, never a secret.
            case .constant, .relatedTo, .aclGrants: break
            // Made by the server of a comparison of the key (ServerStorage.find): refused as that comparison would be.
            case .relationHolds(let key, _, _): try refuseSecret(FieldPath([key]), className)
            case .select(let path, let key, let sub, _):
                try refuseSecret(path, className)
                try refuseSecret(key, sub.className)
                try checkSecretKeys(sub)
            case .inQuery(let path, let sub, _):
                try refuseSecret(path, className)
                try checkSecretKeys(sub)
            case .compare(let p, _, _), .in(let p, _, _), .all(let p, _), .size(let p, _), .exists(let p, _), .regex(let p, _, _),
                 .like(let p, _), .prefix(let p, _), .text(let p, _, _), .containedBy(let p, _), .elementMatch(let p, _), .type(let p, _),
                 .modulo(let p, _, _), .fullText(let p, _), .near(let p, _, _, _), .withinBox(let p, _, _), .withinPolygon(let p, _),
                 .withinCenterSphere(let p, _, _), .geoIntersects(let p, _):
                try refuseSecret(p, className)
            }
        }
    }

    static func refuseSecret(_ path: FieldPath, _ className: String) throws(APIError) {
        guard className == "_User", let first = path.components.first, userSecrets.contains(first) else { return }
        throw APIError(code: 105, "_User's '\(first)' cannot be queried")
    }
}
