import Hummingbird
import Logging

/// The router's "no route" (and any error a handler let through) as the
/// API answers errors, `{"code","error"}`: 404 for a path no route has,
/// else 500, logged.
struct NotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path
            if path.hasPrefix("/uploads/") || path.hasPrefix("/files/") {
                return .error(APIError(status: 404, code: 404, "no such route: \(request.method.rawValue) \(path)"))
            }
            return .error(APIError(status: 404, code: 404, "no such API: \(path) (the API is under /1.1/)"))
        } catch {
            logger.error("internal error: \(error)")
            return .error(APIError.internalError("\(error)"))
        }
    }
}
