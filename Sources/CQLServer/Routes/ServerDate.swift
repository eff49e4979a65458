import CQLKit

/// `GET /1.1/date`: the server's clock, public (the SDKs ask it without
/// keys, to correct their own before signing).
///
/// ```
/// GET /1.1/date → {"__type":"Date","iso":"2026-11-27T13:00:00.000Z"}
/// ```
extension API {
    static let dateRoutes: [APIRoute] = [
        APIRoute("GET", "date", isPublic: true) { api, _, _ in APIResponse(body: .date(api.clock()).restJSON) },
    ]
}
