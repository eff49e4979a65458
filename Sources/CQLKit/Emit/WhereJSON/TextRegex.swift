/// Usergrid's case-insensitive text matches as PCRE patterns (UsergridQL.md,
/// "Meaning"): the
/// user's text is quoted with `\Q…\E`, so no character of it is special.
/// Used by the where-JSON emitter (`$regex` + `$options`), the CQL formatter
/// (`regexp '(?i)…'`) and the evaluator, so every backend runs the same pattern.
/// Whole-value matches end in `\z`, not `$` (which also matches before a final
/// newline): `'blue\n'` is not `'blue'`.
///
/// ```swift
/// TextRegex.regex(.equalsIgnoringCase, "Morgan")  // ("^\\QMorgan\\E\\z", "i")
/// TextRegex.regex(.wildcard, "Mo*n*")             // ("^\\QMo\\E.*\\Qn\\E.*\\z", "is")
/// TextRegex.regex(.word, "blue")                  // ("(?<![\\p{L}\\p{N}])\\Qblue\\E(?![\\p{L}\\p{N}])", "i")
/// ```
package enum TextRegex {
    /// Not preceded / followed by a letter or digit: the edges of a word
    /// (words are maximal runs of letters and digits, EvaluationSemantics.md).
    static let wordStart = #"(?<![\p{L}\p{N}])"#
    static let wordEnd = #"(?![\p{L}\p{N}])"#

    /// `\Q` text `\E`; a `\E` inside the text ends the quote, so it is written
    /// `\E\\E\Q` (close, a literal `\E`, reopen).
    static func quote(_ text: String) -> String {
        let b = Array(text.utf8)
        var out: [UInt8] = Array(#"\Q"#.utf8)
        out.reserveCapacity(b.count + 4)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "\\"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "E") {
                out += Array(#"\E\\E\Q"#.utf8)
                i += 2
            } else {
                out.append(b[i])
                i += 1
            }
        }
        out += Array(#"\E"#.utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// The pattern and options of `match` against `text`. For `.wildcard` the
    /// text holds the `*`s; for `.wordPrefix` it is the prefix without its `*`.
    /// `nil` for the case-insensitive ranges (``TextMatch/rangeOperator``),
    /// which no regex expresses: callers name them in an error (or, in the
    /// evaluator, compare case-folded strings).
    package static func regex(_ match: TextMatch, _ text: String) -> (pattern: String, options: String)? {
        switch match {
        case .lessThanIgnoringCase, .lessThanOrEqualIgnoringCase, .greaterThanIgnoringCase, .greaterThanOrEqualIgnoringCase:
            return nil
        case .equalsIgnoringCase:
            return ("^" + quote(text) + #"\z"#, "i")
        case .wildcard:
            let pieces = text.split(separator: "*", omittingEmptySubsequences: false)
            let body = pieces.map { $0.isEmpty ? "" : quote(String($0)) }.joined(separator: ".*")
            return ("^" + body + #"\z"#, "is")
        case .word:
            return (wordStart + quote(text) + wordEnd, "i")
        case .wordPrefix:
            return (wordStart + quote(text), "i")
        }
    }

    /// The error for a case-insensitive range in a backend that has no way to
    /// say it (where-JSON, CQL): it names the comparison and the way out.
    package static func rangeUnsupported(
        _ path: FieldPath, _ match: TextMatch, _ text: String, target: String, range: SourceRange?
    ) -> QueryError {
        let op = match.rangeOperator?.rawValue ?? "?"
        return QueryError(
            .unsupported,
            "Usergrid's case-insensitive string range (\(path.dotted) \(op) \(UsergridWriter.quoted(text))) cannot be expressed in \(target); the literal option makes Usergrid's string ranges case-sensitive",
            range: range)
    }
}
