import Foundation

/// The bytes of uploaded files, in a directory of their own (beside the
/// database by default; processes serving one database share it).
///
/// `cql serve` is its own `s3` provider (Server.md, "Files"):
/// `POST /1.1/fileTokens` registers an upload here and answers an
/// `upload_url` on the server itself, `/uploads/<token>`; the SDK `PUT`s
/// the bytes there without LeanCloud's headers, so the token alone (32
/// characters from the CSPRNG, usable once, for ``uploadLifetime``
/// seconds; kept in the database, so any process serving it honours it:
/// ``ServerStorage``'s `registerUpload`) guards it. The bytes are served at
/// `/files/<key>`.
///
/// A key is made by the server — 24 hex digits and the name's extension
/// (`5f0c...e1.png`) — never taken from the client, and only keys of that
/// shape are read or removed, so no request can name a path outside the
/// directory.
///
/// ```swift
/// let files = try FileStore(directory: "app.db.files")
/// let key = FileStore.newKey(name: "photo.PNG")         // "9c1f...41.png"
/// FileStore.isKey(key)                                  // true
/// FileStore.isKey("../app.db")                          // false
/// ```
public final class FileStore: Sendable {
    public let directory: String
    /// Larger uploads are refused with 413.
    public let maximumSize: Int
    /// Seconds an upload token stays valid.
    public let uploadLifetime: Double = 3600

    public init(directory: String, maximumSize: Int = 100 << 20) throws {
        self.directory = directory
        self.maximumSize = maximumSize
        // Its owner's only (0700), as its files are (0600): an uploaded file
        // may be private (its ACL), and its key is what serves it.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A new key for a file called `name`.
    public static func newKey(name: String) -> String {
        let ext = name.split(separator: ".", omittingEmptySubsequences: false).last.map { $0.lowercased() } ?? ""
        let safe = name.contains(".") && (1...10).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        var g = SystemRandomNumberGenerator()
        let hex = (0..<3).map { _ in String(format: "%016llx", g.next()) }.joined().prefix(24)
        return String(hex) + (safe ? "." + ext : "")
    }

    /// Whether `key` has the shape ``newKey(name:)`` makes.
    public static func isKey(_ key: String) -> Bool {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts[0].count == 24,
              parts[0].allSatisfy({ $0.isHexDigit && ($0.isNumber || $0.isLowercase) }) else { return false }
        return parts.count == 1 || ((1...10).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) })
    }

    func path(_ key: String) -> String? { Self.isKey(key) ? directory + "/" + key : nil }

    /// Stores the bytes of `key` (written aside, then renamed: a reader
    /// never sees half a file), readable by the owner only (0600) from the
    /// moment the file exists.
    func store(_ bytes: Data, key: String) throws {
        guard let path = path(key) else { throw ServerSetupError("not a file key: \(key)") }
        let aside = path + ".upload-" + AppKeys.random(8)
        let fd = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServerSetupError("cannot create a file in \(directory): errno \(errno)") }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failure = errno; break }
                offset += n
            }
        }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0 && rename(aside, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(aside)
            throw ServerSetupError("cannot write a file in \(directory): errno \(failure)")
        }
    }

    func read(_ key: String) -> Data? { path(key).flatMap { FileManager.default.contents(atPath: $0) } }

    func remove(_ key: String) {
        if let path = path(key) { try? FileManager.default.removeItem(atPath: path) }
    }
}
