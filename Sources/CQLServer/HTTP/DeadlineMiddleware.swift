import CQLSQL
import Hummingbird
import NIOCore

/// One deadline for a request's database work, whatever it does (a batch's
/// sub-requests share it): ``RequestDeadline``; past it, code 124.
struct DeadlineMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Seconds a request's database work may take.
    let timeout: Double

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let deadline = NIODeadline.now() + ServerStorage.amount(timeout)
        return try await RequestDeadline.$current.withValue(deadline) { try await next(request, context) }
    }
}
