import CQLKit

/// Regular expressions the evaluator builds from non-regex predicates (LIKE,
/// Usergrid text matches, full-text search), so that they run on the same
/// PCRE2 engine — and the same Unicode case folding — as `regexp`.
enum PatternBuilder {
    /// Letters and digits: what a "word" is made of (semantics.md).
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

    /// SQL LIKE as a regex (cql.md): anchored at both ends, `%` → `.*`,
    /// `_` → `.`, `[...]` kept as a character class (`[^...]` negates), every
    /// other character literal. Compile with option `s` (so `%` and `_` span
    /// newlines) and `PCRE2_DOLLAR_ENDONLY` (so `$` does not also match before
    /// a final newline: `'abc' like 'abc'` but not `'abc\n'`).
    static func like(_ pattern: String) -> String {
        let scalars = Array(pattern.unicodeScalars)
        var out = "^"
        var i = 0
        while i < scalars.count {
            let ch = scalars[i]
            switch ch {
            case "%": out += ".*"
            case "_": out += "."
            case "[":
                if let (cls, next) = likeClass(scalars, from: i) {
                    out += cls
                    i = next
                    continue
                }
                out += "\\["
            default:
                if isMeta(ch) { out += "\\" }
                out.unicodeScalars.append(ch)
            }
            i += 1
        }
        return out + "$"
    }

    /// A `[...]` class starting at `start`, as regex text, and the index after
    /// it; `nil` when there is no closing `]` (then `[` is a literal).
    private static func likeClass(_ s: [Unicode.Scalar], from start: Int) -> (String, Int)? {
        var j = start + 1
        var out = "["
        if j < s.count, s[j] == "^" {
            out += "^"
            j += 1
        }
        var first = true
        while j < s.count {
            let ch = s[j]
            // A `]` right after `[` or `[^` is a member, as in regex classes.
            if ch == "]" && !first { return (out + "]", j + 1) }
            // Inside a class only `\`, `[` (POSIX classes) and `]` are special.
            if ch == "\\" || ch == "[" || ch == "]" { out += "\\" }
            out.unicodeScalars.append(ch)
            first = false
            j += 1
        }
        return nil
    }

    /// Usergrid's text matches (usergrid.md) with their compile options. They
    /// use PCRE2 caseless matching in UCP mode, which is Unicode simple case
    /// folding. `\A`/`\z` anchor at the true ends of the value.
    static func text(_ match: TextMatch, _ text: String) -> (pattern: String, options: String) {
        switch match {
        case .equalsIgnoringCase:
            return (#"\A"# + quote(text) + #"\z"#, "i")
        case .wildcard:
            let pieces = text.split(separator: "*", omittingEmptySubsequences: false).map { quote(String($0)) }
            return (#"\A"# + pieces.joined(separator: ".*") + #"\z"#, "is")
        case .word:
            return ("(?<!\(wordClass))" + quote(text) + "(?!\(wordClass))", "i")
        case .wordPrefix:
            return ("(?<!\(wordClass))" + quote(text), "i")
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
