import Hummingbird

/// The body limit: a request's JSON body read within its memory
/// (``RequestBodyReader``: 413 past the limit, 107 for a body that is not
/// the JSON its route takes, a turn for a large one) into the context
/// (``APIRequestContext/body``); the turn is held until the request is
/// answered.
struct RequestBodyMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let bodies: RequestBodyReader

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let turn: RequestBodyReader.Turn?
        let response: Response
        do {
            // The body lives in this scope only: a large one's turn ends
            // (and its memory goes back to the system) after it is freed.
            var context = context
            do {
                (context.body, turn) = try await bodies.read(request, anyJSON: context.route?.route.body == .anyJSON)
            } catch {
                return .error(error)
            }
            do {
                response = try await next(request, context)
            } catch {
                turn?.end()
                throw error
            }
        }
        turn?.end()
        return response
    }
}
