import CQLKit
import Hummingbird

/// `GET /v1/route`: where LiveQuery's WebSocket is (LiveQuery.md,
/// "Overview" and "Pointing each SDK at it"): `ws://` for an `http://`
/// origin, `wss://` for `https://`. Public, as LeanCloud's router is: it
/// tells nothing but the URL.
///
/// ```
/// GET /v1/route?appId=app → {"server":"ws://127.0.0.1:3000/livequery","secondary":"ws://127.0.0.1:3000/livequery","ttl":3600}
/// ```
struct LiveQueryRouterEndpoint: Sendable {
    /// nil: LiveQuery is not served (404).
    let hub: LiveQueryHub?
    let origin: PublicOrigin

    /// Seconds an SDK keeps the route (the JS SDK caches it that long).
    static let ttl: Int64 = 3600

    func respond(_ request: Request) -> Response {
        guard hub != nil else { return .error(APIError(status: 404, code: 404, "LiveQuery is not served by this server")) }
        let origin = origin.of(request)
        let socket = (origin.hasPrefix("https://") ? "wss://" + origin.dropFirst(8) : "ws://" + origin.dropFirst(origin.hasPrefix("http://") ? 7 : 0))
            + LiveQueryEndpoint.path
        let url = Value.string(String(socket))
        return .json(.object(["server": url, "secondary": url, "ttl": .int(Self.ttl)]), status: 200)
    }
}
