import Foundation

/// Failed logins per account, in memory: after ``limit`` failures within
/// ``window`` seconds the account is locked for ``lockout`` seconds, during
/// which every login of it — even with the right password — answers 219
/// (LeanCloud's code for too many failed attempts). A success clears the
/// account's record. The defaults: 5 failures in 15 minutes lock for 15
/// minutes, which leaves an online guesser about 480 tries a day per
/// account against a PBKDF2 hash, and the owner a wait, not a reset.
///
/// Kept in memory (a restart forgets it; one server process holds it): a
/// lockout is a brake on guessing, not a record. The table keeps at most
/// `capacity` accounts (the oldest are dropped first).
///
/// ```swift
/// let t = LoginThrottle(limit: 2, window: 60, lockout: 60)
/// t.recordFailure("u1"); t.recordFailure("u1")
/// t.isLocked("u1")   // true
/// t.isLocked("u2")   // false
/// ```
public final class LoginThrottle: @unchecked Sendable {
    public let limit: Int
    public let window: Double
    public let lockout: Double
    let capacity = 100_000
    /// Seconds since some fixed instant (a test may set it).
    var now: @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    private var failures: [String: [Double]] = [:]
    private var lockedUntil: [String: Double] = [:]
    private let lock = NSLock()

    public init(limit: Int = 5, window: Double = 15 * 60, lockout: Double = 15 * 60) {
        self.limit = max(1, limit)
        self.window = window
        self.lockout = lockout
    }

    /// Whether logins of `account` are refused now.
    public func isLocked(_ account: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let until = lockedUntil[account] else { return false }
        if until > now() { return true }
        lockedUntil.removeValue(forKey: account)
        return false
    }

    /// One more failed login of `account`.
    public func recordFailure(_ account: String) {
        lock.lock()
        defer { lock.unlock() }
        let t = now()
        var recent = (failures[account] ?? []).filter { t - $0 < window }
        recent.append(t)
        if recent.count >= limit {
            lockedUntil[account] = t + lockout
            recent = []
        }
        failures[account] = recent.isEmpty ? nil : recent
        if failures.count > capacity {
            // The accounts whose last failure is oldest go first.
            for (key, _) in failures.sorted(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) }).prefix(failures.count - capacity) {
                failures.removeValue(forKey: key)
            }
        }
        if lockedUntil.count > capacity { lockedUntil = lockedUntil.filter { $0.value > t } }
    }

    /// A successful login of `account`: its failures are forgotten.
    public func recordSuccess(_ account: String) {
        lock.lock()
        failures.removeValue(forKey: account)
        lock.unlock()
    }
}
