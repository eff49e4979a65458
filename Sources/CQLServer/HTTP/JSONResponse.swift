import CQLKit
import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// A JSON answer: `{"code","error"}` for a failure, else the route's value.
    static func json(_ value: Value, status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var bytes: [UInt8] = []
        JSONWriter.write(value, to: &bytes)
        return json(bytes, status: status, headers: headers)
    }

    /// JSON already written (``APIResponse/written``).
    static func json(_ bytes: [UInt8], status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var h = headers
        h[.contentType] = "application/json; charset=utf-8"
        return Response(status: HTTPResponse.Status(code: status), headers: h, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An ``APIError`` as the server answers it.
    static func error(_ error: APIError) -> Response { json(error.body, status: error.status) }
}
