import CQLKit
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A file's bytes, outside `/1.1/` (Server.md, "Files"): `PUT
/// /uploads/<token>` stores them, guarded by its one-time token alone (the
/// SDKs send no keys there); `GET /files/<key>` serves them, with headers
/// that keep a browser from running them as a page of this origin
/// (`nosniff`, a sandboxing Content-Security-Policy).
struct FileBytesEndpoints: Sendable {
    let api: API
    let logger: Logger

    func upload(_ request: Request, token: String) async -> Response {
        await answer { () async throws(APIError) -> Response in
            guard let files = api.files, let upload = try await api.takeUpload(token) else {
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
            return .json(.object([:]), status: 200)
        }
    }

    func download(key: String) async -> Response {
        await answer { () async throws(APIError) -> Response in
            guard let file = try await api.download(key: key) else { throw APIError(status: 404, code: 404, "no such file") }
            var headers = HTTPFields()
            headers[.contentType] = file.mimeType
            headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
            headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
        }
    }

    private func answer(_ body: () async throws(APIError) -> Response) async -> Response {
        do throws(APIError) { return try await body() } catch {
            if error.code == 1 { logger.error("internal error: \(error.message)") }
            return .error(error)
        }
    }
}
