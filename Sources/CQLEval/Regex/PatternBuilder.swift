import CQLKit

/// Regular expressions the evaluator builds from non-regex predicates
/// (Usergrid text matches, full-text search), so that they run on the same
/// PCRE2 engine — and the same Unicode case folding — as `regexp`. LIKE uses
/// CQLKit's `LikePattern`, the same conversion the where-JSON emitter uses.
enum PatternBuilder {
    /// Letters and digits: what a "word" is made of (EvaluationSemantics.md).
    static let wordClass = #"[\p{L}\p{N}]"#

    /// `s` with every ASCII regex metacharacter backslash-escaped. An escaped
    /// non-alphanumeric ASCII character is always a literal in PCRE, and
    /// non-ASCII characters are never special, so this is exact.
    static func quote(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            if isMeta(ch) { out.append("\\") }
            out.unicodeScalars.append(ch)
        }
        return out
    }

    static func isMeta(_ ch: Unicode.Scalar) -> Bool {
        switch ch {
        case "\\", "^", "$", ".", "|", "?", "*", "+", "(", ")", "[", "]", "{", "}", "#", " ", "-", "/": return true
        default: return false
        }
    }

    /// A simple `$text` search: the positive terms (words, or `"quoted
    /// phrases"`) as one alternation of whole-word matches, and the negated
    /// terms (`-word`) likewise. `nil` for an empty side.
    static func fullText(_ search: String) -> (positive: String?, negative: String?) {
        var positive: [String] = []
        var negative: [String] = []
        let scalars = Array(search.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i].properties.isWhitespace {
                i += 1
                continue
            }
            var negated = false
            if scalars[i] == "-" {
                negated = true
                i += 1
            }
            var term = ""
            if i < scalars.count, scalars[i] == "\"" {
                i += 1
                while i < scalars.count, scalars[i] != "\"" {
                    term.unicodeScalars.append(scalars[i])
                    i += 1
                }
                i += 1
            } else {
                while i < scalars.count, !scalars[i].properties.isWhitespace {
                    term.unicodeScalars.append(scalars[i])
                    i += 1
                }
            }
            guard !term.isEmpty else { continue }
            if negated { negative.append(quote(term)) } else { positive.append(quote(term)) }
        }
        func alternation(_ terms: [String]) -> String? {
            terms.isEmpty ? nil : "(?<!\(wordClass))(?:" + terms.joined(separator: "|") + ")(?!\(wordClass))"
        }
        return (alternation(positive), alternation(negative))
    }
}
