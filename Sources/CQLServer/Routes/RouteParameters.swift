/// The URL parameters (and a batch sub-request's `params`) each route reads.
/// Any other is refused with 107 and its name — never silently ignored, so
/// a client that asks for something this server does not do (`excludeKeys`,
/// a misspelt `limt`) learns it instead of getting an answer that looks
/// right. The names are what LeanCloud's SDKs send.
///
/// ```
/// GET /1.1/classes/Todo?limt=5
/// → 400 {"code":107,"error":"unknown parameter 'limt' for GET /1.1/classes/<Class> (it reads count, include, keys, limit, order, redirectClassNameForKey, returnACL, skip, where)"}
/// ```
extension API {
    static let findParameterNames: Set<String> = Set(cachedFindParameters + [redirectParameter])

    /// The parameters a route reads, and the route as the error names it;
    /// nil for a route that does not exist (its own 404 follows).
    static func parametersRead(method: String, segments s: [String]) -> (names: Set<String>, route: String)? {
        let writeFlags: Set<String> = ["fetchWhenSave", "new"]
        switch (method, s.first, s.count) {
        case ("GET", "classes", 2): return (findParameterNames, "GET /1.1/classes/<Class>")
        case ("GET", "users", 1): return (findParameterNames, "GET /1.1/users")
        case ("GET", "classes", 3), ("GET", "files", 2): return (["keys", "include", "returnACL"], "GET /1.1/\(s[0])/<id>")
        case ("GET", "users", 2) where s[1] == "me": return (["session_token"], "GET /1.1/users/me")
        case ("GET", "users", 2): return (["keys", "include", "returnACL"], "GET /1.1/users/<id>")
        case ("POST", "classes", 2) where s[1] == "_User", ("POST", "users", 1):
            return (writeFlags.union(["failOnNotExist"]), "POST /1.1/users")
        case ("POST", "classes", 2): return (writeFlags, "POST /1.1/classes/<Class>")
        case ("PUT", "classes", 3), ("PUT", "users", 2): return (writeFlags.union(["where"]), "PUT /1.1/\(s[0])/<id>")
        case ("DELETE", "classes", 3), ("DELETE", "users", 2): return (["where"], "DELETE /1.1/\(s[0])/<id>")
        case ("POST", "login", 1): return (["username", "email", "mobilePhoneNumber", "password"], "POST /1.1/login")
        case ("GET", "cloudQuery", 1), ("POST", "cloudQuery", 1): return (["cql", "pvalues"], "\(method) /1.1/cloudQuery")
        case ("GET", "scan", 3): return (["where", "keys", "include", "limit", "scan_key", "cursor", "returnACL"], "GET /1.1/scan/classes/<Class>")
        default: return ([], "\(method) /1.1/\(s.joined(separator: "/"))")
        }
    }

    /// 107 for a parameter the route does not read.
    static func checkParameterNames(_ r: APIRequest, segments: [String]) throws(APIError) {
        guard !r.parameters.isEmpty, let (names, route) = parametersRead(method: r.method, segments: segments) else { return }
        for name in r.parameters.keys.sorted() where !names.contains(name) {
            let reads = names.isEmpty ? "it reads none" : "it reads \(names.sorted().joined(separator: ", "))"
            throw APIError(code: 107, "unknown parameter '\(name)' for \(route) (\(reads))")
        }
    }
}
