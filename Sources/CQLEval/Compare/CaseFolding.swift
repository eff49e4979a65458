import CQLKit

/// Unicode simple case folding (CaseFolding.txt, statuses C and S): one code
/// point to one code point, so a folded string keeps its length in scalars.
/// It is the folding PCRE2 uses for caseless matching, so the case-insensitive
/// ranges (Usergrid's `name < 'delta'`) agree with the case-insensitive `=`
/// (`name = 'delta'`): `<=` and `>=` together match what `=` matches.
///
/// Built from the standard library's Unicode data: a scalar whose lowercase
/// mapping is a single scalar folds to it (for every letter but the few
/// below, simple folding *is* simple lowercasing); a multi-scalar lowercase
/// mapping (`İ` → `i̇`) is a full folding, which simple folding leaves alone.
/// The exceptions are the lowercase letters that fold further (`ς` → `σ`,
/// `ſ` → `s`, `µ` → `μ`, Greek symbol forms, Cyrillic small historic forms)
/// and Cherokee, whose lowercase letters fold to uppercase.
///
/// ```swift
/// CaseFolding.folded("ΣΊΣΥΦΟΣ")   // "σίσυφοσ"
/// CaseFolding.folded("Straße")    // "straße" (simple folding keeps ß)
/// ```
enum CaseFolding {
    static func folded(_ s: String) -> String {
        // ASCII fast path: most data is.
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars { out.append(folded(scalar)) }
        return String(out)
    }

    static func folded(_ c: Unicode.Scalar) -> Unicode.Scalar {
        var result = c
        if c.properties.changesWhenLowercased {
            let lower = c.properties.lowercaseMapping.unicodeScalars
            if lower.count == 1, let only = lower.first { result = only }
        }
        return exceptions[result.value].flatMap(Unicode.Scalar.init) ?? result
    }

    /// Foldings that differ from the simple lowercase mapping (applied after it).
    static let exceptions: [UInt32: UInt32] = {
        var map: [UInt32: UInt32] = [
            0x00B5: 0x03BC,  // µ micro sign → μ
            0x017F: 0x0073,  // ſ long s → s
            0x0345: 0x03B9,  // combining ypogegrammeni → ι
            0x03C2: 0x03C3,  // ς final sigma → σ
            0x03D0: 0x03B2,  // ϐ → β
            0x03D1: 0x03B8,  // ϑ → θ
            0x03D5: 0x03C6,  // ϕ → φ
            0x03D6: 0x03C0,  // ϖ → π
            0x03F0: 0x03BA,  // ϰ → κ
            0x03F1: 0x03C1,  // ϱ → ρ
            0x03F5: 0x03B5,  // ϵ → ε
            0x1E9B: 0x1E61,  // ẛ → ṡ
            0x1FBE: 0x03B9,  // ι prosgegrammeni → ι
            0x1C80: 0x0432, 0x1C81: 0x0434, 0x1C82: 0x043E, 0x1C83: 0x0441,  // Cyrillic small historic forms
            0x1C84: 0x0442, 0x1C85: 0x0442, 0x1C86: 0x044A, 0x1C87: 0x0463, 0x1C88: 0xA64B,
        ]
        // Cherokee folds to the uppercase letters: U+AB70–U+ABBF → U+13A0–U+13EF,
        // U+13F8–U+13FD → U+13F0–U+13F5 (the uppercase ones lowercase to these first).
        for v in UInt32(0xAB70)...0xABBF { map[v] = v - 0xAB70 + 0x13A0 }
        for v in UInt32(0x13F8)...0x13FD { map[v] = v - 8 }
        return map
    }()
}

/// Usergrid's case-insensitive string range (``TextMatch/rangeOperator``): a
/// string value passes when its case folding compares with the folded
/// constant as `op` says, by code point. Non-strings never pass (type
/// bracketing, as for every range).
struct FoldedRangeTest: Sendable {
    let op: ComparisonOperator
    /// The constant, already folded.
    let folded: String

    init(_ op: ComparisonOperator, _ text: String) {
        self.op = op
        folded = CaseFolding.folded(text)
    }

    /// The value passes, or it is an array with a string element that does
    /// (one level, as for every range).
    func matches(_ x: Value) -> Bool {
        switch x {
        case .string(let s): return passes(s)
        case .array(let items):
            for case .string(let s) in items where passes(s) { return true }
            return false
        default: return false
        }
    }

    func passes(_ s: String) -> Bool {
        let c = ValueOrder.compareBytes(CaseFolding.folded(s), folded)
        switch op {
        case .lessThan: return c < 0
        case .lessThanOrEqual: return c <= 0
        case .greaterThan: return c > 0
        case .greaterThanOrEqual: return c >= 0
        case .equal: return c == 0
        case .notEqual: return c != 0
        }
    }
}
