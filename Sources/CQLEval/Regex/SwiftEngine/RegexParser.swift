/// A pattern as the Swift engine understands it: PCRE2's syntax, reduced to
/// what can run with PCRE2's meaning without captures being read back.
indirect enum RegexNode: Sendable {
    case empty
    /// One scalar of the subject.
    case test(CodePointTest)
    case concat([RegexNode])
    case alternation([RegexNode])
    /// `offset`: where the quantifier is in the pattern (UTF-8 bytes), for errors.
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool, offset: Int)
    case assertion(RegexAssertion)
    case lookahead(RegexNode, negated: Bool)
    /// The top-level alternatives of a lookbehind, each of a fixed length.
    case lookbehind([RegexNode], negated: Bool)

    /// Whether the node can match without consuming a scalar (its loops then
    /// need a progress check, as PCRE2 stops a loop at an empty iteration).
    var canBeEmpty: Bool {
        switch self {
        case .test: return false
        case .concat(let nodes): return nodes.allSatisfy(\.canBeEmpty)
        case .alternation(let nodes): return nodes.contains(where: \.canBeEmpty)
        case .repetition(let body, let min, _, _, _): return min == 0 || body.canBeEmpty
        case .empty, .assertion, .lookahead, .lookbehind: return true
        }
    }

    /// The number of scalars every match consumes, or `nil` when it varies.
    var fixedLength: Int? {
        switch self {
        case .test: return 1
        case .empty, .assertion, .lookahead, .lookbehind: return 0
        case .concat(let nodes):
            var total = 0
            for n in nodes {
                guard let l = n.fixedLength else { return nil }
                total += l
            }
            return total
        case .alternation(let nodes):
            let lengths = nodes.map(\.fixedLength)
            guard let first = lengths.first ?? 0, lengths.allSatisfy({ $0 == first }) else { return nil }
            return first
        case .repetition(let body, let min, let max, _, _):
            guard max == min, let l = body.fixedLength else { return nil }
            return l * min
        }
    }
}

/// The zero-width tests. `$` and `^` use LF, PCRE2's default newline.
enum RegexAssertion: Sendable {
    case startOfSubject  // \A, ^ without m
    case endOfSubject  // \z
    case endOrBeforeFinalNewline  // \Z, $ without m
    case startOfLine  // ^ with m
    case endOfLine  // $ with m
    case wordBoundary(ucp: Bool)
    case notWordBoundary(ucp: Bool)
}

/// The Swift engine's parser of PCRE2 pattern syntax. What it cannot run with
/// PCRE2's meaning it refuses by name (``RegexCompileFailure/refused(construct:offset:)``),
/// what PCRE2 would reject it rejects (``RegexCompileFailure/invalid(message:offset:)``).
///
/// ```swift
/// try RegexParser.parse("a(?=b)", flags: RegexFlags())   // concat[a, lookahead(b)]
/// try RegexParser.parse("(a)\\1", flags: RegexFlags())   // throws refused("a backreference (\\1)", offset: 3)
/// ```
struct RegexParser {
    private struct Flags {
        var caseless, multiline, dotAll, extended: Bool
        var ucp = false
    }

    private let p: [UInt32]
    /// UTF-8 offset of each scalar of the pattern (and of its end).
    private let offsets: [Int]
    private var i = 0
    private var depth = 0
    /// Group names seen: PCRE2 rejects a duplicate (without option J).
    private var names: Set<[UInt32]> = []

    /// PCRE2's default limit on nested parentheses.
    static let maxNesting = 250

    static func parse(_ pattern: String, flags: RegexFlags) throws(RegexCompileFailure) -> RegexNode {
        var parser = RegexParser(pattern)
        var f = Flags(caseless: flags.caseless, multiline: flags.multiline, dotAll: flags.dotAll, extended: flags.extended)
        try parser.startOptions(&f)
        let node = try parser.alternation(&f)
        if parser.i < parser.p.count {
            throw parser.invalid("unmatched closing parenthesis")
        }
        return node
    }

