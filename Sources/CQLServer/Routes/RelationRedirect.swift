import CQLKit

/// `GET /1.1/classes/<Owner>?redirectClassNameForKey=<key>&where={"$relatedTo":{"object":<Owner pointer>,"key":<key>}}`:
/// the objects of a relation whose target class the client does not know
/// (an SDK's `relation.query()` on an object just saved or made with
/// `createWithoutData`). The query runs on the class the owner's relation
/// holds — read from the owner object, as the caller may read it — and
/// the answer names it, as LeanCloud's did: `{"results":[...],"className":"<Target>"}`.
/// An owner the caller cannot read, that does not exist, or whose key holds
/// no relation has no related objects: `{"results":[]}`.
///
/// ```
/// GET /1.1/classes/Post?redirectClassNameForKey=likes&where={"$relatedTo":{"object":{"__type":"Pointer","className":"Post","objectId":"p1"},"key":"likes"}}
/// → 200 {"className":"_User","results":[{"objectId":"u1",...}]}
/// ```
extension API {
    static let redirectParameter = "redirectClassNameForKey"

    /// Whether the find asks for a redirect (the query string is decoded only then).
    static func asksRedirect(_ r: APIRequest) -> Bool {
        r.parameters[redirectParameter] != nil || r.rawQuery?.contains(redirectParameter) == true
    }

    func redirectedFind(_ r: APIRequest, className: String) async throws -> APIResponse {
        var r = r
        r.decodeQuery()
        guard case .string(let key)? = r.parameters.removeValue(forKey: Self.redirectParameter), !key.isEmpty else {
            throw APIError.invalidQuery("\(Self.redirectParameter): expected the name of a Relation key of \(className)")
        }
        guard case .object(let condition)? = try r.json("where"), case .object(let related)? = condition["$relatedTo"],
              case .object(let owner)? = related["object"], case .string(let ownerId)? = owner["objectId"],
              owner["className"].flatMap({ $0.stringValue.map(ClassNames.canonical) }) == className
        else {
            throw APIError.invalidQuery("\(Self.redirectParameter) needs a where of {\"$relatedTo\":{\"object\":<a pointer to a \(className)>,\"key\":...}}")
        }
        guard let target = try await relationTarget(of: className, ownerId, key: key, grantees: r.grantees) else {
            return APIResponse(body: .object(["results": .array([])]))
        }
        // The target's own class-level permissions, as for a find on it.
        try await checkRoutePermissions(r, segments: ["classes", target])
        r.writesBody = false
        var answer = try await find(r, className: try Self.className(target))
        if case .object(var body) = answer.body {
            body["className"] = .string(target)
            answer.body = .object(body)
        }
        return answer
    }

    /// The class `key` of the owner object relates to, read as `grantees`
    /// may read the owner; nil when it cannot, or the key holds no relation.
    func relationTarget(of className: String, _ ownerId: String, key: String, grantees: [String]?) async throws -> String? {
        let query = try WhereJSONReader.read(.object(["className": .string(className), "where": .object(["objectId": .string(ownerId)])]))
        let found = try await find(try Self.prepared(query, as: QueryCaller(grantees: grantees)), grantees: grantees)
        let owners = try await hidingUnreadable(try await permitted(found.objects, className: className, grantees: grantees), grantees: grantees)
        guard case .relation(let target)? = owners.first?[key] else { return nil }
        return target
    }
}
