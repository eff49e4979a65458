/// The pure-Swift regex engine: PCRE2's syntax and meaning for the subset it
/// parses (``RegexParser``), compiled to a small backtracking machine over the
/// subject's Unicode scalars. It serves every regex of a build without trait
/// `PCRE2`; in the default build the differential tests hold it to PCRE2.
///
/// Why not the standard library's `Regex`: it has no step budget (a
/// catastrophic pattern would hang a device), its `\b` and case folding are
/// not PCRE2's, and what it accepts is not what PCRE2 accepts; a matcher of
/// our own makes every difference a decision we can name and test.
///
/// The budget: every backtracking point counts against
/// ``EvaluationLimits/regexMatchLimit`` (PCRE2's match limit counts
/// similarly), and the backtracking stack against
/// ``EvaluationLimits/regexHeapLimitKiB``; running out is "regex too
/// expensive", as with PCRE2.
///
/// ```swift
/// let p = try SwiftRegexProgram("(?i)straße$", flags: RegexFlags(), limits: .default)
/// Array("STRASSE".utf8).withUnsafeBufferPointer { p.search($0, RegexScratch()) }   // .noMatch (simple folding, as PCRE2)
/// ```
final class SwiftRegexProgram: RegexProgram {
    enum Instruction: Sendable {
        /// One scalar passing `tests[i]`.
        case test(Int)
        /// A run of scalars passing `tests[test]`, backtracked one at a time.
        case repeatOne(test: Int, min: Int, max: Int, greedy: Bool)
        /// Go on at `prefer`; on failure, at `other`.
        case split(prefer: Int, other: Int)
        case jump(Int)
        /// registers[r] = position (restored on backtracking).
        case mark(Int)
        /// Fails unless the loop iteration since `mark(r)` consumed something.
        case progress(Int)
        case assert(RegexAssertion)
        case look(Int)
        case match
    }

    /// A lookaround: its branches (one for a lookahead), each with the number
    /// of scalars it looks back and where its program starts.
    struct Look: Sendable {
        var behind: Bool
        var negated: Bool
        var branches: [(length: Int, start: Int)]
    }

    let code: [Instruction]
    let tests: [CodePointTest]
    let looks: [Look]
    let registerCount: Int
    /// The pattern can only match at the subject's start (`^`, `\A` first).
    let anchored: Bool
    private let matchLimit: Int
    private let maxStack: Int

    /// Programs beyond this many instructions (counted repetitions multiply)
    /// are refused rather than built.
    static let maxInstructions = 100_000

    init(_ pattern: String, flags: RegexFlags, limits: EvaluationLimits) throws(RegexCompileFailure) {
        let tree = try RegexParser.parse(pattern, flags: flags)
        var compiler = Compiler()
        try compiler.program(tree)
        code = compiler.code
        tests = compiler.tests
        looks = compiler.looks
        registerCount = compiler.registers
        anchored = SwiftRegexProgram.isAnchored(tree)
        matchLimit = Int(limits.regexMatchLimit)
        maxStack = max(1024, Int(limits.regexHeapLimitKiB) * 1024 / MemoryLayout<Backtrack>.stride)
    }

    private static func isAnchored(_ node: RegexNode) -> Bool {
        switch node {
        case .assertion(.startOfSubject): return true
        case .concat(let nodes): return nodes.first.map(isAnchored) ?? false
        case .alternation(let nodes): return nodes.allSatisfy(isAnchored)
        default: return false
        }
    }

    func search(_ subject: UnsafeBufferPointer<UInt8>, _ scratch: RegexScratch) -> RegexSearchResult {
        var m = scratch.machine
        scratch.machine = RegexMachineMemory()  // keep the buffers uniquely referenced while running
        defer { scratch.machine = m }
        m.load(subject, registers: registerCount)
        m.steps = 0
        do throws(BudgetExceeded) {
            let n = m.subject.count
            for start in 0...n {
                if try run(0, start, &m) != nil { return .match }
                if anchored { break }
            }
            return .noMatch
        } catch {
            return .tooExpensive(error.limit)
        }
    }

    struct BudgetExceeded: Error {
        var limit: String
    }

    enum Backtrack {
        case resume(pc: Int, pos: Int)
        case restore(register: Int, value: Int)
        /// A greedy run may give back scalars down to `low`.
        case greedy(pc: Int, low: Int, pos: Int)
        /// A lazy run may take `left` more scalars passing `test`.
        case lazy(pc: Int, pos: Int, left: Int, test: Int)
    }