    private init(_ pattern: String) {
        var scalars: [UInt32] = []
        var offsets: [Int] = []
        var offset = 0
        for s in pattern.unicodeScalars {
            scalars.append(s.value)
            offsets.append(offset)
            offset += UTF8.width(s)
        }
        offsets.append(offset)
        p = scalars
        self.offsets = offsets
    }

    // MARK: Errors

    private func invalid(_ message: String, at index: Int? = nil) -> RegexCompileFailure {
        .invalid(message: message, offset: offsets[min(index ?? i, p.count)])
    }

    private func refused(_ construct: String, at index: Int) -> RegexCompileFailure {
        .refused(construct: construct, offset: offsets[min(index, p.count)])
    }

    // MARK: Scanning

    private func peek(_ k: Int = 0) -> UInt32? { i + k < p.count ? p[i + k] : nil }

    private func at(_ s: String) -> Bool {
        var k = 0
        for u in s.unicodeScalars {
            guard peek(k) == u.value else { return false }
            k += 1
        }
        return true
    }

    /// Option `x`: white space and `#` comments between items are ignored.
    private mutating func skipExtended(_ f: Flags) {
        guard f.extended else { return }
        while let c = peek() {
            if RegexParser.isPatternSpace(c) {
                i += 1
            } else if c == 0x23 {  // '#' to the end of the line
                while let d = peek(), d != 0x0A { i += 1 }
            } else {
                return
            }
        }
    }

    private static func isPatternSpace(_ c: UInt32) -> Bool {
        switch c {
        case 0x09...0x0D, 0x20, 0x85, 0x200E, 0x200F, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// Leading `(*UCP)` and the start-of-pattern options that do not change a
    /// match; the others are refused.
    private mutating func startOptions(_ f: inout Flags) throws(RegexCompileFailure) {
        while at("(*") {
            let start = i
            guard let close = p[i...].firstIndex(of: 0x29) else { return }
            let name = String(String.UnicodeScalarView(p[(i + 2)..<close].compactMap(Unicode.Scalar.init)))
            guard name.allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber || $0 == "=" }), !name.isEmpty else { return }
            switch name {
            case "UCP": f.ucp = true
            case "UTF", "UTF8", "NO_AUTO_POSSESS", "NO_START_OPT", "NO_DOTSTAR_ANCHOR", "NO_JIT", "LF": break
            default:
                // Newline conventions, limits, backtracking verbs: refused.
                if ["FAIL", "F", "ACCEPT", "COMMIT", "PRUNE", "SKIP", "THEN"].contains(name) || name.hasPrefix("MARK")
                    || name.hasPrefix(":")
                {
                    return  // a backtracking verb: the item parser names it
                }
                throw refused("the start-of-pattern option (*\(name))", at: start)
            }
            i = close + 1
        }
    }

    // MARK: Structure

