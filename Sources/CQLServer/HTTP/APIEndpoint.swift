import Hummingbird
import HTTPTypes
import Logging

/// `/1.1/...` once the middleware has authenticated the caller and read the
/// body: the request as ``API`` sees it (``APIRequest``), handled through
/// its route (``API/routes``), the answer as JSON.
struct APIEndpoint: HTTPResponder {
    typealias Context = APIRequestContext
    let api: API
    let origin: PublicOrigin
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let identity = context.identity else { return .error(APIError.unauthorized) }
        var r = APIRequest(method: request.method.rawValue, segments: context.segments, body: context.body, identity: identity)
        // Decoded by the API when a route reads it (a kept find does not).
        r.rawQuery = request.uri.query
        r.origin = origin.of(request)
        r.writesBody = true
        r.route = context.route
        do throws(APIError) {
            let answer = try await api.handle(r)
            var headers = HTTPFields()
            if let location = answer.location { headers[.location] = location }
            if let written = answer.written { return .json(written, status: answer.status, headers: headers) }
            return .json(answer.body, status: answer.status, headers: headers)
        } catch {
            if error.code == 1 { logger.error("internal error: \(error.message)") }
            return .error(error)
        }
    }
}
