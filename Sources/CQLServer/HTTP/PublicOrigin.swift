import Hummingbird
import HTTPTypes

/// Where clients reach the server, for the URLs it hands out (files,
/// LiveQuery's WebSocket): the `--public-url` setting, else `http://` and
/// the request's host (when it is a plain host[:port]; else `127.0.0.1`).
///
/// ```swift
/// PublicOrigin(publicURL: "https://api.example.com/").of(request)   // "https://api.example.com"
/// ```
struct PublicOrigin: Sendable {
    let publicURL: String?

    func of(_ request: Request) -> String {
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
}
