#if PCRE2
import CPCRE2

/// A pattern compiled by libpcre2-8 (trait `PCRE2`), compiled once per plan
/// and shared.
///
/// Compiled as MongoDB compiles `$regex` (EvaluationSemantics.md): UTF mode **without**
/// UCP, so `\w \d \s \b` and POSIX classes match ASCII only (`\w` does not
/// match Hangul), `\p{L}` and friends always work, a leading `(*UCP)` turns
/// Unicode classes on, and option `i` still folds non-ASCII letters (PCRE2's
/// caseless matching in UTF mode uses Unicode case folding either way).
/// Usergrid's word matches spell their classes out (`[\p{L}\p{N}]`), so
/// they do not depend on UCP.
///
/// Sendable story: the compiled code (including its JIT code) is read-only
/// after `init` and PCRE2 documents it as safe to use from several threads at
/// once; so is the match context, which only holds the limits. What is *not*
/// shareable is the match data (the output vector), so every match takes a
/// ``RegexScratch`` owned by the caller — one per evaluation, hence one per
/// thread.
///
/// A hostile pattern cannot hang the process: the match context carries a
/// match limit and a depth limit, and exceeding either is
/// ``RegexSearchResult/tooExpensive(_:)``. JIT code runs on a small machine
/// stack; if it runs out, the match is retried with the interpreter, which is
/// bounded by the same limits.
///
/// ```swift
/// let p = try PCRE2Program("a+b", flags: RegexFlags(caseless: true), useJIT: true, limits: .default)
/// Array("xxAAB".utf8).withUnsafeBufferPointer { p.search($0, RegexScratch()) }   // .match
/// ```
final class PCRE2Program: RegexProgram, @unchecked Sendable {
    private let code: OpaquePointer
    private let matchContext: OpaquePointer
    private let jitted: Bool

    init(_ pattern: String, flags: RegexFlags, useJIT: Bool, limits: EvaluationLimits) throws(RegexCompileFailure) {
        var options: UInt32 = PCRE2_UTF
        if flags.caseless { options |= PCRE2_CASELESS }
        if flags.multiline { options |= PCRE2_MULTILINE }
        if flags.extended { options |= PCRE2_EXTENDED }
        if flags.dotAll { options |= PCRE2_DOTALL }
        var errorCode: Int32 = 0
        var errorOffset: Int = 0
        // Pass the length: a pattern may contain NUL characters.
        let bytes = Array(pattern.utf8)
        let compiled: OpaquePointer? = bytes.withUnsafeBufferPointer { buf in
            pcre2_compile_8(buf.baseAddress ?? PCRE2Program.emptySubject, buf.count, options, &errorCode, &errorOffset, nil)
        }
        guard let compiled else {
            throw .invalid(message: PCRE2Program.message(for: errorCode), offset: errorOffset)
        }
        guard let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(compiled)
            throw .invalid(message: "out of memory while compiling a regular expression", offset: 0)
        }
        pcre2_set_match_limit_8(context, limits.regexMatchLimit)
        pcre2_set_depth_limit_8(context, limits.regexDepthLimit)
        pcre2_set_heap_limit_8(context, limits.regexHeapLimitKiB)
        self.code = compiled
        self.matchContext = context
        // JIT is an optimization: when unavailable (unsupported CPU, no
        // executable memory) the interpreter gives the same answers.
        self.jitted = useJIT && pcre2_jit_compile_8(compiled, PCRE2_JIT_COMPLETE) == 0
    }

    /// Whether matching runs JIT code (else the interpreter).
    var isJITCompiled: Bool { jitted }

    /// Whether this PCRE2 build has a usable JIT compiler.
    static var jitAvailable: Bool {
        var available: UInt32 = 0
        return pcre2_config_8(UInt32(PCRE2_CONFIG_JIT), &available) >= 0 && available == 1
    }

    deinit {
        pcre2_match_context_free_8(matchContext)
        pcre2_code_free_8(code)
    }

    func search(_ subject: UnsafeBufferPointer<UInt8>, _ scratch: RegexScratch) -> RegexSearchResult {
        let rc = match(subject, scratch.pcre2.matchData)
        if rc >= 0 { return .match }  // 0 = matched, but the 1-pair vector was too small: fine
        switch rc {
        case PCRE2_ERROR_NOMATCH: return .noMatch
        case PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_JIT_STACKLIMIT: return .tooExpensive("match limit")
        case PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_HEAPLIMIT: return .tooExpensive("depth limit")
        default: return .failed(PCRE2Program.message(for: rc))
        }
    }

    /// One match attempt over valid UTF-8; PCRE2's return code.
    @inline(__always)
    private func match(_ buf: UnsafeBufferPointer<UInt8>, _ matchData: OpaquePointer?) -> Int32 {
        let base = buf.baseAddress ?? PCRE2Program.emptySubject
        if jitted {
            // pcre2_jit_match skips pcre2_match's argument checks (valid here:
            // Swift strings are valid UTF-8) and honours the same match context.
            let rc = pcre2_jit_match_8(code, base, buf.count, 0, 0, matchData, matchContext)
            if rc != PCRE2_ERROR_JIT_STACKLIMIT { return rc }
        }
        return pcre2_match_8(code, base, buf.count, 0, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, matchData, matchContext)
    }

    // A valid pointer for empty subjects (PCRE2 10.42 rejects NULL even with length 0).
    nonisolated(unsafe) private static let emptySubject: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    static func message(for code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = pcre2_get_error_message_8(code, &buffer, buffer.count)
        guard n > 0 else { return "error \(code)" }
        return String(decoding: buffer[0..<Int(n)], as: UTF8.self)
    }
}

/// PCRE2's output vector for one evaluation (``RegexScratch`` owns it). One
/// pair is enough: the evaluator only asks whether there is a match, and a
/// too-small vector still reports one (rc == 0).
final class PCRE2MatchData {
    let matchData: OpaquePointer?

    init() { matchData = pcre2_match_data_create_8(1, nil) }
    deinit { pcre2_match_data_free_8(matchData) }
}
#endif
