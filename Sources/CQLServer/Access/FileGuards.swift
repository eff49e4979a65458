import CQLKit
import Foundation

/// What keeps a `_File`'s bytes to the object that uploaded them, on every
/// path that writes `_File` rows (the class API, batch sub-requests,
/// cloudQuery).
///
/// The server alone sets a file's `key` (where its bytes are), `url`,
/// `bucket`, `provider`, `source_url` and `source_key` (``fileToken(_:)``, ``externalFile(_:)``); a
/// client's write naming one is 105, so no `_File` a client makes can
/// point at another's bytes and delete them through `DELETE /1.1/files/<id>`.
/// The master key may set them, yet `key` stays unique (the database's
/// index, ``ServerStorage/uniqueKeys``) and a `url` is `http` or `https`
/// only: a File value expands to it, and a `javascript:` URL in a page is
/// script.
///
/// ```swift
/// // POST /1.1/classes/_File {"name":"x","key":"<another's key>"}, app key:
/// // 400 {"code":105,"error":"_File's 'key' is set by the server ..."}
/// ```
extension API {
    /// (`source_url` and `source_key`: where `cql files fetch` copied a
    /// file's bytes from, which a later fetch may read again.)
    static let serverFileKeys: Set<String> = ["key", "url", "bucket", "provider", "source_url", "source_key"]

    /// 105 for a client's `key`, `url`, `bucket` or `provider` on `_File`;
    /// 107 for a `url` that is not `http` or `https` (any caller).
    static func checkFileKeys(_ statement: Statement, identity: Identity) throws(APIError) {
        guard statement.className == "_File" else { return }
        var written: [(key: String, value: Term?)] = []
        switch statement {
        case .insert(let s):
            for row in s.rows { for (c, t) in zip(s.columns, row) { written.append((c.name, t)) } }
        case .update(let u):
            for a in u.assignments {
                if case .set(let t) = a.change { written.append((a.key.name, t)) } else { written.append((a.key.name, nil)) }
            }
        case .delete, .select:
            return
        }
        for (key, term) in written where serverFileKeys.contains(key) {
            if !identity.isMaster {
                throw APIError(code: 105, "_File's '\(key)' is set by the server (upload through /1.1/fileTokens, or POST /1.1/files for an external url)")
            }
            if key == "url", !isWebURL(term) { throw APIError(code: 107, "a file's 'url' must be an http or https URL") }
        }
    }

    /// Whether `term` is a string URL of scheme `http` or `https` (or null:
    /// no URL).
    static func isWebURL(_ term: Term?) -> Bool {
        switch term {
        case .value(.null)?: return true
        case .value(.string(let s))?: return isWebURL(s)
        default: return false
        }
    }

    static func isWebURL(_ s: String) -> Bool {
        guard let url = URL(string: s), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else { return false }
        return scheme == "http" || scheme == "https"
    }
}
