/// A PCRE pattern (as the evaluator runs it: PCRE2 in UTF mode without UCP)
/// rewritten as a PostgreSQL regex (ARE) for jsonpath `like_regex ... flag
/// "s"`, for the subset whose meaning is provably the same; `nil` for
/// anything else (the SQL then prefilters and `cql run` re-checks).
///
/// The flag `s` is always given: without it PostgreSQL's negated brackets
/// (`[^x]`) stop matching a newline, which PCRE's do not. So PCRE's `.`
/// (newline excluded unless option `s`) becomes `[^\n]`; `$` (end, or before
/// a final newline) becomes `(?:\n?$)`; `\d \w \s` become their ASCII
/// brackets (MongoDB's PCRE has no UCP). Accepted: literals, escaped
/// punctuation, `.`, `^`, `$`, brackets of literals and ASCII ranges,
/// greedy and lazy quantifiers on single items, groups `( )` / `(?: )`
/// (not quantified: PCRE2's match limit would end `(a+)+$` with an error
/// where PostgreSQL answers), alternation, and the options `s` and none. Refused: `i`, `m`, `x` (case folding and line
/// anchors differ), backreferences, lookaround, `\b`, `\A`, `\z`, `\Q..\E`,
/// `\p{..}`, POSIX classes, possessive quantifiers, and anything else.
///
/// ```swift
/// PostgreSQLRegex.translate("^ab.c$", options: "")   // "^ab[^\n]c(?:\n?$)"
/// PostgreSQLRegex.translate("\\bword", options: "")  // nil
/// ```
enum PostgreSQLRegex {
    static func translate(_ pattern: String, options: String) -> String? {
        guard options.allSatisfy({ $0 == "s" }) else { return nil }
        let dotAll = options.contains("s")
        let s = Array(pattern.unicodeScalars)
        var out = ""
        var i = 0
        var depth = 0
        // Whether the previous item can take a quantifier.
        var quantifiable = false
        while i < s.count {
            let c = s[i]
            switch c {
            case "\0":
                return nil
            case "\\":
                guard i + 1 < s.count else { return nil }
                let e = s[i + 1]
                i += 2
                if let cls = escapeClass(e, inBracket: false) {
                    out += cls
                } else if isPunctuation(e) {
                    out += "\\" + String(e)
                } else {
                    return nil
                }
                quantifiable = true
                continue
            case ".":
                out += dotAll ? "." : "[^\\n]"
                quantifiable = true
            case "^":
                out += "^"
                quantifiable = false
            case "$":
                out += "(?:\\n?$)"
                quantifiable = false
            case "|":
                out += "|"
                quantifiable = false
            case "(":
                if i + 1 < s.count, s[i + 1] == "?" {
                    guard i + 2 < s.count, s[i + 2] == ":" else { return nil }
                    out += "(?:"
                    i += 3
                } else {
                    out += "("
                    i += 1
                }
                depth += 1
                quantifiable = false
                continue
            case ")":
                guard depth > 0 else { return nil }
                depth -= 1
                out += ")"
                // A quantified group is how patterns backtrack without end
                // (`(a+)+$`): PCRE2 stops at its match limit with "regex too
                // expensive" where PostgreSQL answers, so the results would
                // differ; such patterns stay with the evaluator.
                quantifiable = false
            case "[":
                guard let (bracket, next) = self.bracket(s, i) else { return nil }
                out += bracket
                i = next
                quantifiable = true
                continue
            case "*", "+", "?":
                guard quantifiable else { return nil }
                out.unicodeScalars.append(c)
                i += 1
                if i < s.count, s[i] == "?" { out += "?"; i += 1 } else if i < s.count, s[i] == "+" { return nil }
                quantifiable = false
                continue
            case "{":
                guard quantifiable, let (q, next) = quantifier(s, i) else { return nil }
                out += q
                i = next
                if i < s.count, s[i] == "?" { out += "?"; i += 1 } else if i < s.count, s[i] == "+" { return nil }
                quantifiable = false
                continue
            case "]", "}":
                return nil
            default:
                guard c.value >= 0x20 || c == "\t" || c == "\n" || c == "\r" else { return nil }
                if c == "\n" { out += "\\n" } else if c == "\t" { out += "\\t" } else if c == "\r" { out += "\\r" } else { out.unicodeScalars.append(c) }
                quantifiable = true
            }
            i += 1
        }
        return depth == 0 ? out : nil
    }

