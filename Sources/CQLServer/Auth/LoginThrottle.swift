import CQLKit
import Foundation

/// The rule of failed logins per account: after ``limit`` failures within
/// ``window`` seconds the account is locked for ``lockout`` seconds, during
/// which every login of it — even with the right password — answers 219
/// (LeanCloud's code for too many failed attempts). A success clears the
/// account's record. The defaults: 5 failures in 15 minutes lock for 15
/// minutes, which leaves an online guesser about 480 tries a day per
/// account against a PBKDF2 hash, and the owner a wait, not a reset.
///
/// The rule is applied to a ``State``; the states live in the database
/// (CQLSQL's `LoginFailureRows`, through ``ServerStorage``), so every
/// process serving it counts the same failures and refuses the same
/// accounts, and a restart forgets nothing. Times are the wall clock's
/// (processes on several machines share one through NTP).
///
/// ```swift
/// let t = LoginThrottle(limit: 2, window: 60, lockout: 60)
/// var s = LoginThrottle.State()
/// s = t.failing(s, at: 0); s = t.failing(s, at: 1_000)
/// t.isLocked(s, at: 2_000)    // true
/// t.isLocked(s, at: 61_000)   // false
/// ```
public struct LoginThrottle: Sendable {
    public let limit: Int
    public let window: Double
    public let lockout: Double
    /// Milliseconds since 1970 (a test may set it).
    public let now: @Sendable () -> Int64

    /// One account's recent failures and lock, in milliseconds since 1970.
    public struct State: Equatable, Sendable {
        public var failures: [Int64] = []
        public var lockedUntil: Int64?
        public init() {}

        /// The state from its stored text (`{"failures":[...],"lockedUntil":...}`).
        public init(json: String) throws(QueryError) {
            let doc = try JSONReader.parse(json)
            if case .array(let times)? = doc["failures"] {
                failures = times.compactMap { if case .int(let t) = $0 { t } else { nil } }
            }
            if case .int(let t)? = doc["lockedUntil"] { lockedUntil = t }
        }

        /// Its stored text.
        public var json: String {
            var doc: [String: Value] = ["failures": .array(failures.map { .int($0) })]
            if let lockedUntil { doc["lockedUntil"] = .int(lockedUntil) }
            return JSONWriter.string(.object(doc))
        }
    }

    public init(limit: Int = 5, window: Double = 15 * 60, lockout: Double = 15 * 60,
                now: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }) {
        self.limit = max(1, limit)
        self.window = window
        self.lockout = lockout
        self.now = now
    }

    var windowMilliseconds: Int64 { Int64((window * 1000).rounded(.up)) }

    /// Whether logins of an account in `state` are refused at `t`.
    public func isLocked(_ state: State, at t: Int64) -> Bool { (state.lockedUntil ?? .min) > t }

    /// `state` after one more failed login at `t`: the failures still in the
    /// window and this one; at ``limit`` of them the account is locked and
    /// they are forgotten.
    public func failing(_ state: State, at t: Int64) -> State {
        var next = state
        next.failures = state.failures.filter { t - $0 < windowMilliseconds } + [t]
        if next.failures.count >= limit {
            next.lockedUntil = t + Int64((lockout * 1000).rounded(.up))
            next.failures = []
        }
        return next
    }

    /// The first millisecond at which `state` says nothing any more (every
    /// failure out of the window, the lock over): its row may go then.
    public func expiry(of state: State) -> Int64 {
        max(state.lockedUntil ?? .min, (state.failures.last ?? .min / 2) + windowMilliseconds)
    }
}
