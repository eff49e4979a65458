import CQLKit

/// Objects as the API returns them.
///
/// `ACL` is returned only when the request asks with `returnACL=true` (the
/// evaluator hides nothing stored; hiding it is the API's: Server.md, "Endpoints"), for
/// the objects and for the objects `include` brought in.
///
/// `_User`'s secrets — `password`, `salt` (LeanCloud's export keeps both,
/// for the login of imported users) and `sessionToken` — are never
/// returned, neither from `_User` itself nor from a `_User` brought in by
/// `include`.
///
/// An included Pointer (the evaluator's `{"__type":"Object",...}`) keeps
/// `"__type":"Pointer"` and `"className"` beside its keys, as LeanCloud
/// returns it.
///
/// A File stored as a reference (`{"__type":"File","id":"..."}`, how the SDKs
/// save one) is returned expanded with `objectId`, `name` and `url` — the
/// Python SDK's decoder requires them — from the `_File` object of that id:
/// its `url` wins over one the reference holds (an export's or an older
/// SDK's copy, which `cql files fetch` leaves behind when it moves the
/// bytes here), as LeanCloud's file URLs are the server's to make.
///
/// A `_File`'s `url` stored as a path, `/files/<key>` (what `cql files
/// fetch` writes), is answered as `<origin>/files/<key>` — `--public-url`
/// or the request's host — wherever it appears: the `_File` object itself,
/// a File reference expanded from it, an included `_File`.
extension API {
    /// The origin of the request being answered (``APIRequest/origin``): what a
    /// stored file path is answered under.
    @TaskLocal static var requestOrigin = ""

    /// `/files/<key>` as `<origin>/files/<key>` (other values as they are).
    static func servedFileURL(_ v: Value?) -> Value? {
        guard case .string(let s)? = v, s.hasPrefix("/files/"), !requestOrigin.isEmpty else { return v }
        return .string(requestOrigin + s)
    }

    /// Keys of `_User` no answer holds.
    static let userSecrets = ["password", "salt", "sessionToken"]

    /// The objects as an answer shows them, given the `_File`s their File
    /// references name (``referencedFiles(in:grantees:)``): no storage here.
    static func shaped(_ objects: [[String: Value]], className: String, returnACL: Bool, files: [String: [String: Value]]) -> [Value] {
        objects.map { o in
            var shown = o
            showACL(&shown, returnACL)
            if className == "_User" { for k in userSecrets { shown.removeValue(forKey: k) } }
            if className == "_File", let url = shown["url"] { shown["url"] = servedFileURL(url) }
            return expandingFiles(.object(shown), files, returnACL: returnACL)
        }
    }

    /// The ids of File references.
    static func collectFileIds(_ v: Value, into ids: inout Set<String>) {
        switch v {
        case .file(let f): if let id = f.id { ids.insert(id) }
        case .array(let items): for i in items { collectFileIds(i, into: &ids) }
        case .object(let o): for i in o.values { collectFileIds(i, into: &ids) }
        case .typedObject(_, let fields): for i in fields.values { collectFileIds(i, into: &ids) }
        default: break
        }
    }

    /// An object's `ACL` as an answer shows it: removed unless asked for;
    /// asked for on an object stored without one, the ACL it has — public
    /// read and write, LeanCloud's default (an SDK reads it back as the
    /// object's ACL).
    static func showACL(_ o: inout [String: Value], _ returnACL: Bool) {
        if !returnACL {
            o.removeValue(forKey: "ACL")
        } else if o["ACL"] == nil || o["ACL"] == .null {
            o["ACL"] = publicACL
        }
    }

    static let publicACL: Value = .object(["*": .object(["read": true, "write": true])])

    /// `v` as an answer shows it: File references expanded from `files`
    /// (nil: kept as stored, as LiveQuery's events keep them), included
    /// objects with `"__type":"Pointer"`, their ACL by `returnACL`, an
    /// included `_User` without its secrets.
    static func expandingFiles(_ v: Value, _ files: [String: [String: Value]]?, returnACL: Bool) -> Value {
        switch v {
        case .file(let f):
            guard let files else { return v }
            var o: [String: Value] = ["__type": "File"]
            let stored = f.id.flatMap { files[$0] } ?? [:]
            if let id = f.id { o["id"] = .string(id); o["objectId"] = .string(id) }
            o["name"] = f.name.map { .string($0) } ?? stored["name"] ?? .null
            o["url"] = servedFileURL(stored["url"].flatMap { $0 == .null ? nil : $0 } ?? f.url.map { .string($0) }) ?? .null
            for key in ["mime_type", "metaData"] { if let m = stored[key] { o[key] = m } }
            return .object(o)
        case .array(let items): return .array(items.map { expandingFiles($0, files, returnACL: returnACL) })
        case .object(let o): return .object(o.mapValues { expandingFiles($0, files, returnACL: returnACL) })
        case .typedObject(let c, let fields):
            var o = fields.mapValues { expandingFiles($0, files, returnACL: returnACL) }
            showACL(&o, returnACL)
            if c == "_User" { for k in userSecrets { o.removeValue(forKey: k) } }
            if c == "_File", let url = o["url"] { o["url"] = servedFileURL(url) }
            o["__type"] = "Pointer"
            o["className"] = .string(c)
            return .object(o)
        default: return v
        }
    }
}
