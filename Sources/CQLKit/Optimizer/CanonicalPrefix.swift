/// Writes every literal prefix match in one form, ``Predicate/prefix(_:_:)``,
/// which SQL backends can serve with an index range.
///
/// ```
/// name like 'abc%'                   →   prefix name "abc"   (CQL: name like 'abc%')
/// name like '50[%]%'                 →   prefix name "50%"
/// name regexp '^abc'                 →   prefix name "abc"   (where-JSON: {"$regex":"^abc"})
/// name regexp '^\Qa.b\E'             →   prefix name "a.b"
/// name regexp '^a\.b' (option s)     →   prefix name "a.b"
/// name like 'a_c%'                   stays (`_` is a wildcard)
/// name like 'abc'                    stays (anchored at the end too)
/// name regexp '(?i)^abc'             stays (case-insensitive)
/// name regexp '^abc' (option m)      stays (`^` also matches after a newline)
/// ```
///
/// Sound everywhere: `like` is anchored and case-sensitive (CQL.md): a
/// pattern of literal characters (one-member classes such as `[%]` count as
/// their character) followed by `%` only matches exactly the strings starting
/// with those characters (`%` matches any run, newlines included). A PCRE
/// pattern `^` + literal characters, with no options but `s` (which only
/// changes `.`), is found in exactly the strings starting with them (UTF
/// mode: characters are code points, so a code-point prefix is a UTF-8 byte
/// prefix). Both test a string value or the string elements of an array,
/// as the prefix predicate does.
public struct CanonicalPrefix: ConditionRule {
    public init() {}
    public var name: String { "CanonicalPrefix" }
    /// Fires only on a `like` or `regexp` that may be a literal prefix.
    public var triggers: ConditionFeatures? { .prefixPattern }
    /// A rewrite replaces a `like` / `regexp` by a `prefix` node.
    public var rewritesOnlyOnChange: Bool { true }

    public func rewrite(_ c: Condition) -> Condition? {
        // The walk offers every node: the kind first, as binding a case's
        // payload copies it out of its box.
        guard c.predicate.featureKind & (Predicate.likeKind | Predicate.regexKind) != 0 else { return nil }
        switch c.predicate {
        case .like(let path, .value(.string(let pattern))):
            return CanonicalPrefix.likePrefix(pattern).map { Condition(.prefix(path, $0), range: c.range) }
        case .regex(let path, .value(.string(let pattern)), let options) where options.utf8.allSatisfy({ $0 == UInt8(ascii: "s") }):
            return CanonicalPrefix.regexPrefix(pattern).map { Condition(.prefix(path, $0), range: c.range) }
        case .and, .or, .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near,
             .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            return nil
        }
    }

    /// The literal prefix of a LIKE pattern `literal%` (one or more `%` at
    /// the end and none elsewhere, no `_`, classes of one ASCII member).
    static func likePrefix(_ pattern: String) -> String? {
        let u = pattern.utf8
        var literal = u.endIndex
        while literal > u.startIndex, u[u.index(before: literal)] == UInt8(ascii: "%") { literal = u.index(before: literal) }
        guard literal < u.endIndex else { return nil }
        // Most patterns hold no class: the prefix is then the pattern up to
        // its `%`s, taken whole rather than byte by byte.
        let head = u[..<literal]
        if !head.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "_") }) {
            return String(Substring(head))
        }
        let b = Array(head)
        let end = b.count
        var out: [UInt8] = []
        var i = 0
        while i < end {
            let c = b[i]
            switch c {
            case UInt8(ascii: "%"), UInt8(ascii: "_"): return nil
            case UInt8(ascii: "["):
                // `[x]` with one ASCII member other than `^` is that character
                // (`[]]` too). A `[` with no `]` after it is a literal `[`
                // (LikePattern's reading); any other class is not a literal.
                if i + 2 < end, b[i + 2] == UInt8(ascii: "]"), b[i + 1] < 0x80, b[i + 1] != UInt8(ascii: "^") {
                    out.append(b[i + 1])
                    i += 3
                    continue
                }
                if b[(i + 1)...].contains(UInt8(ascii: "]")) { return nil }
                out.append(c)
            default:
                out.append(c)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The literal prefix of a PCRE pattern `^literal`: plain characters that
    /// are not special, `\` before ASCII punctuation, and `\Q...\E` quotes.
    static func regexPrefix(_ pattern: String) -> String? {
        // Most patterns hold no escape: one pass over the contiguous bytes
        // reads them, the prefix being the bytes after the `^`.
        switch pattern.utf8.withContiguousStorageIfAvailable(CanonicalPrefix.scanUnescapedRegex) ?? .escaped {
        case .prefix(let prefix): return prefix
        case .notPrefix: return nil
        case .escaped: break
        }
        let u = pattern.utf8
        guard u.first == UInt8(ascii: "^") else { return nil }
        let b = Array(u)
        var out: [UInt8] = []
        var i = 1
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\\") {
                guard i + 1 < b.count else { return nil }
                let n = b[i + 1]
                if n == UInt8(ascii: "Q") {
                    // Quoted up to `\E` or the end of the pattern.
                    var j = i + 2
                    while j < b.count, !(b[j] == UInt8(ascii: "\\") && j + 1 < b.count && b[j + 1] == UInt8(ascii: "E")) {
                        out.append(b[j])
                        j += 1
                    }
                    i = j + 2
                    continue
                }
                if n == UInt8(ascii: "E") { i += 2; continue }  // a stray `\E` is ignored by PCRE
                guard n < 0x80, !isAlphanumeric(n), n > 0x20 else { return nil }
                out.append(n)
                i += 2
                continue
            }
            if LikePattern.isMetacharacter(c) { return nil }
            out.append(c)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// What one pass over a regexp's bytes finds: its literal prefix, that
    /// it has none, or an escape (left to ``regexPrefix(_:)``'s full reading).
    private enum RegexScan { case prefix(String), notPrefix, escaped }

    private static func scanUnescapedRegex(_ b: UnsafeBufferPointer<UInt8>) -> RegexScan {
        guard b.first == UInt8(ascii: "^") else { return .notPrefix }
        for c in b.dropFirst() {
            if c == UInt8(ascii: "\\") { return .escaped }
            if LikePattern.isMetacharacter(c) { return .notPrefix }
        }
        return .prefix(String(decoding: UnsafeBufferPointer(rebasing: b.dropFirst()), as: UTF8.self))
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }
}
