/// Who a request speaks for, as its headers prove it. Every route receives
/// it; the query layer decides from it what the request may read and write.
///
/// Today: the app key (a client: what an app binary carries) or the master
/// key (a trusted server or the app's owner: bypasses class restrictions).
/// A session (`X-LC-Session`) is carried as given, for the users and ACL
/// layer to resolve into a user and roles.
public struct Identity: Sendable, Equatable {
    /// The master key was proven: master-only operations are allowed.
    public var isMaster: Bool
    /// `X-LC-Session`, when the request carries one (not yet verified).
    public var sessionToken: String?
    /// The `_User` objectId the session token was verified to belong to;
    /// `nil` is the anonymous caller (only `*` grants of an ACL apply).
    /// Set by the users layer once it has checked ``sessionToken``.
    public var userId: String?
    /// The request carried a session token the server does not know (never
    /// issued, expired, retired by a password change or refresh, or its user
    /// deleted). Such a request is anonymous, as on LeanCloud: only where a
    /// session is the point (`/1.1/users/me`, refreshing a token, changing a
    /// password) is it answered 211 ("Invalid session token.").
    public var presentedUnknownSession = false
    /// The request carried the server's hook key (`X-LC-Hook-Key`): it comes
    /// from the app's cloud engine, whose `__ignore_hooks` marks are honoured
    /// (as the master key's are).
    public var hasHookKey = false

    public init(isMaster: Bool, sessionToken: String? = nil, userId: String? = nil) {
        self.isMaster = isMaster
        self.sessionToken = sessionToken
        self.userId = userId
    }
}
