import Crypto
import Foundation

/// The application's id and its two keys.
///
/// With none given, ``loadOrGenerate(besides:)`` makes them once from the
/// system's CSPRNG and keeps them in a file beside the database (mode 0600),
/// so a newcomer can connect at once and the keys stay the same across
/// restarts.
public struct AppKeys: Sendable, Equatable {
    public var appId: String
    public var appKey: String
    public var masterKey: String

    public init(appId: String, appKey: String, masterKey: String) {
        self.appId = appId
        self.appKey = appKey
        self.masterKey = masterKey
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

    /// The keys stored in `file` (three lines: `CQL_APP_ID=...`,
    /// `CQL_APP_KEY=...`, `CQL_MASTER_KEY=...`), or new ones written there.
    /// - Returns: the keys and whether they were made just now.
    public static func loadOrGenerate(file: String) throws -> (keys: AppKeys, generated: Bool) {
        if let text = try? String(contentsOfFile: file, encoding: .utf8) {
            var values: [String: String] = [:]
            for line in text.split(whereSeparator: \.isNewline) {
                guard let eq = line.firstIndex(of: "=") else { continue }
                values[String(line[..<eq]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
            }
            guard let id = values["CQL_APP_ID"], let key = values["CQL_APP_KEY"], let master = values["CQL_MASTER_KEY"],
                  !id.isEmpty, !key.isEmpty, !master.isEmpty
            else {
                throw ServerSetupError("\(file): expected the lines CQL_APP_ID=..., CQL_APP_KEY=... and CQL_MASTER_KEY=...")
            }
            return (AppKeys(appId: id, appKey: key, masterKey: master), false)
        }
        let keys = generate()
        let text = "CQL_APP_ID=\(keys.appId)\nCQL_APP_KEY=\(keys.appKey)\nCQL_MASTER_KEY=\(keys.masterKey)\n"
        // Created readable by its owner only, before any secret is in it.
        guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: file)
        else { throw ServerSetupError("\(file): cannot create the keys file") }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
        return (keys, true)
    }
}

/// A server that cannot start: a bad flag, key file or database.
public struct ServerSetupError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
