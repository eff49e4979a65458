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
    /// What a get reads.
    static let getParameterNames: Set<String> = ["keys", "include", "returnACL"]
    /// The flags a create or update reads.
    static let writeFlags: Set<String> = ["fetchWhenSave", "new"]

    /// 107 for a parameter the route at `segments` does not read (a path
    /// no route has reads none).
    static func checkParameterNames(_ r: APIRequest, segments: [String]) throws(APIError) {
        let s = APIRouteTable.normalized(segments)
        try checkParameterNames(r, match: routes.match(method: r.method, segments: s), segments: s)
    }

    static func checkParameterNames(_ r: APIRequest, match: APIRoute.Match?, segments: [String]) throws(APIError) {
        guard !r.parameters.isEmpty else { return }
        let names = match?.route.parameters.names ?? []
        for name in r.parameters.keys.sorted() where !names.contains(name) {
            let reads = names.isEmpty ? "it reads none" : "it reads \(names.sorted().joined(separator: ", "))"
            let route = match?.route.label ?? "\(r.method) /1.1/\(segments.joined(separator: "/"))"
            throw APIError(code: 107, "unknown parameter '\(name)' for \(route) (\(reads))")
        }
    }
}
