import AsyncHTTPClient
import CQLKit
import Crypto
import Foundation

/// A LeanCloud-compatible app's REST API as `cql pull` reads it, with the
/// master key, signing every request as LeanCloud's JavaScript and Python
/// SDKs do: `X-LC-Id`, and `X-LC-Sign: md5(timestamp + masterKey),timestamp,master`
/// (the key itself is never sent). A 429, a 5xx or a failed connection is
/// tried again after 0.5, 1, 2, 4, 8 and 16 s; any other error status
/// ends the pull with LeanCloud's code and message.
///
/// ```swift
/// let api = SourceAPI(base: "https://api.example.com", appId: "...", masterKey: "...")
/// let schemas = try await api.get("/1.1/schemas")
/// ```
final class SourceAPI: Sendable {
    let base: String
    let appId: String
    let masterKey: String
    let client: HTTPClient
    /// Pauses before each retry, in seconds.
    let backoff: [Double]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(base: String, appId: String, masterKey: String, connections: Int = 4, backoff: [Double] = [0.5, 1, 2, 4, 8, 16]) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.appId = appId
        self.masterKey = masterKey
        self.backoff = backoff
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(15), read: .seconds(120)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(connections, 1)))
        configuration.decompression = .enabled(limit: .none)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async { try? await client.shutdown() }

    /// The signature headers of one request.
    func signature(timestamp: Int64) -> String {
        let digest = Insecure.MD5.hash(data: Data("\(timestamp)\(masterKey)".utf8)).map { String(format: "%02x", $0) }.joined()
        return "\(digest),\(timestamp),master"
    }

    /// `GET path?parameters`: the JSON answer (typed values decoded).
    func get(_ path: String, _ parameters: [(String, String)] = []) async throws -> Value {
        var url = base + path
        if !parameters.isEmpty {
            url += "?" + parameters.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        var attempt = 0
        while true {
            let outcome: Result<Value, Failure>
            var retry = false
            do {
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "X-LC-Id", value: appId)
                request.headers.add(name: "X-LC-Sign", value: signature(timestamp: Int64(Date().timeIntervalSince1970 * 1000)))
                request.headers.add(name: "Accept", value: "application/json")
                request.headers.add(name: "User-Agent", value: "cql-pull")
                let response = try await client.execute(request, deadline: .distantFuture)
                let body = try await response.body.collect(upTo: 256 << 20)
                let text = String(buffer: body)
                let code = Int(response.status.code)
                if code == 200 {
                    outcome = .success(try JSONReader.parse(text).decodingTypedValues())
                } else {
                    retry = code == 429 || code >= 500
                    outcome = .failure(Failure(description: "GET \(path): HTTP \(code)" + Self.apiError(text)))
                }
            } catch let e as Failure {
                outcome = .failure(e)
            } catch let e as QueryError {
                outcome = .failure(Failure(description: "GET \(path): the answer is not JSON: \(e.message)"))
            } catch {
                retry = true
                outcome = .failure(Failure(description: "GET \(path): \(FileDownloads.describe(error))"))
            }
            switch outcome {
            case .success(let v): return v
            case .failure(let f):
                guard retry, attempt < backoff.count else { throw attempt > 0 ? Failure(description: "\(f.description) (\(attempt + 1) attempts)") : f }
                try await Task.sleep(nanoseconds: UInt64(backoff[attempt] * 1e9))
                attempt += 1
            }
        }
    }

    /// ` (code N: message)` from an error body, when it is one.
    static func apiError(_ text: String) -> String {
        guard let v = try? JSONReader.parse(text), case .int(let code)? = v["code"] else { return "" }
        return " (code \(code): \(v["error"]?.stringValue ?? ""))"
    }

    /// A query parameter's percent-encoding (everything but unreserved characters).
    static func encode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let unreserved = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
            if unreserved { out.unicodeScalars.append(Unicode.Scalar(b)) } else { out += String(format: "%%%02X", b) }
        }
        return out
    }
}
