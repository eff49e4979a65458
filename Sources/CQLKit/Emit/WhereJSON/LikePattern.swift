/// SQL LIKE → PCRE, as CQL.md fixes it: anchored at both ends, every regex
/// metacharacter escaped, `%` → `.*`, `_` → `.`, `[...]` kept as a class. Use
/// the result with the `s` option so `%` and `_` also match newlines.
///
/// Shared by every backend that has no LIKE of its own (where-JSON, the
/// evaluator in CQLEval, hence public) and by SQL backends whose LIKE differs
/// (case, classes).
///
/// ```swift
/// LikePattern.regex("dennis%")   // ^dennis.*\z
/// LikePattern.regex("a.b_[xy]")  // ^a\.b.[xy]\z
/// ```
///
/// The end anchor is `\z`, not `$`: PCRE's `$` also matches before a final
/// newline, and `'abc\n' like 'abc'` is false in SQL. (CQL.md writes `^...$`;
/// `\z` is what that means exactly, and MongoDB's PCRE reads it the same way.)
///
/// ```swift
/// ```
package enum LikePattern {
    /// The `$options` / flags that go with ``regex(_:)``.
    package static let options = "s"

    /// Whether `c` is special in a PCRE pattern outside a class: `\^$.|?*+()[]{}`
    /// (a switch: a `Set<UInt8>` hashed every byte of every pattern). Also
    /// how ``CanonicalPrefix`` tells a literal regexp prefix.
    static func isMetacharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "."), UInt8(ascii: "|"), UInt8(ascii: "?"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "{"), UInt8(ascii: "}"):
            return true
        default:
            return false
        }
    }

    package static func regex(_ like: String) -> String {
        if !like.utf8.contains(UInt8(ascii: "[")) { return regexWithoutClasses(like) }
        let b = Array(like.utf8)
        var out: [UInt8] = [UInt8(ascii: "^")]
        out.reserveCapacity(b.count + 8)
        var i = 0
        while i < b.count {
            let c = b[i]
            switch c {
            case UInt8(ascii: "%"):
                out.append(UInt8(ascii: "."))
                out.append(UInt8(ascii: "*"))
            case UInt8(ascii: "_"):
                out.append(UInt8(ascii: "."))
            case UInt8(ascii: "[") where classEnd(b, from: i) != nil:
                let end = classEnd(b, from: i) ?? i
                appendClass(b[(i + 1)..<end], to: &out)
                i = end
            default:
                if isMetacharacter(c) { out.append(UInt8(ascii: "\\")) }
                out.append(c)
            }
            i += 1
        }
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: "z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// ``regex(_:)`` of a pattern without `[`, where each byte maps on its
    /// own: written straight into the String's storage (a short result is
    /// a small String: no allocation at all), not through two byte arrays.
    private static func regexWithoutClasses(_ like: String) -> String {
        String(unsafeUninitializedCapacity: 2 * like.utf8.count + 3) { buffer in
            var k = 0
            func put(_ b: UInt8) {
                buffer[k] = b
                k += 1
            }
            put(UInt8(ascii: "^"))
            for c in like.utf8 {
                switch c {
                case UInt8(ascii: "%"):
                    put(UInt8(ascii: "."))
                    put(UInt8(ascii: "*"))
                case UInt8(ascii: "_"):
                    put(UInt8(ascii: "."))
                default:
                    if isMetacharacter(c) { put(UInt8(ascii: "\\")) }
                    put(c)
                }
            }
            put(UInt8(ascii: "\\"))
            put(UInt8(ascii: "z"))
            return k
        }
    }

    /// The index of the `]` closing the class opened at `start`: after an
    /// optional `^`, at least one member (a `]` right there is a member), then
    /// the next `]`. `nil` when unclosed: the `[` is then a literal.
    private static func classEnd(_ b: [UInt8], from start: Int) -> Int? {
        var j = start + 1
        if j < b.count, b[j] == UInt8(ascii: "^") { j += 1 }
        j += 1
        while j < b.count {
            if b[j] == UInt8(ascii: "]") { return j }
            j += 1
        }
        return nil
    }

    /// `[` members `]`, with the members that are special inside a PCRE class
    /// (`\`, `[`, a leading `]`) escaped; `^` first negates, `-` makes ranges.
    private static func appendClass(_ members: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        var first = true
        for (n, c) in zip(members.indices, members) {
            if n == members.startIndex, c == UInt8(ascii: "^") {
                out.append(c)
                continue
            }
            if c == UInt8(ascii: "\\") || c == UInt8(ascii: "[") || (first && c == UInt8(ascii: "]")) {
                out.append(UInt8(ascii: "\\"))
            }
            out.append(c)
            first = false
        }
        out.append(UInt8(ascii: "]"))
    }
}

extension LikePattern {
    /// A LIKE pattern matching exactly the strings that start with `prefix`
    /// when followed by `%`: LIKE has no escape character, so `%`, `_` and `[`
    /// are written as one-member classes.
    ///
    /// ```swift
    /// LikePattern.escaped("50%_off[")   // 50[%][_]off[[]
    /// ```
    package static func escaped(_ prefix: String) -> String {
        var out = ""
        for ch in prefix.unicodeScalars {
            switch ch {
            case "%": out += "[%]"
            case "_": out += "[_]"
            case "[": out += "[[]"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// The PCRE pattern (no options) of a prefix match: `^abc` when no
    /// character is special (MongoDB serves such a "prefix expression" from an
    /// index), else `^\Q...\E`.
    ///
    /// ```swift
    /// LikePattern.prefixRegex("abc")   // ^abc
    /// LikePattern.prefixRegex("a.b")   // ^\Qa.b\E
    /// ```
    package static func prefixRegex(_ prefix: String) -> String {
        "^" + (isPlainPrefix(prefix) ? prefix : TextRegex.quote(prefix))
    }

    /// Whether ``prefixRegex(_:)`` writes `prefix` as it is: letters, digits,
    /// `_`, `-` and non-ASCII only. Over the contiguous bytes (cheaper than the UTF8View's `allSatisfy`).
    static func isPlainPrefix(_ prefix: String) -> Bool {
        func plain(_ c: UInt8) -> Bool {
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c >= 0x80
        }
        if let answer = prefix.utf8.withContiguousStorageIfAvailable({ b -> Bool in
            for c in b where !plain(c) { return false }
            return true
        }) {
            return answer
        }
        return prefix.utf8.allSatisfy(plain)
    }
}