    private mutating func alternation(_ f: inout Flags) throws(RegexCompileFailure) -> RegexNode {
        var branches: [RegexNode] = [try sequence(&f)]
        while peek() == 0x7C {  // '|'
            i += 1
            branches.append(try sequence(&f))
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence(_ f: inout Flags) throws(RegexCompileFailure) -> RegexNode {
        var items: [RegexNode] = []
        while true {
            skipExtended(f)
            guard let c = peek(), c != 0x7C, c != 0x29 else { break }
            let start = i
            var atoms = try atom(&f)
            skipExtended(f)
            if let quantified = try quantifier(&atoms, start: start) { items.append(contentsOf: atoms); items.append(quantified) } else { items.append(contentsOf: atoms) }
        }
        return items.count == 1 ? items[0] : items.isEmpty ? .empty : .concat(items)
    }

    /// A quantifier after `atoms` (it applies to the last one), or `nil`.
    private mutating func quantifier(_ atoms: inout [RegexNode], start: Int) throws(RegexCompileFailure) -> RegexNode? {
        guard let c = peek() else { return nil }
        let at = i
        var minimum = 0, maximum: Int? = nil
        switch c {
        case 0x2A: i += 1  // *
        case 0x2B: minimum = 1; i += 1  // +
        case 0x3F: maximum = 1; i += 1  // ?
        case 0x7B:  // { — a quantifier only when well formed, else a literal
            guard let (lo, hi, length) = counted() else { return nil }
            guard lo <= 65535, (hi ?? 0) <= 65535 else { throw invalid("number too big in {} quantifier", at: at) }
            if let hi, hi < lo { throw invalid("numbers out of order in {} quantifier", at: at) }
            minimum = lo
            maximum = hi
            i += length
        default: return nil
        }
        var greedy = true
        if peek() == 0x3F {
            greedy = false
            i += 1
        } else if peek() == 0x2B {
            throw refused("a possessive quantifier (\(String(Unicode.Scalar(p[i - 1])!))+)", at: i - 1)
        }
        guard let body = atoms.popLast() else { throw invalid("quantifier does not follow a repeatable item", at: at) }
        switch body {
        case .assertion, .empty: throw invalid("quantifier does not follow a repeatable item", at: at)
        case .lookahead, .lookbehind: throw refused("a quantified assertion", at: at)
        default: break
        }
        if peek() == 0x2A || peek() == 0x2B || (peek() == 0x3F) {
            throw invalid("quantifier does not follow a repeatable item", at: i)
        }
        return .repetition(body, min: minimum, max: maximum, greedy: greedy, offset: offsets[at])
    }

    /// `{n}`, `{n,}`, `{n,m}` at `i`: (n, m or nil, length in scalars).
    private func counted() -> (Int, Int?, Int)? {
        var k = 1
        func number() -> Int? {
            var n = 0, digits = 0
            while let d = peek(k), d >= 0x30, d <= 0x39 {
                n = min(n * 10 + Int(d - 0x30), 1_000_000)
                digits += 1
                k += 1
            }
            return digits == 0 ? nil : n
        }
        guard let lo = number() else { return nil }
        if peek(k) == 0x7D { return (lo, lo, k + 1) }
        guard peek(k) == 0x2C else { return nil }
        k += 1
        if peek(k) == 0x7D { return (lo, nil, k + 1) }
        guard let hi = number(), peek(k) == 0x7D else { return nil }
        return (lo, hi, k + 1)
    }

    /// One item; several for `\Q...\E` (a quantifier applies to the last),
    /// none for an option setting or a comment.
    private mutating func atom(_ f: inout Flags) throws(RegexCompileFailure) -> [RegexNode] {
        let c = p[i]
        switch c {
        case 0x28: return try group(&f)
        case 0x5B: return [.test(.set(try characterClass(f)))]
        case 0x5C: return try escape(f)
        case 0x2E:
            i += 1
            return [.test(f.dotAll ? .any : .notNewline)]
        case 0x5E:
            i += 1
            return [.assertion(f.multiline ? .startOfLine : .startOfSubject)]
        case 0x24:
            i += 1
            return [.assertion(f.multiline ? .endOfLine : .endOrBeforeFinalNewline)]
        case 0x2A, 0x2B, 0x3F:
            throw invalid("quantifier does not follow a repeatable item")
        default:
            i += 1
            return [.test(.literal(c, caseless: f.caseless))]
        }
    }

    private mutating func group(_ f: inout Flags) throws(RegexCompileFailure) -> [RegexNode] {
        let start = i
        depth += 1
        defer { depth -= 1 }
        guard depth <= RegexParser.maxNesting else { throw invalid("parentheses are too deeply nested", at: start) }
        i += 1
        var inner = f
        func body(_ parser: inout RegexParser, _ inner: inout Flags) throws(RegexCompileFailure) -> RegexNode {
            let node = try parser.alternation(&inner)
            guard parser.peek() == 0x29 else { throw parser.invalid("missing closing parenthesis", at: start) }
            parser.i += 1
            return node
        }
        if peek() == 0x2A {  // (*VERB)
            let close = p[i...].firstIndex(of: 0x29) ?? p.count
            let name = String(String.UnicodeScalarView(p[(i + 1)..<close].compactMap(Unicode.Scalar.init)))
            throw refused("the verb (*\(name))", at: start)
        }
        guard peek() == 0x3F else { return [RegexParser.grouped(try body(&self, &inner))] }  // capturing group
        i += 1
        guard let c = peek() else { throw invalid("missing closing parenthesis", at: start) }
        switch c {
        case 0x3A, 0x7C:  // (?: and (?| (branch reset: only capture numbers differ)
            i += 1
            return [RegexParser.grouped(try body(&self, &inner))]
        case 0x23:  // (?# comment )
            while let d = peek(), d != 0x29 { i += 1 }
            guard peek() == 0x29 else { throw invalid("missing ) at end of (?# comment", at: start) }
            i += 1
            return []
        case 0x3D, 0x21:  // (?= (?!
            i += 1
            return [.lookahead(try body(&self, &inner), negated: c == 0x21)]
        case 0x3E: throw refused("an atomic group (?>...)", at: start)
        case 0x28: throw refused("a conditional group (?(...)", at: start)
        case 0x43: throw refused("a callout (?C...)", at: start)
        case 0x52, 0x26, 0x2B, 0x30...0x39: throw refused("a recursion or subroutine call (?\(String(Unicode.Scalar(c)!))...)", at: start)
        case 0x2D where peek(1).map({ $0 >= 0x30 && $0 <= 0x39 }) == true:
            throw refused("a recursion or subroutine call (?-n)", at: start)
        case 0x3C where peek(1) == 0x3D || peek(1) == 0x21:  // (?<= (?<!
            let negated = peek(1) == 0x21
            i += 2
            let node = try body(&self, &inner)
            let branches: [RegexNode]
            if case .alternation(let b) = node { branches = b } else { branches = [node] }
            for b in branches where b.fixedLength == nil {
                throw invalid("lookbehind assertion is not fixed length", at: start)
            }
            return [.lookbehind(branches, negated: negated)]
        case 0x3C, 0x27:  // (?<name> (?'name'
            try skipGroupName(close: c == 0x3C ? 0x3E : 0x27, start: start)
            return [RegexParser.grouped(try body(&self, &inner))]
        case 0x50:  // (?P<name> (?P=name) (?P>name)
            if peek(1) == 0x3C {
                i += 1
                try skipGroupName(close: 0x3E, start: start)
                return [RegexParser.grouped(try body(&self, &inner))]
            }
            if peek(1) == 0x3D { throw refused("a backreference (?P=name)", at: start) }
            throw refused("a recursion or subroutine call (?P>name)", at: start)
        default:
            return try optionSetting(&f, &inner, start: start, body: body)
        }
    }

    /// A group's contents as one item: an empty group or one assertion is
    /// wrapped, since PCRE2 lets a quantifier follow a group, never a bare
    /// assertion.
    private static func grouped(_ node: RegexNode) -> RegexNode {
        switch node {
        case .empty, .assertion: return .concat([node])
        default: return node
        }
    }

    private mutating func skipGroupName(close: UInt32, start: Int) throws(RegexCompileFailure) {
        i += 1
        let nameStart = i
        while let d = peek(), d != close {
            guard d == 0x5F || (d >= 0x30 && d <= 0x39) || (d >= 0x41 && d <= 0x5A) || (d >= 0x61 && d <= 0x7A) else {
                throw invalid("syntax error in subpattern name (missing terminator?)")
            }
            i += 1
        }
        guard peek() == close, i > nameStart, !(p[nameStart] >= 0x30 && p[nameStart] <= 0x39) else {
            throw invalid("subpattern name expected", at: nameStart)
        }
        guard names.insert(Array(p[nameStart..<i])).inserted else {
            throw invalid("two named subpatterns have the same name (PCRE2_DUPNAMES not set)", at: nameStart)
        }
        i += 1
    }

    /// `(?imsx-imsx)` (to the end of the enclosing group) or `(?imsx-imsx:...)`.
    private mutating func optionSetting(
        _ f: inout Flags, _ inner: inout Flags, start: Int,
        body: (inout RegexParser, inout Flags) throws(RegexCompileFailure) -> RegexNode
    ) throws(RegexCompileFailure) -> [RegexNode] {
        var on = true
        var changed = f
        if peek() == 0x5E {  // (?^ unsets i m n s x
            changed.caseless = false
            changed.multiline = false
            changed.dotAll = false
            changed.extended = false
            i += 1
        }
        while let c = peek() {
            switch c {
            case 0x2D: on = false
            case 0x69: changed.caseless = on
            case 0x6D: changed.multiline = on
            case 0x73: changed.dotAll = on
            case 0x78:
                if peek(1) == 0x78 { throw refused("option xx", at: i) }
                changed.extended = on
            case 0x6E, 0x4A: break  // no auto capture, duplicate names: no effect on a match
            case 0x55: throw refused("option U (ungreedy)", at: i)
            case 0x29:
                i += 1
                f = changed
                return []
            case 0x3A:
                i += 1
                var scoped = changed
                return [RegexParser.grouped(try body(&self, &scoped))]
            default:
                throw invalid("unrecognized character after (? or (?-", at: i)
            }
            i += 1
        }
        throw invalid("missing closing parenthesis", at: start)
    }

    // MARK: Escapes

    private mutating func escape(_ f: Flags) throws(RegexCompileFailure) -> [RegexNode] {
        let start = i
        i += 1
        guard let c = peek() else { throw invalid("\\ at end of pattern", at: start) }
        switch c {
        case 0x51:  // \Q ... \E
            i += 1
            var out: [RegexNode] = []
            while let d = peek() {
                if d == 0x5C, peek(1) == 0x45 {
                    i += 2
                    return out
                }
                out.append(.test(.literal(d, caseless: f.caseless)))
                i += 1
            }
            return out
        case 0x45:  // a lone \E
            i += 1
            return []
        case 0x41: i += 1; return [.assertion(.startOfSubject)]
        case 0x7A: i += 1; return [.assertion(.endOfSubject)]
        case 0x5A: i += 1; return [.assertion(.endOrBeforeFinalNewline)]
        case 0x62: i += 1; return [.assertion(.wordBoundary(ucp: f.ucp))]
        case 0x42: i += 1; return [.assertion(.notWordBoundary(ucp: f.ucp))]
        case 0x47: throw refused("\\G (the start of the match)", at: start)
        case 0x4B: throw refused("\\K (reset the match start)", at: start)
        case 0x52: throw refused("\\R (any newline sequence)", at: start)
        case 0x58: throw refused("\\X (an extended grapheme cluster)", at: start)
        case 0x43: throw refused("\\C (one code unit)", at: start)
        case 0x31...0x39, 0x67, 0x6B: throw refused("a backreference (\\\(String(Unicode.Scalar(c)!)))", at: start)
        case 0x4E where !(peek(1) == 0x7B && peek(2) == 0x55 && peek(3) == 0x2B):  // \N (not \N{U+hh}): not a newline
            i += 1
            return [.test(.notNewline)]
        default:
            if let named = try namedClass(f, start: start) {
                return [.test(.set(CodePointSet(caseless: false, classes: [named])))]
            }
            let scalar = try escapedScalar(start: start, inClass: false)
            return [.test(.literal(scalar, caseless: f.caseless))]
        }
    }

    /// `\d \D \w \W \s \S \h \H \v \V \p{..} \P{..}` at `i` (after the
    /// backslash), or `nil`.
    private mutating func namedClass(_ f: Flags, start: Int) throws(RegexCompileFailure) -> NamedClass? {
        let c = p[i]
        let kind: NamedClass.Kind
        switch c | 0x20 {
        case 0x64: kind = .digit
        case 0x77: kind = .word
        case 0x73: kind = .space
        case 0x68: kind = .horizontalSpace
        case 0x76: kind = .verticalSpace
        case 0x70: return try property(start: start)
        default: return nil
        }
        i += 1
        return NamedClass(kind: kind, negated: c < 0x60, ucp: f.ucp)
    }

    private mutating func property(start: Int) throws(RegexCompileFailure) -> NamedClass {
        var negated = p[i] == 0x50
        i += 1
        var name: String
        if peek() == 0x7B {
            guard let close = p[i...].firstIndex(of: 0x7D) else { throw invalid("malformed \\P or \\p sequence", at: start) }
            var scalars = p[(i + 1)..<close]
            if scalars.first == 0x5E {
                negated.toggle()
                scalars = scalars.dropFirst()
            }
            name = String(String.UnicodeScalarView(scalars.compactMap(Unicode.Scalar.init)))
            i = close + 1
        } else {
            guard let c = peek() else { throw invalid("malformed \\P or \\p sequence", at: start) }
            name = String(Unicode.Scalar(c)!)
            i += 1
        }
        guard let kind = CaseFold.categories(named: name) else {
            throw refused(
                "the Unicode property \\p{\(name)}: an unknown property or a script (it runs general categories, binary properties, L&, Xan and Any)",
                at: start)
        }
        return NamedClass(kind: kind, negated: negated)
    }

    /// The scalar of an escape that stands for one (`\n`, `\x{263A}`, `\.`),
    /// at `i` (after the backslash).
    private mutating func escapedScalar(start: Int, inClass: Bool) throws(RegexCompileFailure) -> UInt32 {
        let c = p[i]
        i += 1
        switch c {
        case 0x61: return 0x07
        case 0x65: return 0x1B
        case 0x66: return 0x0C
        case 0x6E: return 0x0A
        case 0x72: return 0x0D
        case 0x74: return 0x09
        case 0x62 where inClass: return 0x08
        case 0x30...0x37 where c == 0x30 || inClass:  // octal: \0, \012 (and \1.. in a class)
            var v = c - 0x30, digits = 1
            while digits < 3, let d = peek(), d >= 0x30, d <= 0x37 {
                v = v * 8 + d - 0x30
                digits += 1
                i += 1
            }
            return v
        case 0x38 where inClass, 0x39 where inClass: return c
        case 0x6F:  // \o{...}
            guard peek() == 0x7B else { throw invalid("missing opening brace after \\o", at: start) }
            return try braced(radix: 8, start: start)
        case 0x78:  // \xhh or \x{h...}
            if peek() == 0x7B { return try braced(radix: 16, start: start) }
            var v: UInt32 = 0, digits = 0
            while digits < 2, let d = peek(), let h = RegexParser.hexValue(d) {
                v = v * 16 + h
                digits += 1
                i += 1
            }
            return v
        case 0x63:  // \cX
            guard let x = peek(), x >= 0x20, x < 0x7F else { throw invalid("\\c must be followed by a printable ASCII character", at: start) }
            i += 1
            let upper = x >= 0x61 && x <= 0x7A ? x - 32 : x
            return upper ^ 0x40
        case 0x4E:  // \N{U+hhhh}
            guard peek() == 0x7B, peek(1) == 0x55, peek(2) == 0x2B else {
                throw invalid("\\N{U+dddd} is supported only in Unicode (UTF) mode", at: start)
            }
            i += 2
            return try braced(radix: 16, start: start)
        default:
            let isAlphanumeric = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            if isAlphanumeric {
                if inClass, c == 0x42 || c == 0x52 || c == 0x58 || c == 0x4E {
                    throw invalid("escape sequence is invalid in character class", at: start)
                }
                throw invalid("unrecognized character follows \\", at: start)
            }
            return c
        }
    }

    /// `{digits}` at `i` in `radix`: a scalar value.
    private mutating func braced(radix: UInt32, start: Int) throws(RegexCompileFailure) -> UInt32 {
        i += 1
        var v: UInt32 = 0, digits = 0
        while let d = peek(), d != 0x7D {
            guard let h = RegexParser.hexValue(d), h < radix else { throw invalid("non-hex character in \\x{} (closing brace missing?)", at: start) }
            v = min(v * radix + h, 0x11_0000)
            digits += 1
            i += 1
        }
        guard peek() == 0x7D, digits > 0 else { throw invalid("missing closing brace", at: start) }
        i += 1
        guard v < 0x11_0000 else { throw invalid("character code point value in \\x{} or \\o{} is too large", at: start) }
        guard !(0xD800...0xDFFF).contains(v) else { throw invalid("disallowed Unicode code point (>= 0xd800 && <= 0xdfff)", at: start) }
        return v
    }

    private static func hexValue(_ d: UInt32) -> UInt32? {
        switch d {
        case 0x30...0x39: return d - 0x30
        case 0x41...0x46: return d - 0x41 + 10
        case 0x61...0x66: return d - 0x61 + 10
        default: return nil
        }
    }

    // MARK: Classes

    private enum ClassItem {
        case scalar(UInt32)
        case named(NamedClass)
    }

    private mutating func characterClass(_ f: Flags) throws(RegexCompileFailure) -> CodePointSet {
        let start = i
        i += 1
        var set = CodePointSet(caseless: f.caseless)
        if peek() == 0x5E {
            set.negated = true
            i += 1
        }
        var first = true
        var pending: [UInt32] = []  // \Q...\E scalars not yet added
        while true {
            guard let c = peek() else { throw invalid("missing terminating ] for character class", at: start) }
            if c == 0x5D, !first {
                i += 1
                break
            }
            first = false
            guard let item = try classItem(f, &pending) else { continue }
            guard case .scalar(let lo) = item else {
                if case .named(let n) = item { set.classes.append(n) }
                if peek() == 0x2D, peek(1) != 0x5D, peek(1) != nil { throw invalid("invalid range in character class") }
                continue
            }
            // A range lo-hi, unless '-' is last.
            if peek() == 0x2D, let next = peek(1), next != 0x5D {
                i += 1
                guard let hiItem = try classItem(f, &pending) else { throw invalid("invalid range in character class") }
                guard case .scalar(let hi) = hiItem else { throw invalid("invalid range in character class") }
                guard lo <= hi else { throw invalid("range out of order in character class") }
                set.ranges.append(lo...hi)
            } else {
                set.ranges.append(lo...lo)
            }
        }
        return set
    }

    /// One member of a class at `i`, or `nil` for `\E` and an empty `\Q\E`.
    private mutating func classItem(_ f: Flags, _ pending: inout [UInt32]) throws(RegexCompileFailure) -> ClassItem? {
        if !pending.isEmpty { return .scalar(pending.removeFirst()) }
        let c = p[i]
        if c == 0x5B, let next = peek(1), next == 0x3A || next == 0x2E || next == 0x3D {
            if let posix = try posixClass(f) { return .named(posix) }
        }
        guard c == 0x5C else {
            i += 1
            return .scalar(c)
        }
        let start = i
        i += 1
        guard let e = peek() else { throw invalid("\\ at end of pattern", at: start) }
        if e == 0x51 {  // \Q...\E inside a class: literal scalars
            i += 1
            while let d = peek(), !(d == 0x5C && peek(1) == 0x45) {
                pending.append(d)
                i += 1
            }
            if peek() == 0x5C { i += 2 }
            return pending.isEmpty ? nil : .scalar(pending.removeFirst())
        }
        if e == 0x45 {
            i += 1
            return nil
        }
        if let named = try namedClass(f, start: start) { return .named(named) }
        return .scalar(try escapedScalar(start: start, inClass: true))
    }

    /// `[:alpha:]`, `[:^alpha:]` at `i`; `nil` when `[` is a literal here.
    private mutating func posixClass(_ f: Flags) throws(RegexCompileFailure) -> NamedClass? {
        let open = p[i + 1]
        var k = i + 2
        while k + 1 < p.count, !(p[k] == open && p[k + 1] == 0x5D) {
            if p[k] == 0x5D || p[k] == 0x5C || p[k] == 0x5B { return nil }
            k += 1
        }
        guard k + 1 < p.count else { return nil }
        guard open == 0x3A else { throw invalid("POSIX collating elements are not supported") }
        var scalars = p[(i + 2)..<k]
        var negated = false
        if scalars.first == 0x5E {
            negated = true
            scalars = scalars.dropFirst()
        }
        let name = String(String.UnicodeScalarView(scalars.compactMap(Unicode.Scalar.init)))
        guard NamedClass.posixNames.contains(name) else { throw invalid("unknown POSIX class name") }
        if f.ucp { throw refused("the POSIX class [:\(name):] under (*UCP)", at: i) }
        i = k + 2
        return NamedClass(kind: .posix(name), negated: negated)
    }
}
