import CQLKit
import Foundation

/// Files (`_File`), as LeanCloud's SDKs save them: `POST /1.1/fileTokens`
/// → `PUT upload_url` (provider `s3`: the server itself, ``FileStore``) →
/// `POST /1.1/fileCallback`; `GET`/`DELETE /1.1/files/<id>`; `POST
/// /1.1/files` for a file that lives at an external URL.
///
/// ```
/// POST /1.1/fileTokens {"name":"a.txt","mime_type":"text/plain","metaData":{"size":5}}
/// → {"objectId":"65f...","key":"9c1f...41.txt","url":"http://host/files/9c1f...41.txt",
///    "token":"Zx8...","upload_url":"http://host/uploads/Zx8...","provider":"s3","mime_type":"text/plain"}
/// PUT http://host/uploads/Zx8... (the bytes; no keys)   → 200 {}
/// POST /1.1/fileCallback {"token":"Zx8...","result":true} → 200 {}
/// ```
extension API {
    /// The file routes (``routes``); the bytes' own (`/uploads/<token>`,
    /// `/files/<key>`) are HTTP's (`FileBytesRoutes`). A file route's body is
    /// not the keys it stores.
    static let fileRoutes: [APIRoute] = [
        APIRoute("POST", "fileTokens", permission: .init(.create, of: "_File", bodyHoldsKeys: false)) { api, r, _ in try await api.fileToken(r) },
        APIRoute("POST", "fileCallback") { api, r, _ in try await api.fileCallback(r) },
        APIRoute("POST", "files", permission: .init(.create, of: "_File", bodyHoldsKeys: false)) { api, r, _ in try await api.externalFile(r) },
        APIRoute("GET", "files/:id", reads: getParameterNames, permission: .init(.get, of: "_File")) { api, r, path in
            try await api.get(r, className: "_File", objectId: path["id"])
        },
        APIRoute("DELETE", "files/:id", permission: .init(.delete, of: "_File")) { api, r, path in
            try await api.deleteFileRoute(r, objectId: path["id"])
        },
    ]

    /// `POST /1.1/fileTokens`: the `_File` object (its bytes still to come)
    /// and where to put them.
    func fileToken(_ r: APIRequest) async throws -> APIResponse {
        let files = try requireFiles()
        let body = try Self.objectBody(r)
        let name = body["name"]?.stringValue ?? "file"
        let key = FileStore.newKey(name: name)
        let mime = Self.mimeType(body["mime_type"]?.stringValue, name: name)
        let url = "\(r.origin)/files/\(key)"
        var values: [String: Value] = ["name": .string(name), "key": .string(key), "url": .string(url), "mime_type": .string(mime),
                                       "provider": "s3", "metaData": body["metaData"].flatMap { $0 == .null ? nil : $0 } ?? .object([:])]
        if let acl = body["ACL"], acl != .null { values["ACL"] = acl }
        let created = try await createFile(values, r)
        let token = try await storage.registerUpload(fileId: created.id, key: key, lifetime: files.uploadLifetime)
        return APIResponse(body: .object([
            "objectId": .string(created.id), "createdAt": created.createdAt, "name": .string(name), "key": .string(key), "url": .string(url),
            "token": .string(token), "upload_url": .string("\(r.origin)/uploads/\(token)"), "provider": "s3", "mime_type": .string(mime),
            "bucket": "cql-serve",
        ]))
    }

    /// `POST /1.1/fileCallback` `{"token","result"}`: with `false` (the
    /// upload failed) the `_File` object and any bytes go.
    func fileCallback(_ r: APIRequest) async throws -> APIResponse {
        _ = try requireFiles()
        let body = try Self.objectBody(r)
        guard case .string(let token)? = body["token"], let upload = try await storage.finishUpload(token) else {
            throw APIError(code: 1, "unknown or finished upload token")
        }
        if body["result"] == .bool(false) {
            var deletion = r
            deletion.body = nil
            try await deleteFile(upload.fileId, key: upload.key, deletion)
        }
        return APIResponse(body: .object([:]))
    }

