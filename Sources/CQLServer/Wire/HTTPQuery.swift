import CQLKit

/// The parameters of a URL query string (`a=1&b=%7B%7D`), `+` as space, as
/// strings. A name given twice keeps its last value.
enum HTTPQuery {
    static func parameters(_ query: Substring) -> [String: Value] {
        var out: [String: Value] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { continue }
            out[name] = .string(parts.count == 2 ? decode(parts[1]) ?? String(parts[1]) : "")
        }
        return out
    }

    static func decode(_ s: Substring) -> String? { RESTEmitter.percentDecoded(s, plusAsSpace: true) }
}