    /// Runs the program from `pc` at `pos`: the end position of the first
    /// match, or `nil`.
    private func run(_ startPC: Int, _ startPos: Int, _ m: inout RegexMachineMemory) throws(BudgetExceeded) -> Int? {
        let base = m.stack.count
        defer { m.stack.removeSubrange(base...) }
        var pc = startPC, pos = startPos
        let n = m.subject.count
        while true {
            var ok = true
            switch code[pc] {
            case .test(let t):
                if pos < n, tests[t].matches(m.subject[pos]) {
                    pos += 1
                    pc += 1
                } else {
                    ok = false
                }
            case .repeatOne(let t, let lo, let hi, let greedy):
                let test = tests[t]
                var count = 0
                let limit = greedy ? hi : lo
                while count < limit, pos + count < n, test.matches(m.subject[pos + count]) { count += 1 }
                if count < lo {
                    ok = false
                } else {
                    if greedy, count > lo {
                        try push(.greedy(pc: pc + 1, low: pos + lo, pos: pos + count), &m)
                    } else if !greedy, hi > lo {
                        try push(.lazy(pc: pc + 1, pos: pos + lo, left: hi - lo, test: t), &m)
                    }
                    pos += count
                    pc += 1
                }
            case .split(let prefer, let other):
                try push(.resume(pc: other, pos: pos), &m)
                pc = prefer
            case .jump(let target):
                pc = target
            case .mark(let r):
                try push(.restore(register: r, value: m.registers[r]), &m)
                m.registers[r] = pos
                pc += 1
            case .progress(let r):
                if pos > m.registers[r] { pc += 1 } else { ok = false }
            case .assert(let a):
                if holds(a, pos, m.subject) { pc += 1 } else { ok = false }
            case .look(let l):
                let look = looks[l]
                var found = false
                for branch in look.branches {
                    let from = look.behind ? pos - branch.length : pos
                    guard from >= 0 else { continue }
                    if try run(branch.start, from, &m) != nil {
                        found = true
                        break
                    }
                }
                if found != look.negated { pc += 1 } else { ok = false }
            case .match:
                return pos
            }
            if ok { continue }
            // Backtrack to the most recent choice.
            var resumed = false
            while m.stack.count > base, !resumed {
                switch m.stack.removeLast() {
                case .resume(let p, let q):
                    pc = p
                    pos = q
                    resumed = true
                case .restore(let r, let v):
                    m.registers[r] = v
                case .greedy(let p, let low, let q):
                    try count(&m)
                    if q - 1 > low { m.stack.append(.greedy(pc: p, low: low, pos: q - 1)) }
                    pc = p
                    pos = q - 1
                    resumed = true
                case .lazy(let p, let q, let left, let t):
                    try count(&m)
                    if q < n, tests[t].matches(m.subject[q]) {
                        if left > 1 { m.stack.append(.lazy(pc: p, pos: q + 1, left: left - 1, test: t)) }
                        pc = p
                        pos = q + 1
                        resumed = true
                    }
                }
            }
            if !resumed { return nil }
        }
    }

    @inline(__always)
    private func count(_ m: inout RegexMachineMemory) throws(BudgetExceeded) {
        m.steps += 1
        if m.steps > matchLimit { throw BudgetExceeded(limit: "match limit") }
    }

    @inline(__always)
    private func push(_ entry: Backtrack, _ m: inout RegexMachineMemory) throws(BudgetExceeded) {
        if case .restore = entry {} else { try count(&m) }
        if m.stack.count >= maxStack { throw BudgetExceeded(limit: "depth limit") }
        m.stack.append(entry)
    }

    private func holds(_ a: RegexAssertion, _ pos: Int, _ s: [UInt32]) -> Bool {
        let n = s.count
        switch a {
        case .startOfSubject: return pos == 0
        case .endOfSubject: return pos == n
        case .endOrBeforeFinalNewline: return pos == n || (pos == n - 1 && s[pos] == 0x0A)
        case .startOfLine: return pos == 0 || (pos < n && s[pos - 1] == 0x0A)
        case .endOfLine: return pos == n || s[pos] == 0x0A
        case .wordBoundary(let ucp), .notWordBoundary(let ucp):
            let before = pos > 0 && NamedClass.isWord(s[pos - 1], ucp: ucp)
            let after = pos < n && NamedClass.isWord(s[pos], ucp: ucp)
            if case .wordBoundary = a { return before != after }
            return before == after
        }
    }

