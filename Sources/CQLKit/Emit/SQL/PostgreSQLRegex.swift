/// A checked subset of PCRE2 (UTF mode, no UCP: the evaluator's and
/// MongoDB's reading) rewritten as a PostgreSQL ARE for `like_regex ... flag
/// "s"` (dot-all, so no `REG_NLSTOP`: `[^a]` matches a newline, as in PCRE).
///
/// Only what provably finds a match in the same strings is translated:
/// literal characters, `.` (without option `s`: `[^\n]`, PCRE2's default
/// newline being LF), `^`, `$` (PCRE's `$` also matches before a final
/// newline: `(?=\n?$)`), greedy quantifiers (bounds up to 255, ARE's limit),
/// alternation, capturing and `(?:` groups, classes of ASCII literals and
/// alphanumeric ranges, `\d \w \s` and their negations spelled as ASCII
/// classes, escaped punctuation and `\t \n \r \f`. Options: none or `s`.
/// Everything else (option `i`, whose non-ASCII folding differs; `m`, `x`;
/// `\b`, `\Q`, `\p`, back-references, lookaround, lazy and possessive
/// quantifiers, POSIX classes, inline options) is `nil`: `cql run` re-checks.
/// Patterns that backtrack catastrophically (a quantified group holding a
/// quantifier or `|`, more than two unbounded quantifiers) are `nil` too:
/// the evaluator stops them with "regex too expensive", which an ARE never
/// raises. (PCRE2's match limit still depends on the data; these shapes keep
/// it out of reach for the subjects the tests hold, not in general.)
///
/// ```swift
/// PostgreSQLRegex.translate("^a.c\\d+$", options: "")  // "^a[^\n]c[0-9]+(?=\n?$)"
/// PostgreSQLRegex.translate("\\bword", options: "")    // nil
/// ```
enum PostgreSQLRegex {
    static func translate(_ pattern: String, options: String) -> String? {
        guard options.isEmpty || options == "s" else { return nil }
        let dotAll = options == "s"
        let cs = Array(pattern.unicodeScalars)
        guard !cs.isEmpty else { return nil }
        var out = ""
        var i = 0
        var depth = 0
        var quantifiable = false
        // At the start of a branch: an empty branch is rejected.
        var branchStart = true
        // Catastrophic backtracking ends in the evaluator's "regex too
        // expensive" error where an ARE answers: no quantified group holding
        // a quantifier or alternation (`(a+)+`, `(a|aa)*`), and at most two
        // unbounded quantifiers.
        var complex: [Bool] = []
        var lastGroupComplex = false
        var unbounded = 0
        while i < cs.count {
            let c = cs[i]
            i += 1
            if branchStart, c == "|" || c == ")" { return nil }
            branchStart = c == "(" || c == "|"
            switch c {
            case "(":
                if i < cs.count, cs[i] == "?" {
                    guard i + 1 < cs.count, cs[i + 1] == ":" else { return nil }
                    out += "(?:"
                    i += 2
                } else {
                    guard i < cs.count, cs[i] != "*" else { return nil }
                    out += "("
                }
                depth += 1
                complex.append(false)
                quantifiable = false
            case ")":
                guard depth > 0 else { return nil }
                depth -= 1
                lastGroupComplex = complex.removeLast()
                if lastGroupComplex, !complex.isEmpty { complex[complex.count - 1] = true }
                out += ")"
                quantifiable = true
            case "|":
                if !complex.isEmpty { complex[complex.count - 1] = true }
                out += "|"
                quantifiable = false
            case "^":
                out += "^"
                quantifiable = false
            case "$":
                out += "(?=\n?$)"
                quantifiable = false
            case "*", "+", "?", "{":
                guard quantifiable else { return nil }
                if i >= 2, cs[i - 2] == ")", lastGroupComplex { return nil }
                if !complex.isEmpty { complex[complex.count - 1] = true }
                if c == "*" || c == "+" { unbounded += 1 }
                if c == "{" {
                    guard let (text, next) = bound(cs, i) else { return nil }
                    if text.hasSuffix(",}") { unbounded += 1 }
                    out += text
                    i = next
                } else {
                    out.unicodeScalars.append(c)
                }
                if unbounded > 2 { return nil }
                // Lazy and possessive forms, and a quantifier on a quantifier.
                if i < cs.count, "*+?{".unicodeScalars.contains(cs[i]) { return nil }
                quantifiable = false
            case ".":
                out += dotAll ? "." : "[^\n]"
                quantifiable = true
            case "[":
                guard let (text, next) = bracket(cs, i) else { return nil }
                out += text
                i = next
                quantifiable = true
            case "\\":
                guard i < cs.count, let text = escape(cs[i], inClass: false) else { return nil }
                out += text
                i += 1
                quantifiable = true
            case "]", "}":
                return nil
            default:
                out += literal(c)
                quantifiable = true
            }
        }
        return depth == 0 && !branchStart ? out : nil
    }