    /// `POST /1.1/files`: a file at an external `url` (http or https).
    func externalFile(_ r: APIRequest) async throws -> APIResponse {
        let body = try Self.objectBody(r)
        guard case .string(let url)? = body["url"], Self.isWebURL(url) else {
            throw APIError(code: 107, "an external file needs an http or https 'url'")
        }
        let name = body["name"]?.stringValue ?? "file"
        var values: [String: Value] = ["name": .string(name), "url": .string(url), "mime_type": .string(Self.mimeType(body["mime_type"]?.stringValue, name: name)),
                                       "provider": "external", "metaData": body["metaData"].flatMap { $0 == .null ? nil : $0 } ?? .object([:])]
        if let acl = body["ACL"], acl != .null { values["ACL"] = acl }
        let created = try await createFile(values, r)
        return APIResponse(status: 201, body: .object(["objectId": .string(created.id), "createdAt": created.createdAt, "url": .string(url), "name": .string(name)]),
                           location: "/1.1/files/\(created.id)")
    }

    /// `DELETE /1.1/files/<id>`: the object, then its bytes.
    func deleteFileRoute(_ r: APIRequest, objectId: String) async throws -> APIResponse {
        let stored = try await storage.find(try Self.prepared(
            try WhereJSONReader.read(.object(["className": "_File", "where": .object(["objectId": .string(objectId)])])), as: .master))
        let answer = try await delete(r, className: "_File", objectIds: objectId)
        if let key = stored.objects.first?["key"]?.stringValue { files?.remove(key) }
        return answer
    }

    /// `GET /files/<key>`: the bytes and their type, when a `_File` of that
    /// key exists (a deleted file is gone even if its bytes linger).
    public func download(key: String) async throws(APIError) -> (bytes: Data, mimeType: String)? {
        guard let files, FileStore.isKey(key) else { return nil }
        do {
            let query = try WhereJSONReader.read(.object(["className": "_File", "where": .object(["key": .string(key)]), "limit": 1]))
            guard let file = try await storage.find(try Self.prepared(query, as: .master)).objects.first,
                  let bytes = files.read(key) else { return nil }
            return (bytes, Self.mimeType(file["mime_type"]?.stringValue, name: key))
        } catch {
            throw APIError.internalError("\(error)")
        }
    }

    // MARK: Helpers

    func requireFiles() throws(APIError) -> FileStore {
        guard let files else { throw APIError(status: 404, code: 404, "this server stores no files (no files directory)") }
        return files
    }

    func createFile(_ values: [String: Value], _ r: APIRequest) async throws -> (id: String, createdAt: Value) {
        let now = clock()
        // The server's own row: its key and url are the ones it made (checkFileKeys refuses a client's).
        let insert = try Binder.bind(try RESTReader.create(className: "_File", body: values), parameters: [], now: now)
        guard let change = try await write(insert, r, now: now).changes.first else { throw APIError.internalError("the insert created no file") }
        return (change.objectId, change.after?["createdAt"] ?? .null)
    }

    func deleteFile(_ id: String, key: String, _ r: APIRequest) async throws {
        _ = try await delete(r, className: "_File", objectIds: id)
        files?.remove(key)
    }

    /// The given type when it looks like one (`type/subtype`), else one
    /// guessed from the name's extension, else `application/octet-stream`.
    static func mimeType(_ given: String?, name: String) -> String {
        if let given, given.count <= 100, given.split(separator: "/").count == 2,
           given.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/+-.".contains($0)) }) {
            return given.lowercased()
        }
        let types = ["txt": "text/plain", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
                     "webp": "image/webp", "pdf": "application/pdf", "json": "application/json", "mp4": "video/mp4", "mp3": "audio/mpeg"]
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return name.contains(".") ? types[ext] ?? "application/octet-stream" : "application/octet-stream"
    }
}
