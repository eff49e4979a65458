import CQLKit

/// One endpoint of the REST API under `/1.1/`, declared in the file that
/// handles it: its method and path, the URL parameters it reads, the
/// class-level permission it needs, the body it takes, and its handler.
///
/// The declaration is everything the server knows about a route: the
/// table (``APIRouteTable``) finds it for HTTP requests and `/1.1/batch`
/// sub-requests alike, the parameter check (``API/checkParameterNames(_:segments:)``)
/// and the permission check (``API/checkRoutePermissions(_:segments:)``)
/// read it, and the HTTP side reads ``body`` and ``isPublic``.
///
/// ```swift
/// APIRoute("GET", "classes/:class/:id", reads: ["keys", "include", "returnACL"], permission: .init(.get)) { api, r, path in
///     try await api.get(r, className: try path.className(), objectId: path["id"])
/// }
/// ```
struct APIRoute: Sendable {
    /// A path segment: a literal (`classes`), a class name (`:class`,
    /// checked and made canonical by ``Match/className()``), or any other
    /// parameter (`:id`).
    enum Segment: Sendable, Equatable {
        case literal(String)
        case className
        case parameter(String)
    }

    /// The URL parameters a route reads: any other is refused with 107.
    enum Parameters: Sendable {
        /// These names.
        case names(Set<String>)
        /// A find's: decoded and checked by the handler itself, only when
        /// it makes its query (a kept find never decodes them: ``PreparedFinds``).
        case readByHandler(Set<String>)

        var names: Set<String> {
            switch self {
            case .names(let n), .readByHandler(let n): return n
            }
        }
    }

    /// The class-level permission a route needs (``ClassPermissions``),
    /// decided by who the caller is before anything is read.
    struct Permission: Sendable {
        let operation: ClassPermissions.Operation
        /// The class: nil for the path's `:class`.
        let className: String?
        /// Whether a create's or update's body holds the object's keys
        /// (checked against `add_fields`); a file route's body does not.
        let bodyHoldsKeys: Bool

        init(_ operation: ClassPermissions.Operation, of className: String? = nil, bodyHoldsKeys: Bool = true) {
            self.operation = operation
            self.className = className
            self.bodyHoldsKeys = bodyHoldsKeys
        }
    }

    /// The body a route takes: a JSON object (or `null`) for all but
    /// cloud functions, whose parameters may be any JSON.
    enum Body: Sendable { case object, anyJSON }

    typealias Handler = @Sendable (API, APIRequest, Match) async throws -> APIResponse

    let method: String
    let pattern: [Segment]
    let parameters: Parameters
    let permission: Permission?
    let body: Body
    /// Answered without the app's keys (the server's clock: the SDKs ask
    /// it before signing).
    let isPublic: Bool
    let handler: Handler

    /// - Parameter path: segments after `/1.1/` joined by `/`; `:class` is a
    ///   class name, any other `:name` a parameter.
    init(_ method: String, _ path: String, reads: Set<String> = [], permission: Permission? = nil, body: Body = .object,
         isPublic: Bool = false, handler: @escaping Handler) {
        self.init(method, path, parameters: .names(reads), permission: permission, body: body, isPublic: isPublic, handler: handler)
    }

    init(_ method: String, _ path: String, parameters: Parameters, permission: Permission? = nil, body: Body = .object,
         isPublic: Bool = false, handler: @escaping Handler) {
        self.method = method
        pattern = path.split(separator: "/").map { part in
            guard part.hasPrefix(":") else { return .literal(String(part)) }
            return part == ":class" ? .className : .parameter(String(part.dropFirst()))
        }
        self.parameters = parameters
        self.permission = permission
        self.body = body
        self.isPublic = isPublic
        self.handler = handler
    }

    /// How errors name the route: `GET /1.1/classes/<Class>/<id>`.
    var label: String {
        let path = pattern.map { segment -> String in
            switch segment {
            case .literal(let s): return s
            case .className: return "<Class>"
            case .parameter(let name): return "<\(name)>"
            }
        }
        return "\(method) /1.1/\(path.joined(separator: "/"))"
    }

    /// The literal segments: the more a route has, the earlier it is tried
    /// (`users/me` before `users/:id`).
    var literals: Int {
        pattern.reduce(0) { n, s in if case .literal = s { return n + 1 } else { return n } }
    }

    func matches(method: String, segments s: [String]) -> Bool {
        guard method == self.method, s.count == pattern.count else { return false }
        for (segment, part) in zip(pattern, s) {
            if case .literal(let literal) = segment, literal != part { return false }
        }
        return true
    }

    /// A route and the path that matched it.
    struct Match: Sendable {
        let route: APIRoute
        let segments: [String]

        /// The path's `:class`, checked (103 for a name that is no class)
        /// and canonical (``ClassNames``).
        func className() throws(APIError) -> String {
            guard let i = route.pattern.firstIndex(of: .className) else { preconditionFailure("\(route.label) has no :class") }
            return try API.className(segments[i])
        }

        /// The path's `:name` parameter.
        subscript(name: String) -> String {
            guard let i = route.pattern.firstIndex(of: .parameter(name)) else { preconditionFailure("\(route.label) has no :\(name)") }
            return segments[i]
        }

        /// The class the route's permission is about.
        func permissionClass() throws(APIError) -> String? {
            guard let permission = route.permission else { return nil }
            if let fixed = permission.className { return fixed }
            return try className()
        }
    }
}

/// Every route of the API, found by method and path: the resources'
/// declarations (``API/routes``), tried most literal first.
///
/// ```swift
/// API.routes.match(method: "GET", segments: ["users", "me"])?.route.label   // "GET /1.1/users/me"
/// ```
struct APIRouteTable: Sendable {
    /// By first segment; each list most literal first.
    private let byFirst: [String: [APIRoute]]
    let all: [APIRoute]

    /// Fails (at start, in every test) when two routes have one method and pattern.
    init(_ resources: [[APIRoute]]) {
        all = resources.flatMap { $0 }
        var byFirst: [String: [APIRoute]] = [:]
        for route in all {
            guard case .literal(let first)? = route.pattern.first else { preconditionFailure("\(route.label): a route starts with a literal") }
            precondition(!(byFirst[first] ?? []).contains { $0.method == route.method && $0.pattern == route.pattern },
                         "\(route.label) is declared twice")
            byFirst[first, default: []].append(route)
        }
        self.byFirst = byFirst.mapValues { routes in routes.enumerated().sorted { a, b in
            a.element.literals != b.element.literals ? a.element.literals > b.element.literals : a.offset < b.offset
        }.map(\.element) }
    }

    /// The route for a request's method and normalised path (``normalized(_:)``); nil: none (404).
    func match(method: String, segments: [String]) -> APIRoute.Match? {
        guard let first = segments.first, let routes = byFirst[first] else { return nil }
        for route in routes where route.matches(method: method, segments: segments) {
            return APIRoute.Match(route: route, segments: segments)
        }
        return nil
    }

    /// The path as the routes are declared: `roles[/<id>]` is
    /// `classes/_Role[/<id>]` (Roles.swift), and a class name in any case
    /// LeanCloud accepts is canonical (`classes/_user` is `_User`'s: ``ClassNames``).
    static func normalized(_ segments: [String]) -> [String] {
        var s = segments
        if s.first == "roles" && s.count <= 2 { s = ["classes", "_Role"] + s.dropFirst() }
        if s.first == "classes" && s.count >= 2 { s[1] = ClassNames.canonical(s[1]) }
        return s
    }
}