    /// ASCII punctuation, which both flavours take literally after `\`.
    static func isPunctuation(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x80 && !(c.properties.isAlphabetic || ("0"..."9").contains(c)) && c.value > 0x20
    }

    /// `\d \D \w \W \s \S \n \t \r` as ARE text; inside a bracket only the
    /// positive forms (their content).
    static func escapeClass(_ e: Unicode.Scalar, inBracket: Bool) -> String? {
        let digit = "0-9", word = "A-Za-z0-9_", space = " \\t\\n\\v\\f\\r"
        switch e {
        case "d": return inBracket ? digit : "[\(digit)]"
        case "w": return inBracket ? word : "[\(word)]"
        case "s": return inBracket ? space : "[\(space)]"
        case "D": return inBracket ? nil : "[^\(digit)]"
        case "W": return inBracket ? nil : "[^\(word)]"
        case "S": return inBracket ? nil : "[^\(space)]"
        case "n": return "\\n"
        case "t": return "\\t"
        case "r": return "\\r"
        default: return nil
        }
    }

    /// A bracket of literals, escaped punctuation, ASCII alphanumeric ranges
    /// and `\d \w \s`, optionally negated; returns the ARE text and the index
    /// after `]`.
    static func bracket(_ s: [Unicode.Scalar], _ start: Int) -> (String, Int)? {
        var i = start + 1
        var out = "["
        if i < s.count, s[i] == "^" { out += "^"; i += 1 }
        var items = 0
        var previous: Unicode.Scalar?
        while i < s.count {
            let c = s[i]
            if c == "]" && items > 0 { return (out + "]", i + 1) }
            switch c {
            case "\\":
                guard i + 1 < s.count else { return nil }
                let e = s[i + 1]
                if let cls = escapeClass(e, inBracket: true) {
                    out += cls
                    previous = nil
                } else if isPunctuation(e) {
                    out += "\\" + String(e)
                    previous = e
                } else {
                    return nil
                }
                i += 2
            case "[", "\0":
                return nil  // POSIX classes, nested brackets
            case "-":
                // A range between two ASCII alphanumerics; a leading or
                // trailing '-' is a literal in both flavours.
                if let lo = previous, i + 1 < s.count, s[i + 1] != "]" {
                    let hi = s[i + 1]
                    guard isAlnum(lo), isAlnum(hi), lo.value <= hi.value else { return nil }
                    out += "-" + String(hi)
                    previous = nil
                    i += 2
                } else {
                    out += "\\-"
                    previous = c
                    i += 1
                }
            default:
                guard c.value >= 0x20 else { return nil }
                out.unicodeScalars.append(c)
                previous = c
                i += 1
            }
            items += 1
        }
        return nil
    }

    static func isAlnum(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
    }

    /// `{n}`, `{n,}`, `{n,m}` with n ≤ m ≤ 255 (ARE's limit).
    static func quantifier(_ s: [Unicode.Scalar], _ start: Int) -> (String, Int)? {
        var i = start + 1
        func number() -> Int? {
            var n = 0, digits = 0
            while i < s.count, let d = Int(String(s[i])), ("0"..."9").contains(s[i]) {
                n = n * 10 + d
                digits += 1
                i += 1
                if digits > 3 { return nil }
            }
            return digits > 0 ? n : nil
        }
        guard let lo = number(), lo <= 255 else { return nil }
        var text = "{\(lo)"
        if i < s.count, s[i] == "," {
            i += 1
            text += ","
            if i < s.count, s[i] != "}" {
                guard let hi = number(), hi <= 255, hi >= lo else { return nil }
                text += "\(hi)"
            }
        }
        guard i < s.count, s[i] == "}" else { return nil }
        return (text + "}", i + 1)
    }
}
