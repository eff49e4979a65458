import Hummingbird
import Logging

/// The HTTP side of `cql serve` (Server.md, "The request path"): one
/// Hummingbird router, its middleware in the order a request meets it,
/// and its routes.
///
/// ```
/// AccessLogMiddleware → AnyOriginCORSMiddleware (OPTIONS answered) → NotFoundMiddleware → DeadlineMiddleware
///   ├─ PUT /uploads/:token, GET /files/:key   FileBytesEndpoints
///   ├─ GET /v1/route                           LiveQueryRouterEndpoint
///   └─ /1.1/**  AuthenticationMiddleware → RequestBodyMiddleware → APIEndpoint → API.routes
/// ```
enum ServerRouter {
    struct Parts: Sendable {
        let api: API
        let authenticator: Authenticator
        let origin: PublicOrigin
        let bodies: RequestBodyReader
        let logger: Logger
    }

    /// Every method the API's routes may be asked by (any other is 404 by
    /// the router, as the API would answer it).
    static let apiMethods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .head]

    static func responder(_ parts: Parts) -> some HTTPResponder<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: AccessLogMiddleware(logger: parts.logger))
            .add(middleware: AnyOriginCORSMiddleware())
            .add(middleware: NotFoundMiddleware(logger: parts.logger))
            .add(middleware: DeadlineMiddleware(timeout: parts.api.storage.requestTimeout))

        let files = FileBytesEndpoints(api: parts.api, logger: parts.logger)
        router.put("/uploads/:token") { request, context in await files.upload(request, token: context.parameters.get("token") ?? "") }
        router.get("/files/:key") { request, context in await files.download(key: context.parameters.get("key") ?? "") }

        let liveQuery = LiveQueryRouterEndpoint(hub: parts.api.liveQuery, origin: parts.origin)
        router.get("/v1/route") { request, _ in liveQuery.respond(request) }

        let api = router.group("/1.1")
            .add(middleware: AuthenticationMiddleware(api: parts.api, authenticator: parts.authenticator, logger: parts.logger))
            .add(middleware: RequestBodyMiddleware(bodies: parts.bodies))
        let endpoint = APIEndpoint(api: parts.api, origin: parts.origin, logger: parts.logger)
        for method in apiMethods {
            api.on("", method: method, responder: endpoint)
            api.on("**", method: method, responder: endpoint)
        }
        return router.buildResponder()
    }
}
