import CQLKit
import Hummingbird

/// What the middleware learns of a request on its way to the API
/// (``ServerRouter``): who the caller is (``AuthenticationMiddleware``),
/// its path after `/1.1/`, and its body (``RequestBodyMiddleware``).
struct APIRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The caller, once authenticated; nil before.
    var identity: Identity?
    /// The percent-decoded segments after `/1.1/`.
    var segments: [String] = []
    /// The route of the method and path, found once (nil: none, a 404 to come).
    var route: APIRoute.Match?
    /// The JSON body; nil when there is none (or it is not read yet).
    var body: Value?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}
