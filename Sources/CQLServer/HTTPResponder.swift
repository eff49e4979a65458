import CQLKit
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The HTTP side of the server: CORS, the body limit, authentication, the
/// access log, and the JSON in and out of ``API``.
///
/// One access-log line per request through swift-log: method, path (never
/// the query string, which may hold user data), status and milliseconds —
/// never keys, session tokens or bodies.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let api: API
    let authenticator: Authenticator
    let maximumBodySize: Int
    let logger: Logger

    static let corsAllowHeaders = [
        "Content-Type", "X-LC-Id", "X-LC-Key", "X-LC-Sign", "X-LC-Session", "X-LC-Prod", "X-LC-Hook-Key", "X-LC-UA",
        "X-AVOSCloud-Application-Id", "X-AVOSCloud-Application-Key", "X-AVOSCloud-Master-Key", "X-AVOSCloud-Request-Sign",
        "X-AVOSCloud-Session-Token", "X-Requested-With",
    ].joined(separator: ", ")

    func respond(to request: Request, context: Context) async throws -> Response {
        let start = ContinuousClock.now
        var response = await answer(request)
        if let origin = request.headers[.origin] {
            // Browsers call the API from any blog (Valine, Waline): any origin,
            // no cookies (the credentials are headers the page sets itself).
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method.rawValue) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", ms))ms")
        return response
    }

    func answer(_ request: Request) async -> Response {
        if request.method == .options {
            var headers = HTTPFields()
            headers[.accessControlAllowMethods] = "GET, POST, PUT, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? Self.corsAllowHeaders
            headers[.accessControlMaxAge] = "86400"
            return Response(status: .noContent, headers: headers)
        }
        do throws(APIError) {
            guard let segments = APIRequest.segments(ofPath: Substring(request.uri.path)) else {
                throw APIError(status: 404, code: 404, "no such API: \(request.uri.path) (the API is under /1.1/)")
            }
            // The server's clock is public (the SDKs ask it without keys, to
            // correct their own before signing).
            let isDate = segments == ["date"] && request.method == .get
            guard let identity = authenticator.identify({ request.headers[HTTPField.Name($0)!] })
                ?? (isDate ? Identity(isMaster: false) : nil)
            else {
                throw APIError.unauthorized
            }
            let body = try await readBody(request)
            var parameters: [String: Value] = [:]
            if let query = request.uri.query { parameters = HTTPQuery.parameters(Substring(query)) }
            let api = APIRequest(method: request.method.rawValue, segments: segments, parameters: parameters, body: body, identity: identity)
            let answer = try await self.api.handle(api)
            var headers = HTTPFields()
            if let location = answer.location { headers[.location] = location }
            return Self.json(answer.body, status: answer.status, headers: headers)
        } catch {
            if error.code == 1 { logger.error("internal error: \(error.message)") }
            return Self.json(error.body, status: error.status)
        }
    }

    /// The JSON body, nil when empty; over the limit: 413; not JSON: 107.
    func readBody(_ request: Request) async throws(APIError) -> Value? {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodySize)
        } catch is NIOTooManyBytesError {
            throw APIError.tooLarge(maximumBodySize)
        } catch {
            throw APIError.malformedJSON("cannot read the request body")
        }
        if buffer.readableBytes == 0 { return nil }
        let text = String(buffer: buffer)
        if text.allSatisfy(\.isWhitespace) { return nil }
        do {
            return try JSONReader.parse(text)
        } catch {
            throw APIError.malformedJSON("malformed JSON in the body: \(error.shortDescription)")
        }
    }

    static func json(_ value: Value, status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var bytes: [UInt8] = []
        JSONWriter.write(value, to: &bytes)
        var h = headers
        h[.contentType] = "application/json; charset=utf-8"
        return Response(status: HTTPResponse.Status(code: status), headers: h, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
