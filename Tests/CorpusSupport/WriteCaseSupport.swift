import CQLKit

/// Helpers shared by the write tests (the in-memory exec corpus and the
/// SQL write differential), which read the same `Corpus/exec` cases.
public enum WriteCaseSupport {
    /// The objects of a case's `docs:` / `join:` NDJSON lines (typed values
    /// decoded; blank lines skipped).
    public static func objects(_ ndjson: String?) throws -> [[String: Value]] {
        guard let ndjson else { return [] }
        return try ndjson.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.map { line in
            guard case .object(let o) = try JSONReader.parse(String(line)).decodingTypedValues() else {
                throw QueryError(.data, "not an object: \(line)")
            }
            return o
        }
    }

    /// A deterministic objectId source: `prefix1`, `prefix2`, ...
    public static func sequentialIds(_ prefix: String) -> () -> String {
        var n = 0
        return {
            n += 1
            return "\(prefix)\(n)"
        }
    }
}
