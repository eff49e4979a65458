/// What one position of the Swift engine's pattern asks of one Unicode scalar
/// of the subject (the engine matches code points, as PCRE2 in UTF mode does,
/// never grapheme clusters).
enum CodePointTest: Sendable {
    case scalar(UInt32)
    /// Option `i`: equal after ``CaseFold/fold(_:)`` (holds the folded scalar).
    case caseless(UInt32)
    /// `.` with option `s`.
    case any
    /// `.` without option `s`, and `\N`: anything but LF (PCRE2's default newline).
    case notNewline
    case set(CodePointSet)

    @inline(__always)
    func matches(_ c: UInt32) -> Bool {
        switch self {
        case .scalar(let x): return c == x
        case .caseless(let x): return CaseFold.fold(c) == x
        case .any: return true
        case .notNewline: return c != 0x0A
        case .set(let s): return s.matches(c)
        }
    }

    /// A literal scalar, caseless when asked and when it may have other
    /// cases: an ASCII letter, or any non-ASCII scalar (`ß` has no one-scalar
    /// uppercase, yet `ẞ` folds to it).
    static func literal(_ c: UInt32, caseless: Bool) -> CodePointTest {
        let asciiLetter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A
        guard caseless, asciiLetter || c >= 0x80 else { return .scalar(c) }
        return .caseless(CaseFold.fold(c))
    }
}

/// A character class: `[a-z\d]`, `\w`, `\p{Lu}`, `[[:alpha:]]`, negated or not.
/// Option `i` widens its literal ranges to the other cases of a scalar (as
/// PCRE2 does); named classes (`\d`, `\p{Lu}`) are never widened, as PCRE2's
/// manual says.
struct CodePointSet: Sendable {
    var negated = false
    var caseless = false
    var ranges: [ClosedRange<UInt32>] = []
    var classes: [NamedClass] = []

    func matches(_ c: UInt32) -> Bool {
        contains(c) != negated
    }

    private func contains(_ c: UInt32) -> Bool {
        for r in ranges where r.contains(c) { return true }
        if caseless {
            for v in CaseFold.variants(c) where v != c {
                for r in ranges where r.contains(v) { return true }
            }
        }
        for k in classes where k.matches(c, caseless: caseless) { return true }
        return false
    }
}

/// A named class (`\d \w \s \h \v`, a POSIX class, a Unicode property), as
/// PCRE2 compiles it without UCP (ASCII `\d \w \s` and POSIX) or with
/// `(*UCP)` (Unicode `\d \w \s`).
struct NamedClass: Sendable {
    enum Kind: Sendable {
        case digit, word, space, horizontalSpace, verticalSpace
        case posix(String)
        /// General categories as a bit set over ``CaseFold/categoryCodes``.
        case categories(UInt32)
        /// A Unicode binary property (`\p{Alphabetic}`), by its loose name.
        case binary(String)
        case anyScalar
    }
    var kind: Kind
    var negated = false
    var ucp = false

    func matches(_ c: UInt32, caseless: Bool) -> Bool {
        holds(c, caseless: caseless) != negated
    }

    private func holds(_ c: UInt32, caseless: Bool) -> Bool {
        switch kind {
        case .digit: return ucp ? CaseFold.category(c) == 8 : (c >= 0x30 && c <= 0x39)
        case .word: return NamedClass.isWord(c, ucp: ucp)
        case .space:
            if c == 0x20 || (c >= 0x09 && c <= 0x0D) { return true }
            guard ucp else { return false }
            return NamedClass.isHorizontalSpace(c) || NamedClass.isVerticalSpace(c) || (CaseFold.categoryMask(c) & CaseFold.separators) != 0
        case .horizontalSpace: return NamedClass.isHorizontalSpace(c)
        case .verticalSpace: return NamedClass.isVerticalSpace(c)
        case .posix(let name): return NamedClass.posix(name, c, caseless: caseless)
        case .categories(let mask): return CaseFold.categoryMask(c) & mask != 0
        case .binary(let name): return CaseFold.hasBinaryProperty(name, c)
        case .anyScalar: return true
        }
    }

