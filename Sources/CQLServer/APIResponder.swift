import CQLKit
import CQLSQL
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The HTTP side of the server: CORS, the body (``RequestBodyReader``),
/// authentication, the access log, and the JSON in and out of ``API``.
///
/// One access-log line per request through swift-log: method, path (never
/// the query string, which may hold user data), status and milliseconds —
/// never keys, session tokens or bodies.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let api: API
    let authenticator: Authenticator
    /// The origin file URLs start with; nil: `http://` and the request's host.
    let publicURL: String?
    let bodies: RequestBodyReader
    let logger: Logger

    static let corsAllowHeaders = [
        "Content-Type", "X-LC-Id", "X-LC-Key", "X-LC-Sign", "X-LC-Session", "X-LC-Prod", "X-LC-Hook-Key", "X-LC-UA",
        "X-AVOSCloud-Application-Id", "X-AVOSCloud-Application-Key", "X-AVOSCloud-Master-Key", "X-AVOSCloud-Request-Sign",
        "X-AVOSCloud-Session-Token", "X-Requested-With",
    ].joined(separator: ", ")

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

    func respond(to request: Request, context: Context) async throws -> Response {
        let start = ContinuousClock.now
        // One deadline for the request's database work, whatever it does
        // (a batch's sub-requests share it): RequestDeadline.
        let deadline = NIODeadline.now() + ServerStorage.amount(api.storage.requestTimeout)
        var response = await RequestDeadline.$current.withValue(deadline) { await answer(request) }
        if let origin = request.headers[.origin] {
            // Browsers call the API from any blog (Valine, Waline): any origin,
            // no cookies (the credentials are headers the page sets itself).
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
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

    func answer(_ request: Request) async -> Response {
        if request.method == .options {
            var headers = HTTPFields()
            headers[.accessControlAllowMethods] = "GET, POST, PUT, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? Self.corsAllowHeaders
            headers[.accessControlMaxAge] = "86400"
            return Response(status: .noContent, headers: headers)
        }
        let path = request.uri.path
        if path.hasPrefix("/uploads/") || path.hasPrefix("/files/") { return await fileBytes(request) }
        if path == "/v1/route" && request.method == .get { return route(request) }
        do throws(APIError) {
            guard let segments = APIRequest.segments(ofPath: Substring(request.uri.path)) else {
                throw APIError(status: 404, code: 404, "no such API: \(request.uri.path) (the API is under /1.1/)")
            }
            // The server's clock is public (the SDKs ask it without keys, to
            // correct their own before signing).
            let isDate = segments == ["date"] && request.method == .get
            let credentials = Self.credentials(request.headers)
            guard var identity = authenticator.identify(headers: { credentials[$0.rawValue] })
                ?? (isDate ? Identity(isMaster: false) : nil)
            else {
                if let minutes = authenticator.clockSkew(headers: { credentials[$0.rawValue] }) {
                    logger.notice("401: a signature \(minutes) minutes off the server's clock (the client's clock is wrong)")
                    throw APIError(status: 401, code: 401,
                                   "Unauthorized: the request's signature (X-LC-Sign) is \(minutes) minutes off the server's clock; check this device's date and time")
                }
                if authenticator.wrongHookKey(headers: { credentials[$0.rawValue] }) {
                    logger.warning("401: a wrong X-LC-Hook-Key (an engine app started with another LEANCLOUD_APP_HOOK_KEY?)")
                    throw APIError(status: 401, code: 401, "Unauthorized: X-LC-Hook-Key is not this server's hook key")
                }
                throw APIError.unauthorized
            }
            // A session is verified once per request (a batch's sub-requests
            // share it); an unknown or retired token makes the caller anonymous.
            if identity.sessionToken?.isEmpty == true { identity.sessionToken = nil }
            if !isDate { try await api.resolveSession(&identity) }
            // A cloud function's parameters may be any JSON; every other body is an object.
            let (body, turn) = try await bodies.read(request, anyJSON: segments.first == "functions" || segments.first == "call")
            defer { turn?.end() }
            var api = APIRequest(method: request.method.rawValue, segments: segments, body: body, identity: identity)
            // Decoded by the API when a route reads it (a kept find does not).
            api.rawQuery = request.uri.query
            api.origin = origin(request)
            api.writesBody = true
            let answer = try await self.api.handle(api)
            var headers = HTTPFields()
            if let location = answer.location { headers[.location] = location }
            if let written = answer.written { return Self.json(written, status: answer.status, headers: headers) }
            return Self.json(answer.body, status: answer.status, headers: headers)
        } catch {
            if error.code == 1 { logger.error("internal error: \(error.message)") }
            return Self.json(error.body, status: error.status)
        }
    }

    /// `PUT /uploads/<token>`: a file's bytes, guarded by its one-time token
    /// alone (the SDKs send no keys there); `GET /files/<key>`: the bytes,
    /// with headers that keep a browser from running them as a page of this
    /// origin (`nosniff`, a sandboxing Content-Security-Policy).
    func fileBytes(_ request: Request) async -> Response {
        let name = String(request.uri.path.split(separator: "/").last ?? "")
        do throws(APIError) {
            if request.uri.path.hasPrefix("/uploads/"), request.method == .put {
                guard let files = api.files, let upload = try await api.takeUpload(name) else {
                    throw APIError(status: 404, code: 404, "unknown, used or expired upload token")
                }
                let buffer: ByteBuffer
                do {
                    buffer = try await request.body.collect(upTo: files.maximumSize)
                } catch is NIOTooManyBytesError {
                    throw APIError.tooLarge(files.maximumSize)
                } catch {
                    throw APIError.malformedJSON("cannot read the upload")
                }
                do { try files.store(Data(buffer.readableBytesView), key: upload.key) } catch {
                    // (Logged: the key, which reads the bytes, stays out.)
                    throw APIError.internalError("cannot store the file: \("\(error)".replacingOccurrences(of: upload.key, with: "…"))")
                }
                return Self.json(.object([:]), status: 200)
            }
            if request.uri.path.hasPrefix("/files/"), request.method == .get {
                guard let file = try await api.download(key: name) else { throw APIError(status: 404, code: 404, "no such file") }
                var headers = HTTPFields()
                headers[.contentType] = file.mimeType
                headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
                headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
            throw APIError(status: 404, code: 404, "no such route: \(request.method.rawValue) \(request.uri.path)")
        } catch {
            if error.code == 1 { logger.error("internal error: \(error.message)") }
            return Self.json(error.body, status: error.status)
        }
    }

    /// `GET /v1/route`: where LiveQuery's WebSocket is (LiveQuery.md,
    /// "Overview" and "Pointing each SDK at it"): `ws://` for an `http://` origin, `wss://` for `https://`.
    /// Public, as LeanCloud's router is: it tells nothing but the URL.
    func route(_ request: Request) -> Response {
        guard api.liveQuery != nil else {
            return Self.json(APIError(status: 404, code: 404, "LiveQuery is not served by this server").body, status: 404)
        }
        let origin = origin(request)
        let socket = (origin.hasPrefix("https://") ? "wss://" + origin.dropFirst(8) : "ws://" + origin.dropFirst(origin.hasPrefix("http://") ? 7 : 0))
            + LiveQueryEndpoint.path
        let url = Value.string(String(socket))
        return Self.json(.object(["server": url, "secondary": url, "ttl": .int(Self.routeTTL)]), status: 200)
    }

    /// Seconds an SDK keeps the route (the JS SDK caches it that long).
    static let routeTTL: Int64 = 3600

    /// Where clients reach the server: the setting, else `http://` and the
    /// request's host (when it is a plain host[:port]).
    func origin(_ request: Request) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let host = request.head.authority ?? request.headers[HTTPField.Name("Host")!] ?? ""
        // Bytes, not Characters: a Character's isLetter asks Unicode's tables.
        let plain = !host.isEmpty && host.utf8.allSatisfy { b in
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
                || b == UInt8(ascii: ":") || b == UInt8(ascii: "[") || b == UInt8(ascii: "]")
        }
        return "http://" + (plain ? host : "127.0.0.1")
    }

    static func json(_ value: Value, status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var bytes: [UInt8] = []
        JSONWriter.write(value, to: &bytes)
        return json(bytes, status: status, headers: headers)
    }

    static func json(_ bytes: [UInt8], status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var h = headers
        h[.contentType] = "application/json; charset=utf-8"
        return Response(status: HTTPResponse.Status(code: status), headers: h, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