    static func isAlnum(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9")
    }

    /// A literal outside brackets: ASCII punctuation escaped (in an ARE a
    /// backslash before a non-alphanumeric is that character).
    static func literal(_ c: Unicode.Scalar) -> String {
        if c.value < 0x80, c.value >= 0x20, !isAlnum(c), c != " " { return "\\" + String(c) }
        return String(c)
    }

    static let spaces = " \t\n\u{0B}\u{0C}\r"

    /// `\x` outside (whole) or inside (members only) a class.
    static func escape(_ c: Unicode.Scalar, inClass: Bool) -> String? {
        let members: String
        var negated = false
        switch c {
        case "d": members = "0-9"
        case "w": members = "A-Za-z0-9_"
        case "s": members = spaces
        case "D": members = "0-9"; negated = true
        case "W": members = "A-Za-z0-9_"; negated = true
        case "S": members = spaces; negated = true
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        default:
            guard !inClass, c.value < 0x80, c.value > 0x20, !isAlnum(c) else { return nil }
            return "\\" + String(c)
        }
        if inClass { return negated ? nil : members }
        return "[" + (negated ? "^" : "") + members + "]"
    }

    /// `{n}`, `{n,}`, `{n,m}` from after the `{`; bounds up to 255.
    static func bound(_ cs: [Unicode.Scalar], _ start: Int) -> (String, Int)? {
        var i = start
        func number() -> Int? {
            var n = 0, digits = 0
            while i < cs.count, cs[i] >= "0", cs[i] <= "9", digits < 4 {
                n = n * 10 + Int(cs[i].value - 48)
                digits += 1
                i += 1
            }
            return digits == 0 ? nil : n
        }
        guard let low = number(), low <= 255 else { return nil }
        var text = "{\(low)"
        if i < cs.count, cs[i] == "," {
            i += 1
            text += ","
            if let high = number() {
                guard high <= 255, high >= low else { return nil }
                text += "\(high)"
            }
        }
        guard i < cs.count, cs[i] == "}" else { return nil }
        return (text + "}", i + 1)
    }

    /// A class from after the `[`: ASCII literals (not `\ [ ] ^ -`),
    /// alphanumeric ranges, `\d \w \s`; optionally negated.
    static func bracket(_ cs: [Unicode.Scalar], _ start: Int) -> (String, Int)? {
        var i = start
        var out = "["
        if i < cs.count, cs[i] == "^" {
            out += "^"
            i += 1
        }
        var empty = true
        while i < cs.count, cs[i] != "]" {
            let c = cs[i]
            if c == "\\" {
                guard i + 1 < cs.count, let members = escape(cs[i + 1], inClass: true), members.count > 1 || members == "0-9" else { return nil }
                out += members
                i += 2
            } else if i + 2 < cs.count, cs[i + 1] == "-", cs[i + 2] != "]" {
                let high = cs[i + 2]
                guard isAlnum(c), isAlnum(high), c <= high,
                    (c >= "0" && high <= "9") || (c >= "a" && high <= "z") || (c >= "A" && high <= "Z")
                else { return nil }
                out += "\(c)-\(high)"
                i += 3
            } else {
                guard c.value >= 0x20, c.value < 0x7F, !"\\[]^-".unicodeScalars.contains(c) else { return nil }
                out.unicodeScalars.append(c)
                i += 1
            }
            empty = false
        }
        guard !empty, i < cs.count else { return nil }
        return (out + "]", i + 1)
    }
}
