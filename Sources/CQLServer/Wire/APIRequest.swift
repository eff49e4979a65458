import CQLKit

/// One API request, as the routes see it: from HTTP, or a `/1.1/batch`
/// sub-request.
public struct APIRequest: Sendable {
    /// `GET`, `POST`, `PUT` or `DELETE`.
    public var method: String
    /// The decoded path segments after `/1.1/`: `["classes", "Todo", "<id>"]`.
    public var segments: [String]
    /// URL query parameters (strings), or a batch sub-request's `params`
    /// (any JSON values).
    public var parameters: [String: Value]
    /// The JSON body; nil when there is none.
    public var body: Value?
    public var identity: Identity
    /// Who the caller is in ACLs (`*`, its user, its roles): set once per
    /// request by ``API/handle(_:)``; `nil` for the master key.
    var grantees: [String]?
    /// Who the request's reads run as (``CallerQuery``).
    var caller: QueryCaller { QueryCaller(grantees: grantees) }
    /// The scheme and authority clients reach the server at
    /// (`http://127.0.0.1:3000`), for the URLs it hands out (files).
    public var origin: String = ""
    /// Whether the answer goes straight out as HTTP (not into a batch's
    /// answer), so it may come already written (``APIResponse/written``).
    public var writesBody = false
    /// The URL query string as sent (`where=%7B...%7D&limit=10`), not yet
    /// decoded into ``parameters`` (`decodeQuery()`).
    ///
    /// Why: a find is keyed by it (`PreparedFinds`), and a find answered
    /// from a kept query never needs its parameters, which cost a split,
    /// percent-decoding and a dictionary to decode.
    public var rawQuery: String?
    /// The route of ``method`` and ``segments`` when HTTP has found it
    /// already (``APIRouteTable``); nil: found by ``API/handle(_:)``.
    var route: APIRoute.Match?
    /// A batch sub-request's body's `__ignore_hooks` (which the batch
    /// takes out of it).
    var sentIgnoreHooks: Value?

    /// The hooks the request asks its write to skip (`"__ignore_hooks"` in
    /// its body: `true` or a list of hook names); whether to honour them is
    /// the caller's key's to say (``API/write(_:_:now:guards:objectId:readBack:before:then:)``).
    func skippedHooks() throws(APIError) -> SkippedHooks {
        try SkippedHooks(sent: sentIgnoreHooks ?? body?.objectValue?[CreateBody.ignoreHooks])
    }

    public init(method: String, segments: [String], parameters: [String: Value] = [:], body: Value? = nil, identity: Identity) {
        self.method = method
        self.segments = segments
        self.parameters = parameters
        self.body = body
        self.identity = identity
    }

    /// ``rawQuery`` decoded into ``parameters`` (a name given twice keeps
    /// its last value, as in ``HTTPQuery``); nothing when there is none.
    mutating func decodeQuery() {
        guard let raw = rawQuery else { return }
        rawQuery = nil
        parameters.merge(HTTPQuery.parameters(Substring(raw))) { _, sent in sent }
    }

    /// The segments of a path after `/1.1/`, percent-decoded; nil when the
    /// path is not an API path.
    static func segments(ofPath path: Substring) -> [String]? {
        guard path.hasPrefix("/1.1/") || path == "/1.1" else { return nil }
        var segments: [String] = []
        for raw in path.dropFirst(5).split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = RESTEmitter.percentDecoded(raw) else { return nil }
            segments.append(decoded)
        }
        return segments
    }

    /// A parameter as text: URL parameters are strings; a batch's `params`
    /// may hold JSON numbers, booleans or objects (`where`).
    func text(_ name: String) -> String? {
        switch parameters[name] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let v?: return JSONWriter.string(v)
        }
    }

    /// A boolean flag (`fetchWhenSave=true`, `new=1`; Python sends `True`).
    func flag(_ name: String) -> Bool {
        switch parameters[name] {
        case .bool(let b)?: return b
        case .int(let i)?: return i != 0
        case .string(let s)?: return ["true", "1", "yes"].contains(s.lowercased())
        default: return false
        }
    }

    /// A JSON parameter (`where`, `pvalues`): a URL parameter holds its text;
    /// a batch's `params` may hold the value itself.
    func json(_ name: String) throws(APIError) -> Value? {
        switch parameters[name] {
        case nil, .null?: return nil
        case .string(let s)?:
            if s.isEmpty { return nil }
            do {
                return try JSONReader.parse(s)
            } catch {
                throw APIError.malformedJSON("\(name): \(error.shortDescription)")
            }
        case let v?: return v
        }
    }
}

/// An API answer: a status, a JSON body and, for a creation, its location.
public struct APIResponse: Sendable {
    public var status: Int
    public var body: Value
    public var location: String?
    /// The body already written as JSON (``body`` is then unused): only
    /// for a request with ``APIRequest/writesBody``.
    public var written: [UInt8]?

    public init(status: Int = 200, body: Value, location: String? = nil) {
        self.status = status
        self.body = body
        self.location = location
    }
}
