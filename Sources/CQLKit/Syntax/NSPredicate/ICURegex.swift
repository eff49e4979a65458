/// ICU regular expressions (NSPredicate's `MATCHES`) checked and written as
/// PCRE: where the two read a construct the same way it is kept, where a
/// spelling differs but the meaning is the same it is rewritten (`\uhhhh`,
/// `\Uhhhhhhhh`, `\0ooo` become `\x{..}`), and an ICU-only construct is a
/// named error.
///
/// ```swift
/// try ICURegex.translate(#"caf\u00e9|t[aeiou]+"#, at: r)   // "caf\\x{00e9}|t[aeiou]+"
/// try ICURegex.translate("[[a-z]&&[^aeiou]]", at: r)      // error: ICU set operations ...
/// ```
enum ICURegex {
    /// General categories (and `Alphabetic`), which ICU and PCRE2 (10.40+)
    /// spell and mean the same.
    static let generalCategories: Set<String> = [
        "Alphabetic",
        "L", "Lu", "Ll", "Lt", "Lm", "Lo", "L&", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No",
        "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So",
        "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co", "Cn",
    ]

    static func translate(_ pattern: String, at range: SourceRange) throws(QueryError) -> String {
        func fail(_ message: String) -> QueryError {
            QueryError(.pattern, "MATCHES: \(message)", range: range)
        }
        let s = Array(pattern.unicodeScalars)
        var out = ""
        var i = 0
        // Flag scopes: ICU's `.` and `$` know more line terminators than PCRE's,
        // so outside `(?s)` / `(?m)` they are rewritten to ICU's meaning.
        var scopes: [Flags] = [Flags()]
        var inSet = false
        func hexDigits(_ from: Int, _ n: Int) -> String? {
            guard from + n <= s.count else { return nil }
            let d = String(String.UnicodeScalarView(s[from..<from + n]))
            return d.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit } ? d : nil
        }
        while i < s.count {
            let c = s[i]
            if c == "\\" {
                guard i + 1 < s.count else { throw fail("the pattern ends with a lone '\\'") }
                let e = s[i + 1]
                switch e {
                case "Q":
                    // Literal up to \E: identical in both.
                    var j = i + 2
                    while j + 1 < s.count && !(s[j] == "\\" && s[j + 1] == "E") { j += 1 }
                    let end = j + 1 < s.count ? j + 2 : s.count
                    out += String(String.UnicodeScalarView(s[i..<end]))
                    i = end
                    continue
                case "u":
                    guard let h = hexDigits(i + 2, 4) else { throw fail("\\u takes four hex digits") }
                    out += "\\x{\(h)}"
                    i += 6
                    continue
                case "U":
                    guard let h = hexDigits(i + 2, 8) else { throw fail("\\U takes eight hex digits") }
                    out += "\\x{\(h)}"
                    i += 10
                    continue
                case "0":
                    var j = i + 2
                    var v: UInt32 = 0
                    while j < s.count && j < i + 5 && s[j].value >= 0x30 && s[j].value <= 0x37 {
                        v = v * 8 + (s[j].value - 0x30)
                        j += 1
                    }
                    out += "\\x{\(String(v, radix: 16))}"
                    i = j
                    continue
                case "Z":
                    out += lineEnd
                    i += 2
                    continue
                case "d", "D":
                    // ICU's \d is \p{Nd}; the evaluator and MongoDB compile
                    // without UCP, where \d is ASCII only.
                    out += e == "d" ? #"\p{Nd}"# : #"\P{Nd}"#
                    i += 2
                    continue
                case "w", "W", "s", "S", "h", "H", "b", "B":
                    // ICU defines these classes differently from PCRE's (ASCII
                    // without UCP, other Unicode sets with it): spell out ICU's.
                    out += try classEscape(e, inSet: inSet, fail)
                    i += 2
                    continue
                case "N":
                    throw fail("\\N{NAME} (a character by name) is ICU-only; write the character or \\x{hhhh}")
                case "p", "P":
                    var name = ""
                    var j = i + 2
                    if j < s.count && s[j] == "{" {
                        j += 1
                        while j < s.count && s[j] != "}" { name.unicodeScalars.append(s[j]); j += 1 }
                        guard j < s.count else { throw fail("\\\(e){ is not closed") }
                        j += 1
                    } else if j < s.count {
                        name = String(s[j])
                        j += 1
                    }
                    guard generalCategories.contains(name) else {
                        throw fail("the property \\\(e){\(name)} is not read the same by ICU and PCRE; use a general category such as \\p{L} or \\p{Nd}")
                    }
                    out += String(String.UnicodeScalarView(s[i..<j]))
                    i = j
                    continue
                default:
                    out.unicodeScalars.append(c)
                    out.unicodeScalars.append(e)
                    i += 2
                    continue
                }
            }
            if inSet {
                if c == "[" { throw fail("a '[' inside a set (ICU's nested sets and [:class:]) is ICU-only; write the set flat, with \\p{..} for classes") }
                if (c == "&" || c == "-") && i + 1 < s.count && s[i + 1] == c {
                    throw fail("ICU set operations ('\(c)\(c)') have no PCRE form; list the characters")
                }
                if c == "]" { inSet = false }
                out.unicodeScalars.append(c)
                i += 1
                continue
            }
            switch c {
            case "[":
                inSet = true
                out.unicodeScalars.append(c)
                i += 1
                // A ']' right after '[' or '[^' is a literal in both.
                if i < s.count && s[i] == "^" { out += "^"; i += 1 }
                if i < s.count && s[i] == "]" { out += "]"; i += 1 }
                continue
            case "(":
                if i + 1 < s.count && s[i + 1] == "*" { throw fail("'(*' (PCRE verbs) is not ICU syntax") }
                var inner = scopes[scopes.count - 1]
                if i + 1 < s.count && s[i + 1] == "?", let (flags, end) = try checkGroup(s, i + 2, fail) {
                    inner.apply(flags)
                    if s[end] == ")" {
                        // `(?ims-x)`: the flags hold to the end of the enclosing group.
                        scopes[scopes.count - 1] = inner
                        out += String(String.UnicodeScalarView(s[i...end]))
                        i = end + 1
                        continue
                    }
                }
                scopes.append(inner)
            case ")":
                if scopes.count == 1 { throw fail("unbalanced ')'") }
                scopes.removeLast()
            case ".":
                if !scopes[scopes.count - 1].dotAll {
                    out += lineDot
                    i += 1
                    continue
                }
            case "$":
                if scopes[scopes.count - 1].multiline {
                    throw fail("'$' under (?m): ICU's line terminators differ from PCRE's; match the terminator explicitly")
                }
                out += lineEnd
                i += 1
                continue
            case "^":
                if scopes[scopes.count - 1].multiline {
                    throw fail("'^' under (?m): ICU's line terminators differ from PCRE's; match the terminator explicitly")
                }
            default: break
            }
            out.unicodeScalars.append(c)
            i += 1
        }
        if inSet { throw fail("a '[' set is not closed") }
        if scopes.count > 1 { throw fail("a '(' is not closed") }
        return out
    }

    /// ICU's `.` outside `(?s)`: any character but a line terminator
    /// (PCRE's `.` only excludes `\n`). ICU's terminators are U+000A–U+000D
    /// (line feed, vertical tab, form feed, carriage return), U+0085, U+2028
    /// and U+2029 (icu4c's `isLineTerminator`), so `a.b` does not match
    /// across a vertical tab or a form feed either.
    static let lineDot = #"[^\n\x0B\f\r\x{85}\x{2028}\x{2029}]"#
    /// ICU's `$` (and `\Z`) outside `(?m)`: the end, or before one line
    /// terminator at the end (`\r\n` counts as one).
    static let lineEnd = #"(?=(?:\r\n|[\n\x0B\f\r\x{85}\x{2028}\x{2029}])?\z)"#

    /// ICU's `\w` members: `[\p{Alphabetic}\p{Mark}\p{Decimal_Number}\p{Connector_Punctuation}\u200c\u200d]`.
    static let wordMembers = #"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200c}\x{200d}"#
    /// ICU's `\s` members: `[\t\n\f\r\p{Z}]` (PCRE's also has `\x0B` and U+0085).
    static let spaceMembers = #"\t\n\f\r\p{Z}"#
    /// ICU's `\h` members: `[\p{Zs}\t]`.
    static let horizontalMembers = #"\p{Zs}\t"#
    static var wordBoundary: String {
        "(?:(?<=[\(wordMembers)])(?![\(wordMembers)])|(?<![\(wordMembers)])(?=[\(wordMembers)]))"
    }
    static var notWordBoundary: String {
        "(?:(?<=[\(wordMembers)])(?=[\(wordMembers)])|(?<![\(wordMembers)])(?![\(wordMembers)]))"
    }

    /// `\w \W \s \S \h \H \b \B` with ICU's meaning, written for PCRE.
    static func classEscape(_ e: Unicode.Scalar, inSet: Bool, _ fail: (String) -> QueryError) throws(QueryError) -> String {
        let members: String
        switch e {
        case "w", "W": members = wordMembers
        case "s", "S": members = spaceMembers
        case "h", "H": members = horizontalMembers
        default:
            if inSet { throw fail("\\\(e) inside a set is not a character") }
            return e == "b" ? wordBoundary : notWordBoundary
        }
        let negated = e == "W" || e == "S" || e == "H"
        if inSet {
            if negated { throw fail("\\\(e) inside a set has no PCRE form with ICU's meaning; write the set with [^...]") }
            return members
        }
        return (negated ? "[^" : "[") + members + "]"
    }

    /// The flags in force: `s` (dot matches all) and `m` (multiline).
    struct Flags {
        var dotAll = false
        var multiline = false

        mutating func apply(_ spec: String) {
            var on = true
            for ch in spec.unicodeScalars {
                switch ch {
                case "-": on = false
                case "s": dotAll = on
                case "m": multiline = on
                default: break
                }
            }
        }
    }

    /// The ICU text of a translated pattern: ``lineDot`` and ``lineEnd``
    /// back to `.` and `$` where that translates to the same pattern (the
    /// NSPredicate formatter writes MATCHES with it).
    static func untranslate(_ pcre: String) -> String {
        var candidate = pcre
        for (pcreText, icu) in [
            (wordBoundary, #"\b"#), (notWordBoundary, #"\B"#),
            ("[^" + wordMembers + "]", #"\W"#), ("[" + wordMembers + "]", #"\w"#), (wordMembers, #"\w"#),
            ("[^" + spaceMembers + "]", #"\S"#), ("[" + spaceMembers + "]", #"\s"#),
            ("[^" + horizontalMembers + "]", #"\H"#), ("[" + horizontalMembers + "]", #"\h"#),
            (lineDot, "."), (lineEnd, "$"), (#"\p{Nd}"#, #"\d"#), (#"\P{Nd}"#, #"\D"#),
        ] {
            candidate = candidate.replacingAll(pcreText, with: icu)
        }
        if let again = try? translate(candidate, at: SourceRange(0, 0)), again == pcre { return candidate }
        return pcre
    }

    /// `(?` followed by: `:` `=` `!` `>` `#` `<=` `<!` `<name>` (nil), or
    /// flags `imsx-` and `)` or `:` (the flags and the index of that `)` / `:`).
    static func checkGroup(_ s: [Unicode.Scalar], _ j: Int, _ fail: (String) -> QueryError) throws(QueryError) -> (String, Int)? {
        guard j < s.count else { throw fail("'(?' is not complete") }
        switch s[j] {
        case ":", "=", "!", ">", "#": return nil
        case "<":
            if j + 1 < s.count, s[j + 1] == "=" || s[j + 1] == "!" || s[j + 1].properties.isAlphabetic { return nil }
            throw fail("'(?<' must start a look-behind or a named group")
        default:
            var k = j
            while k < s.count, "imsx-".unicodeScalars.contains(s[k]) { k += 1 }
            if k < s.count, k > j, s[k] == ")" || s[k] == ":" { return (String(String.UnicodeScalarView(s[j..<k])), k) }
            if k < s.count, s[k] == "w" { throw fail("the flag (?w) (ICU's word boundaries) has no PCRE form") }
            throw fail("'(?\(k < s.count ? String(s[k]) : "")' is not a group both ICU and PCRE read the same")
        }
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation in CQLKit).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