    /// Turns the tree into instructions: the main program first, then each
    /// lookaround's branches as programs of their own.
    private struct Compiler {
        var code: [Instruction] = []
        var tests: [CodePointTest] = []
        var looks: [Look] = []
        var registers = 0
        private var pending: [(look: Int, branches: [RegexNode])] = []

        mutating func program(_ tree: RegexNode) throws(RegexCompileFailure) {
            try emit(tree)
            code.append(.match)
            while let (look, branches) = pending.popLast() {
                for b in branches {
                    looks[look].branches.append((b.fixedLength ?? 0, code.count))
                    try emit(b)
                    code.append(.match)
                }
            }
        }

        private mutating func emit(_ node: RegexNode) throws(RegexCompileFailure) {
            switch node {
            case .empty: break
            case .test(let t):
                tests.append(t)
                code.append(.test(tests.count - 1))
            case .concat(let nodes):
                for n in nodes { try emit(n) }
            case .alternation(let branches):
                var exits: [Int] = []
                for (k, b) in branches.enumerated() {
                    if k == branches.count - 1 {
                        try emit(b)
                    } else {
                        let split = code.count
                        code.append(.match)  // patched below
                        try emit(b)
                        exits.append(code.count)
                        code.append(.match)  // patched below
                        code[split] = .split(prefer: split + 1, other: code.count)
                    }
                }
                for e in exits { code[e] = .jump(code.count) }
            case .repetition(let body, let lo, let hi, let greedy, let offset):
                try repetition(body, lo, hi, greedy, offset)
            case .assertion(let a):
                code.append(.assert(a))
            case .lookahead(let body, let negated):
                looks.append(Look(behind: false, negated: negated, branches: []))
                pending.append((looks.count - 1, [body]))
                code.append(.look(looks.count - 1))
            case .lookbehind(let branches, let negated):
                looks.append(Look(behind: true, negated: negated, branches: []))
                pending.append((looks.count - 1, branches))
                code.append(.look(looks.count - 1))
            }
            if code.count > SwiftRegexProgram.maxInstructions {
                throw .refused(construct: "a pattern this large (counted repetitions expand beyond \(SwiftRegexProgram.maxInstructions) instructions)", offset: 0)
            }
        }

        private mutating func repetition(_ body: RegexNode, _ lo: Int, _ hi: Int?, _ greedy: Bool, _ offset: Int) throws(RegexCompileFailure) {
            if case .test(let t) = body {
                tests.append(t)
                code.append(.repeatOne(test: tests.count - 1, min: lo, max: hi ?? Int.max, greedy: greedy))
                return
            }
            for _ in 0..<lo {
                try emit(body)
                if code.count > SwiftRegexProgram.maxInstructions {
                    throw .refused(construct: "a repetition this large (it expands beyond \(SwiftRegexProgram.maxInstructions) instructions)", offset: offset)
                }
            }
            if let hi {
                var splits: [Int] = []
                for _ in lo..<hi {
                    splits.append(code.count)
                    code.append(.match)  // patched below
                    try emit(body)
                    if code.count > SwiftRegexProgram.maxInstructions {
                        throw .refused(construct: "a repetition this large (it expands beyond \(SwiftRegexProgram.maxInstructions) instructions)", offset: offset)
                    }
                }
                let exit = code.count
                for s in splits { code[s] = greedy ? .split(prefer: s + 1, other: exit) : .split(prefer: exit, other: s + 1) }
                return
            }
            let loop = code.count
            code.append(.match)  // patched below
            let checked = body.canBeEmpty
            let register = registers
            if checked {
                registers += 1
                code.append(.mark(register))
            }
            try emit(body)
            if checked { code.append(.progress(register)) }
            code.append(.jump(loop))
            let exit = code.count
            code[loop] = greedy ? .split(prefer: loop + 1, other: exit) : .split(prefer: exit, other: loop + 1)
        }
    }
}

/// The Swift engine's working memory for one evaluation (``RegexScratch``
/// holds it): the subject as scalars, the backtracking stack, the loop
/// registers and the step count, reused from match to match.
struct RegexMachineMemory {
    var subject: [UInt32] = []
    var stack: [SwiftRegexProgram.Backtrack] = []
    var registers: [Int] = []
    var steps = 0

    mutating func load(_ bytes: UnsafeBufferPointer<UInt8>, registers count: Int) {
        subject.removeAll(keepingCapacity: true)
        var it = bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let s) = decoder.decode(&it) { subject.append(s.value) }
        stack.removeAll(keepingCapacity: true)
        registers = Array(repeating: -1, count: count)
    }
}
