/// Regexes that only ask how a string starts: `^abc`, `^(al|ca)`,
/// `^(?:al|ca)`. The planner tests these as byte prefixes of the string's
/// UTF-8 instead of running PCRE2 (the common "starts with" regex costs a
/// JIT call per string otherwise).
///
/// The recognized form gives exactly PCRE2's answer under the evaluator's
/// compile flags (``PCRE2Program``: UTF mode, no UCP, no options):
/// - `^` without option `m` matches only at the start of the subject;
/// - a character that is not a metacharacter matches itself, case-sensitively,
///   and in UTF mode a run of them matches exactly the subject's code points,
///   that is, its UTF-8 bytes (UTF-8 is prefix-free, so a byte prefix that is
///   whole characters is a prefix of whole characters);
/// - alternatives are tried in turn, so the pattern matches when any prefix
///   does; an empty alternative matches every string.
///
/// Anything else (an escape, a class, a quantifier, an inline option such as
/// `(?i)`, a verb such as `(*UCP)`, any option but `s`, which only changes
/// `.`) is left to PCRE2. LiteralPrefixPatternTests compares both engines.
///
/// ```swift
/// LiteralPrefixPattern.prefixes("^(al|ca)", options: "")   // [[97, 108], [99, 97]]
/// LiteralPrefixPattern.prefixes("^a.c", options: "")       // nil
/// LiteralPrefixPattern.prefixes("^al", options: "i")       // nil
/// ```
enum LiteralPrefixPattern {
    /// The byte prefixes one of which a string must start with to match
    /// `pattern`, or `nil` when the pattern is not of the recognized form.
    static func prefixes(_ pattern: String, options: String) -> [[UInt8]]? {
        guard options.utf8.allSatisfy({ $0 == UInt8(ascii: "s") }) else { return nil }
        var bytes = pattern.utf8[...]
        guard bytes.first == UInt8(ascii: "^") else { return nil }
        bytes = bytes.dropFirst()
        if bytes.first != UInt8(ascii: "(") { return literal(bytes).map { [$0] } }
        guard bytes.last == UInt8(ascii: ")") else { return nil }
        var body = bytes.dropFirst().dropLast()
        if body.starts(with: "?:".utf8) { body = body.dropFirst(2) }
        var result: [[UInt8]] = []
        for alternative in body.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false) {
            guard let text = literal(alternative) else { return nil }
            result.append(text)
        }
        return result
    }

    /// The bytes of a run of characters that each match themselves, or `nil`
    /// when the run holds a metacharacter. `]` and `}` are literal to PCRE2
    /// in this position, but are refused too, to keep the rule obvious.
    private static func literal(_ bytes: Substring.UTF8View) -> [UInt8]? {
        for b in bytes where metacharacters.contains(b) { return nil }
        return Array(bytes)
    }

    private static let metacharacters: Set<UInt8> = Set(#"\^$.[]|()?*+{}"#.utf8)
}
