import HTTPTypes
import Hummingbird

/// CORS as browsers calling the API from any blog (Valine, Waline) need
/// it: any origin, no cookies (the credentials are headers the page sets
/// itself). Every `OPTIONS` is a preflight answered here (204, the
/// methods, the headers asked or the SDKs' own, a day's max-age); every
/// answer to a request with an `Origin` names that origin.
struct AnyOriginCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    static var allowHeaders: String {
        [
            "Content-Type", "X-LC-Id", "X-LC-Key", "X-LC-Sign", "X-LC-Session", "X-LC-Prod", "X-LC-Hook-Key", "X-LC-UA",
            "X-AVOSCloud-Application-Id", "X-AVOSCloud-Application-Key", "X-AVOSCloud-Master-Key", "X-AVOSCloud-Request-Sign",
            "X-AVOSCloud-Session-Token", "X-Requested-With",
        ].joined(separator: ", ")
    }

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if request.method == .options {
            var headers = HTTPFields()
            headers[.accessControlAllowMethods] = "GET, POST, PUT, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? Self.allowHeaders
            headers[.accessControlMaxAge] = "86400"
            response = Response(status: .noContent, headers: headers)
        } else {
            response = try await next(request, context)
        }
        if let origin = request.headers[.origin] {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
        return response
    }
}