    /// `\w`: ASCII letters, digits and `_`; with UCP, `\p{L}`, `\p{N}` and `_`
    /// (PCRE2 10.42).
    static func isWord(_ c: UInt32, ucp: Bool) -> Bool {
        if c < 0x80 {
            return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
        }
        return ucp && CaseFold.categoryMask(c) & (CaseFold.letters | CaseFold.numbers) != 0
    }

    static func isHorizontalSpace(_ c: UInt32) -> Bool {
        switch c {
        case 0x09, 0x20, 0xA0, 0x1680, 0x180E, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    static func isVerticalSpace(_ c: UInt32) -> Bool {
        switch c {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }

    static let posixNames: Set<String> = [
        "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit",
    ]

    /// The ASCII POSIX classes (PCRE2 without UCP). With option `i`, `upper`
    /// and `lower` match letters of either case.
    static func posix(_ name: String, _ c: UInt32, caseless: Bool) -> Bool {
        guard c < 0x80 else { return false }
        let upper = c >= 0x41 && c <= 0x5A, lower = c >= 0x61 && c <= 0x7A, digit = c >= 0x30 && c <= 0x39
        switch name {
        case "alnum": return upper || lower || digit
        case "alpha": return upper || lower
        case "ascii": return true
        case "blank": return c == 0x20 || c == 0x09
        case "cntrl": return c < 0x20 || c == 0x7F
        case "digit": return digit
        case "graph": return c > 0x20 && c < 0x7F
        case "lower": return lower || (caseless && upper)
        case "print": return c >= 0x20 && c < 0x7F
        case "punct": return c > 0x20 && c < 0x7F && !(upper || lower || digit)
        case "space": return c == 0x20 || (c >= 0x09 && c <= 0x0D)
        case "upper": return upper || (caseless && lower)
        case "word": return upper || lower || digit || c == 0x5F
        case "xdigit": return digit || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
        default: return false
        }
    }
}

/// Unicode data for the Swift engine: simple case folding (what PCRE2's
/// caseless matching in UTF mode compares) and general categories, from the
/// standard library's `Unicode.Scalar.Properties`.
///
/// ```swift
/// CaseFold.fold(0x017F)                    // 0x73: ſ folds to s
/// CaseFold.categories(named: "Lu") != nil  // true; scripts such as "Han" give nil
/// ```
enum CaseFold {
    /// The scalar `c` as option `i` compares it: Unicode simple case folding
    /// (``CaseFolding``, what PCRE2's caseless matching in UTF mode uses).
    @inline(__always)
    static func fold(_ c: UInt32) -> UInt32 {
        if c < 0x80 { return c >= 0x41 && c <= 0x5A ? c + 32 : c }
        guard let s = Unicode.Scalar(c) else { return c }
        return CaseFolding.folded(s).value
    }

    /// `c`'s fold, its uppercase and its fold's uppercase (one scalar each):
    /// what a caseless class range is tested with.
    static func variants(_ c: UInt32) -> [UInt32] {
        let f = fold(c)
        var out = [f]
        if let u = upper(c) { out.append(u) }
        if let u = upper(f) { out.append(u) }
        return out
    }

    private static func upper(_ c: UInt32) -> UInt32? {
        if c < 0x80 { return c >= 0x61 && c <= 0x7A ? c - 32 : c }
        guard let s = Unicode.Scalar(c) else { return nil }
        return single(s.properties.uppercaseMapping)
    }

    private static func single(_ s: String) -> UInt32? {
        var it = s.unicodeScalars.makeIterator()
        guard let first = it.next(), it.next() == nil else { return nil }
        return first.value
    }

    /// PCRE2's two-letter general categories in the bit order of
    /// ``categoryMask(_:)``.
    static let categoryCodes = [
        "lu", "ll", "lt", "lm", "lo", "mn", "mc", "me", "nd", "nl", "no", "pc", "pd", "ps", "pe", "pi", "pf", "po",
        "sm", "sc", "sk", "so", "zs", "zl", "zp", "cc", "cf", "cs", "co", "cn",
    ]
    static let letters: UInt32 = 0b11111
    static let numbers: UInt32 = 0b111 << 8
    static let separators: UInt32 = 0b111 << 22

    /// The index of `c`'s general category in ``categoryCodes``.
    static func category(_ c: UInt32) -> Int {
        guard let s = Unicode.Scalar(c) else { return 27 }  // a surrogate (never in a Swift string)
        switch s.properties.generalCategory {
        case .uppercaseLetter: return 0
        case .lowercaseLetter: return 1
        case .titlecaseLetter: return 2
        case .modifierLetter: return 3
        case .otherLetter: return 4
        case .nonspacingMark: return 5
        case .spacingMark: return 6
        case .enclosingMark: return 7
        case .decimalNumber: return 8
        case .letterNumber: return 9
        case .otherNumber: return 10
        case .connectorPunctuation: return 11
        case .dashPunctuation: return 12
        case .openPunctuation: return 13
        case .closePunctuation: return 14
        case .initialPunctuation: return 15
        case .finalPunctuation: return 16
        case .otherPunctuation: return 17
        case .mathSymbol: return 18
        case .currencySymbol: return 19
        case .modifierSymbol: return 20
        case .otherSymbol: return 21
        case .spaceSeparator: return 22
        case .lineSeparator: return 23
        case .paragraphSeparator: return 24
        case .control: return 25
        case .format: return 26
        case .surrogate: return 27
        case .privateUse: return 28
        case .unassigned: return 29
        @unknown default: return 29
        }
    }

    @inline(__always)
    static func categoryMask(_ c: UInt32) -> UInt32 { 1 << UInt32(category(c)) }

    /// The class a PCRE2 property name (`L`, `Lu`, `L&`, `Xan`, `Alphabetic`,
    /// ...; matched loosely, as PCRE2 10.40+ does) stands for, or `nil` for
    /// the others (scripts, `Bidi_Class`, unknown names).
    static func categories(named raw: String) -> NamedClass.Kind? {
        let name = String(raw.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
        switch name {
        case "any": return .anyScalar
        case "l&", "lc": return .categories(0b111)
        case "xan": return .categories(letters | numbers)
        default: break
        }
        if name.count == 1, let first = name.first {
            var mask: UInt32 = 0
            for (i, code) in categoryCodes.enumerated() where code.first == first { mask |= 1 << UInt32(i) }
            return mask == 0 ? nil : .categories(mask)
        }
        if let i = categoryCodes.firstIndex(of: name) { return .categories(1 << UInt32(i)) }
        if let canonical = binaryAliases[name] { return .binary(canonical) }
        return nil
    }

    /// The binary properties both PCRE2 (10.40+) and the standard library
    /// know, by loose name and alias, to the name ``hasBinaryProperty(_:_:)``
    /// tests.
    static let binaryAliases: [String: String] = [
        "alphabetic": "alphabetic", "alpha": "alphabetic", "whitespace": "whitespace", "wspace": "whitespace",
        "uppercase": "uppercase", "upper": "uppercase", "lowercase": "lowercase", "lower": "lowercase",
        "math": "math", "hexdigit": "hexdigit", "hex": "hexdigit", "asciihexdigit": "asciihexdigit", "ahex": "asciihexdigit",
        "dash": "dash", "diacritic": "diacritic", "dia": "diacritic", "ideographic": "ideographic", "ideo": "ideographic",
        "defaultignorablecodepoint": "defaultignorable", "di": "defaultignorable",
        "noncharactercodepoint": "noncharacter", "nchar": "noncharacter",
    ]

    static func hasBinaryProperty(_ name: String, _ c: UInt32) -> Bool {
        guard let s = Unicode.Scalar(c) else { return false }
        let p = s.properties
        switch name {
        case "alphabetic": return p.isAlphabetic
        case "whitespace": return p.isWhitespace
        case "uppercase": return p.isUppercase
        case "lowercase": return p.isLowercase
        case "math": return p.isMath
        case "hexdigit": return p.isHexDigit
        case "asciihexdigit": return p.isASCIIHexDigit
        case "dash": return p.isDash
        case "diacritic": return p.isDiacritic
        case "ideographic": return p.isIdeographic
        case "defaultignorable": return p.isDefaultIgnorableCodePoint
        case "noncharacter": return p.isNoncharacterCodePoint
        default: return false
        }
    }
}
