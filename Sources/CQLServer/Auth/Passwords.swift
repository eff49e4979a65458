import _CryptoExtras
import Crypto
import Foundation
import NIOPosix

/// How `_User` passwords are stored and checked.
///
/// A new password is stored as `pbkdf2_sha256$<iterations>$<salt>$<hash>`:
/// PBKDF2-HMAC-SHA256 (BoringSSL's, through swift-crypto) over a 16-byte
/// salt from the system's CSPRNG, 32 bytes out, salt and hash in standard
/// base64. The parameters live beside the hash, so raising
/// ``iterations`` later leaves old hashes readable (and a login re-hashes
/// them).
///
/// A user imported from LeanCloud's export keeps LeanCloud's own `password`
/// and `salt`: `h = SHA-512(salt ‖ password)`, then 512 times
/// `h = SHA-512(h)`, in base64 (Server.md). Such a password is verified
/// as LeanCloud would, then re-hashed with PBKDF2.
///
/// Hashes are compared in constant time. Derivation is slow by design
/// (about 1 s at 600,000 iterations on a busy core), so it runs on NIO's blocking thread
/// pool, never on an event loop.
///
/// ```swift
/// let p = Passwords(iterations: 600_000)
/// let stored = try await p.hash("s3cret")   // "pbkdf2_sha256$600000$0q3v...==$Xb1k...="
/// try await p.verify("s3cret", stored: stored, salt: nil)   // .match(rehash: false)
/// Passwords.leanCloudHash("password", salt: "h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2")
/// // "tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug=="
/// ```
public struct Passwords: Sendable {
    /// The default: OWASP's figure for PBKDF2-HMAC-SHA256 (2023).
    public static let defaultIterations = 600_000
    static let scheme = "pbkdf2_sha256"

    /// PBKDF2 iterations for new hashes (a test server sets fewer).
    public var iterations: Int

    public init(iterations: Int = Passwords.defaultIterations) { self.iterations = max(1, iterations) }

    /// What a password check found.
    public enum Verdict: Equatable, Sendable {
        case mismatch
        /// The password is right; `rehash`: the stored form is LeanCloud's
        /// or has fewer iterations than now, and should be replaced.
        case match(rehash: Bool)
    }

    /// The stored form of a new password, derived off the event loops.
    public func hash(_ password: String) async throws -> String {
        let iterations = iterations
        return try await NIOThreadPool.singleton.runIfActive { try Self.pbkdf2(password, iterations: iterations) }
    }

    /// Checks `password` against a stored `password` (and LeanCloud's
    /// `salt`, when the user was imported), off the event loops.
    public func verify(_ password: String, stored: String, salt: String?) async throws -> Verdict {
        let iterations = iterations
        return try await NIOThreadPool.singleton.runIfActive { try Self.verifyNow(password, stored: stored, salt: salt, iterations: iterations) }
    }

    /// A stored form no password matches, at today's ``iterations``: what
    /// a login for an unknown user is checked against, so that it takes
    /// the time a wrong password takes (the answer must not tell which
    /// names exist by its speed).
    public var unmatchableHash: String {
        // An all-zero key: PBKDF2's output equals it for no known password.
        "\(Self.scheme)$\(iterations)$\(Data(repeating: 0x5a, count: 16).base64EncodedString())$\(Data(count: 32).base64EncodedString())"
    }

    static func verifyNow(_ password: String, stored: String, salt: String?, iterations: Int) throws -> Verdict {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        if parts.count == 4, parts[0] == scheme {
            guard let rounds = Int(parts[1]), rounds > 0, let saltBytes = Data(base64Encoded: String(parts[2])),
                  let expected = Data(base64Encoded: String(parts[3]))
            else { return .mismatch }
            let derived = try derive(password, salt: saltBytes, iterations: rounds, count: expected.count)
            return constantTimeEqual(Array(derived), Array(expected)) ? .match(rehash: rounds < iterations) : .mismatch
        }
        // LeanCloud's scheme: only with its salt (a stored value without one
        // is no hash this server knows, and matches nothing).
        guard let salt, !salt.isEmpty else { return .mismatch }
        return constantTimeEqual(Array(leanCloudHash(password, salt: salt).utf8), Array(stored.utf8)) ? .match(rehash: true) : .mismatch
    }

    static func pbkdf2(_ password: String, iterations: Int) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var g = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: 0...255, using: &g) }
        let derived = try derive(password, salt: Data(salt), iterations: iterations, count: 32)
        return "\(scheme)$\(iterations)$\(Data(salt).base64EncodedString())$\(derived.base64EncodedString())"
    }

    static func derive(_ password: String, salt: Data, iterations: Int, count: Int) throws -> Data {
        // `unsafeUncheckedRounds`: the checked variant refuses fewer than
        // 210,000, which tests (and only tests) set.
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: .sha256,
                                                    outputByteCount: count, unsafeUncheckedRounds: iterations)
        return key.withUnsafeBytes { Data($0) }
    }

    /// LeanCloud's stored form of `password` with `salt` (Server.md).
    public static func leanCloudHash(_ password: String, salt: String) -> String {
        var h = SHA512.hash(data: Array(salt.utf8) + Array(password.utf8))
        for _ in 0..<512 { h = SHA512.hash(data: Array(h)) }
        return Data(h).base64EncodedString()
    }

    /// Equality whose time depends on the lengths only, not on where the
    /// first difference lies.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
