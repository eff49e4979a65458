import Hummingbird
import Logging

/// One access-log line per request through swift-log: method, path (never
/// the query string, which may hold user data), status and milliseconds —
/// never keys, session tokens or bodies. The outermost middleware, so its
/// time is the whole answer's.
///
/// ```
/// GET /1.1/classes/Comment 200 1.3ms
/// PUT /uploads/… 200 4.0ms
/// ```
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        // Tenths of a millisecond, by integer arithmetic (no C formatter per request).
        let tenths = elapsed.components.seconds * 10_000 + (elapsed.components.attoseconds + 50_000_000_000_000) / 100_000_000_000_000
        logger.info("\(request.method.rawValue) \(Self.loggedPath(request.uri.path)) \(response.status.code) \(tenths / 10).\(tenths % 10)ms")
        return response
    }

    /// The path as the access log shows it: an upload's token
    /// (`/uploads/<token>`) and a file's key (`/files/<key>`) are
    /// credentials — the token uploads or, through `fileCallback`, deletes;
    /// the key reads the bytes — so they become `…`.
    static func loggedPath(_ path: String) -> String {
        for prefix in ["/uploads/", "/files/"] where path.hasPrefix(prefix) { return prefix + "…" }
        return path
    }
}
