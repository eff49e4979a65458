import Crypto
import Foundation

/// Turns a request's headers into an ``Identity``, or refuses it.
///
/// LeanCloud's forms, all accepted:
/// - `X-LC-Id: <appId>` with `X-LC-Key: <appKey>` or `X-LC-Key: <masterKey>,master`;
/// - `X-LC-Sign: <md5>,<timestamp>[,master]`, the lowercase hex MD5 of the
///   millisecond timestamp followed by the key (the JS and Python SDKs always
///   sign and never send the key);
/// - the legacy `X-AVOSCloud-Application-Id`, `X-AVOSCloud-Application-Key`,
///   `X-AVOSCloud-Master-Key` and `X-AVOSCloud-Request-Sign`.
///
/// Keys and signatures are compared in constant time (the time does not
/// depend on where the first difference lies). A signature's timestamp must
/// lie within ``signatureWindow`` of the server's clock, so a signature seen
/// once cannot be replayed for long.
///
/// ```swift
/// let auth = Authenticator(keys: AppKeys(appId: "app", appKey: "k", masterKey: "m"))
/// auth.identify(["x-lc-id": "app", "x-lc-key": "m,master"])   // Identity(isMaster: true)
/// auth.identify(["x-lc-id": "app", "x-lc-key": "wrong"])      // nil (401)
/// ```
public struct Authenticator: Sendable {
    public var keys: AppKeys
    /// How far a signature's timestamp may be from now, either way: 15
    /// minutes, for the clocks of phones that are set by hand.
    public var signatureWindow: Double = 15 * 60
    /// The clock, in milliseconds since 1970 (a test sets it).
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 * 1000 }

    public init(keys: AppKeys) { self.keys = keys }

    /// Every header name ``identify(_:)-((String)->String?)`` asks for, lowercased (the server
    /// makes their `HTTPField.Name`s once), in ``Header`` order.
    ///
    /// ```swift
    /// Authenticator.headerNames.contains("x-lc-sign")   // true
    /// ```
    public static let headerNames = [
        "x-lc-id", "x-avoscloud-application-id", "x-lc-session", "x-avoscloud-session-token", "x-lc-sign", "x-avoscloud-request-sign",
        "x-avoscloud-master-key", "x-lc-key", "x-avoscloud-application-key", "x-lc-hook-key",
    ]

    /// The headers ``identify(_:)-((String)->String?)`` reads (``headerNames``, in order).
    public enum Header: Int, CaseIterable, Sendable {
        case id, legacyId, session, legacySession, sign, legacySign, legacyMasterKey, key, legacyKey, hookKey

        /// Its lowercased name.
        public var name: String { Authenticator.headerNames[rawValue] }

        /// The header of a lowercased name, if ``identify(_:)-((String)->String?)`` reads it.
        ///
        /// ```swift
        /// Authenticator.Header(name: "x-lc-key")   // .key
        /// Authenticator.Header(name: "host")       // nil
        /// ```
        public init?(name: String) {
            guard let header = Self.byName[name] else { return nil }
            self = header
        }

        private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
    }

    /// The identity the headers prove, or nil (401). `header` answers a
    /// lowercased header name with its value.
    public func identify(_ header: (String) -> String?) -> Identity? {
        identify(headers: { header($0.name) })
    }

    /// ``identify(_:)-((String)->String?)`` with the headers asked by role: a server that has
    /// read a request's headers once (``Header/init(name:)``) answers each
    /// from what it kept.
    public func identify(headers header: (Header) -> String?) -> Identity? {
        guard var identity = identifyKeys(headers: header) else { return nil }
        if let hookKey = keys.hookKey, let given = header(.hookKey), !given.isEmpty {
            // A wrong hook key is refused (``wrongHookKey(headers:)`` says why): an engine started with another key learns it at once.
            guard equal(given, hookKey) else { return nil }
            identity.hasHookKey = true
        }
        return identity
    }

    /// Whether ``identify(headers:)`` refused a request only for its
    /// `X-LC-Hook-Key`: its keys are right, its hook key is not the
    /// server's (an engine app started with another
    /// `LEANCLOUD_APP_HOOK_KEY`).
    public func wrongHookKey(headers header: (Header) -> String?) -> Bool {
        guard let hookKey = keys.hookKey, let given = header(.hookKey), !given.isEmpty else { return false }
        return identifyKeys(headers: header) != nil && !equal(given, hookKey)
    }

    /// The identity the app id, key or signature and session prove.
    func identifyKeys(headers header: (Header) -> String?) -> Identity? {
        guard let id = header(.id) ?? header(.legacyId), equal(id, keys.appId) else { return nil }
        let session = header(.session) ?? header(.legacySession)
        if let sign = header(.sign) ?? header(.legacySign) {
            return verify(signature: sign).map { Identity(isMaster: $0, sessionToken: session) }
        }
        if let master = header(.legacyMasterKey) {
            return equal(master, keys.masterKey) ? Identity(isMaster: true, sessionToken: session) : nil
        }
        guard let key = header(.key) ?? header(.legacyKey) else { return nil }
        if key.hasSuffix(",master") {
            return equal(String(key.dropLast(7)), keys.masterKey) ? Identity(isMaster: true, sessionToken: session) : nil
        }
        return equal(key, keys.appKey) ? Identity(isMaster: false, sessionToken: session) : nil
    }

    /// Convenience for a dictionary of lowercased names.
    public func identify(_ headers: [String: String]) -> Identity? { identify { headers[$0] } }

    /// Whether `<md5>,<timestamp>[,master]` is right: nil if not, else
    /// whether it was signed with the master key.
    func verify(signature: String) -> Bool? {
        let parts = signature.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 || (parts.count == 3 && parts[2] == "master") else { return nil }
        let digest = parts[0].lowercased(), timestamp = String(parts[1])
        guard let ms = Double(timestamp), abs(ms - now()) <= signatureWindow * 1000 else { return nil }
        let master = parts.count == 3
        return equal(digest, digestSigning(timestamp, master: master)) ? master : nil
    }

    /// The MD5 (hex) an SDK signs `timestamp` with: of the timestamp and the app or master key.
    func digestSigning(_ timestamp: String, master: Bool) -> String {
        Insecure.MD5.hash(data: Data((timestamp + (master ? keys.masterKey : keys.appKey)).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Why ``identify(headers:)`` refused a request, when the reason is the
    /// caller's clock: a signature right for its key but timestamped more
    /// than ``signatureWindow`` from the server's clock (a visitor's device
    /// set to the wrong time), as minutes off; nil for any other refusal,
    /// which tells nothing (a wrong key looks like a missing one).
    public func clockSkew(headers header: (Header) -> String?) -> Int? {
        guard let id = header(.id) ?? header(.legacyId), equal(id, keys.appId),
              let sign = header(.sign) ?? header(.legacySign) else { return nil }
        let parts = sign.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 || (parts.count == 3 && parts[2] == "master"), let ms = Double(parts[1]) else { return nil }
        guard equal(parts[0].lowercased(), digestSigning(String(parts[1]), master: parts.count == 3)) else { return nil }
        let off = abs(ms - now()) / 60_000
        return off * 60 > signatureWindow ? Int(off.rounded()) : nil
    }

    /// Constant-time equality of two strings' UTF-8 bytes (the length is not
    /// secret: keys have a public length).
    func equal(_ a: String, _ b: String) -> Bool {
        Passwords.constantTimeEqual(Array(a.utf8), Array(b.utf8))
    }
}
