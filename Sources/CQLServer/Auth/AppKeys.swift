import Crypto
import Foundation

/// The application's id and its two keys, and the hook key of its cloud
/// engine.
///
/// With none given, ``loadOrGenerate(file:)`` makes them once from the
/// system's CSPRNG and keeps them in a file beside the database (mode 0600),
/// so a newcomer can connect at once and the keys stay the same across
/// restarts; ``loadOrGenerateHookKey(file:)`` does the same for the hook key.
///
/// ```swift
/// var keys = AppKeys(appId: "app", appKey: "key", masterKey: "master")
/// keys.hookKey = "hook"   // what the engine app gets as LEANCLOUD_APP_HOOK_KEY
/// ```
public struct AppKeys: Sendable, Equatable {
    public var appId: String
    public var appKey: String
    public var masterKey: String
    /// The key the cloud engine and the server prove themselves to each
    /// other with (`X-LC-Hook-Key`); nil: the server has no engine, and the
    /// header is ignored.
    public var hookKey: String?

    public init(appId: String, appKey: String, masterKey: String, hookKey: String? = nil) {
        self.appId = appId
        self.appKey = appKey
        self.masterKey = masterKey
        self.hookKey = hookKey
    }

    /// A fresh random id and keys (LeanCloud's shapes: a 24-character id,
    /// 24-character keys; here 128 bits and more of randomness each).
    public static func generate() -> AppKeys {
        AppKeys(appId: random(24) + "-cqlserve", appKey: random(24), masterKey: random(24))
    }

    static func random(_ count: Int) -> String {
        // 62 symbols, drawn without modulo bias: log2(62) * 24 ≈ 142 bits.
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var g = SystemRandomNumberGenerator()
        return String(decoding: (0..<count).map { _ in alphabet[Int(g.next(upperBound: UInt64(alphabet.count)))] }, as: UTF8.self)
    }

    /// The keys stored in `file` (the lines `CQL_APP_ID=...`,
    /// `CQL_APP_KEY=...`, `CQL_MASTER_KEY=...`), or new ones written there.
    /// A file holding only a hook key (``loadOrGenerateHookKey(file:)``)
    /// gets the three added.
    /// - Returns: the keys and whether they were made just now.
    public static func loadOrGenerate(file: String) throws -> (keys: AppKeys, generated: Bool) {
        let values = try keysFile(file) ?? [:]
        let names = ["CQL_APP_ID", "CQL_APP_KEY", "CQL_MASTER_KEY"]
        let given = names.compactMap { values[$0] }.filter { !$0.isEmpty }
        if given.count == 3 { return (AppKeys(appId: given[0], appKey: given[1], masterKey: given[2]), false) }
        guard names.allSatisfy({ values[$0] == nil }) else {
            throw ServerSetupError("\(file): expected the lines CQL_APP_ID=..., CQL_APP_KEY=... and CQL_MASTER_KEY=...")
        }
        let keys = generate()
        try appendToKeysFile(file, "CQL_APP_ID=\(keys.appId)\nCQL_APP_KEY=\(keys.appKey)\nCQL_MASTER_KEY=\(keys.masterKey)\n")
        return (keys, true)
    }

    /// The hook key stored in `file` (a line `CQL_HOOK_KEY=...`), or a new
    /// one added to it (the file is created, mode 0600, when missing).
    /// - Returns: the key and whether it was made just now.
    ///
    /// ```swift
    /// let (key, made) = try AppKeys.loadOrGenerateHookKey(file: "app.db.keys")
    /// ```
    public static func loadOrGenerateHookKey(file: String) throws -> (key: String, generated: Bool) {
        if let key = try keysFile(file)?["CQL_HOOK_KEY"], !key.isEmpty { return (key, false) }
        let key = random(24)
        try appendToKeysFile(file, "CQL_HOOK_KEY=\(key)\n")
        return (key, true)
    }

    /// The `NAME=value` lines of a keys file; nil when there is none.
    static func keysFile(_ file: String) throws -> [String: String]? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        var values: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
        }
        return values
    }

    /// Adds `text` at the end of a keys file, creating it readable by its
    /// owner only (before any secret is in it) when missing.
    static func appendToKeysFile(_ file: String, _ text: String) throws {
        if !FileManager.default.fileExists(atPath: file) {
            guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw ServerSetupError("\(file): cannot create the keys file")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: file) else { throw ServerSetupError("\(file): cannot write the keys file") }
        defer { try? handle.close() }
        // A last line without its newline (edited by hand) stays a line of its own.
        let end = try handle.seekToEnd()
        var separated = text
        if end > 0, let last = try? String(contentsOfFile: file, encoding: .utf8).last, !last.isNewline { separated = "\n" + text }
        try handle.write(contentsOf: Data(separated.utf8))
    }
}

/// A server that cannot start: a bad flag, key file or database.
public struct ServerSetupError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
