import CQLKit
import HTTPTypes
import Hummingbird
import Logging

/// Who is calling `/1.1/...` (Server.md, "Authentication"): the app's keys
/// or a signature (``Authenticator``), then the session, verified once per
/// request (a batch's sub-requests share it; an unknown or retired token
/// makes the caller anonymous). The identity goes into the context
/// (``APIRequestContext/identity``), as hummingbird-auth's authenticators
/// do; a request with no valid key is 401 here, before its body is read,
/// unless its route is public (``APIRoute/isPublic``: the server's clock).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let api: API
    let authenticator: Authenticator
    let logger: Logger

    /// The values of the headers ``Authenticator`` reads, by
    /// ``Authenticator/Header`` raw value, in one pass over the request's
    /// headers; a header sent twice has its values joined by `, ` (what
    /// `HTTPFields` answers for its name).
    ///
    /// Why: asked one name at a time, the nine names an app-key request
    /// mostly lacks each cost a search of every header.
    static func credentials(_ headers: HTTPFields) -> [String?] {
        // headerNames, a stored array: `allCases` would build one per request.
        var values = [String?](repeating: nil, count: Authenticator.headerNames.count)
        for field in headers {
            guard let header = Authenticator.Header(name: field.name.canonicalName) else { continue }
            if let earlier = values[header.rawValue] {
                values[header.rawValue] = earlier + ", " + field.value
            } else {
                values[header.rawValue] = field.value
            }
        }
        return values
    }

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do throws(APIError) {
            guard let segments = APIRequest.segments(ofPath: Substring(request.uri.path)) else {
                throw APIError(status: 404, code: 404, "no such API: \(request.uri.path) (the API is under /1.1/)")
            }
            let route = API.routes.match(method: request.method.rawValue, segments: APIRouteTable.normalized(segments))
            let isPublic = route?.route.isPublic == true
            let credentials = Self.credentials(request.headers)
            guard var identity = authenticator.identify(headers: { credentials[$0.rawValue] }) ?? (isPublic ? Identity(isMaster: false) : nil)
            else { throw refusal(credentials) }
            if identity.sessionToken?.isEmpty == true { identity.sessionToken = nil }
            if !isPublic { try await api.resolveSession(&identity) }
            context.identity = identity
            context.segments = segments
            context.route = route
        } catch {
            if error.code == 1 { logger.error("internal error: \(error.message)") }
            return .error(error)
        }
        return try await next(request, context)
    }

    /// The 401 for a request no key admits, saying why when the server can
    /// tell without helping a guesser: a clock far off, or a wrong hook key.
    func refusal(_ credentials: [String?]) -> APIError {
        if let minutes = authenticator.clockSkew(headers: { credentials[$0.rawValue] }) {
            logger.notice("401: a signature \(minutes) minutes off the server's clock (the client's clock is wrong)")
            return APIError(status: 401, code: 401,
                            "Unauthorized: the request's signature (X-LC-Sign) is \(minutes) minutes off the server's clock; check this device's date and time")
        }
        if authenticator.wrongHookKey(headers: { credentials[$0.rawValue] }) {
            logger.warning("401: a wrong X-LC-Hook-Key (an engine app started with another LEANCLOUD_APP_HOOK_KEY?)")
            return APIError(status: 401, code: 401, "Unauthorized: X-LC-Hook-Key is not this server's hook key")
        }
        return APIError.unauthorized
    }
}
