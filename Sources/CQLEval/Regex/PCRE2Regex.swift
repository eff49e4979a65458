import CPCRE2
import CQLKit

/// A compiled PCRE2 pattern, compiled once per plan and shared.
///
/// Compiled as MongoDB compiles `$regex` (semantics.md): UTF mode **without**
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
/// match limit and a depth limit, and exceeding either is a `.pattern` error
/// ("regex too expensive: ... exceeded its match limit"). JIT code runs on a small
/// machine stack; if it runs out, the match is retried with the interpreter,
/// which is bounded by the same limits.
final class PCRE2Regex: @unchecked Sendable {
    let pattern: String
    let options: String
    /// Where the predicate is in the query text; match-time errors point here.
    let range: SourceRange?
    private let code: OpaquePointer
    private let matchContext: OpaquePointer
    private let jitted: Bool

    /// Whether subjects (and the pattern) are matched with diacritics folded
    /// away: option `d`, NSPredicate's `[d]`.
    let foldsDiacritics: Bool

    /// Compiles `pattern` with `options` drawn from `i m x s`, and `d`
    /// (diacritic-insensitive: pattern and subject are compared with their
    /// diacritics folded away, as NSPredicate's `[d]`).
    ///
    /// - Parameters:
    ///   - range: where the pattern is in the query text, for errors.
    ///   - useJIT: `false` forces the interpreter (tests cover both engines).
    ///   - limits: the match, depth and heap limits (``EvaluationLimits``).
    init(
        pattern: String, options: String, range: SourceRange? = nil, useJIT: Bool = true, limits: EvaluationLimits = .default
    ) throws(QueryError) {
        var flags: UInt32 = PCRE2_UTF
        var folds = false
        for ch in options.unicodeScalars {
            switch ch {
            case "d": folds = true
            case "i": flags |= PCRE2_CASELESS
            case "m": flags |= PCRE2_MULTILINE
            case "x": flags |= PCRE2_EXTENDED
            case "s": flags |= PCRE2_DOTALL
            default:
                throw QueryError(.pattern, "unknown regular expression option '\(ch)'; only i, m, x and s are allowed", range: range)
            }
        }
        let pattern = folds ? DiacriticFolding.fold(pattern) : pattern
        var errorCode: Int32 = 0
        var errorOffset: Int = 0
        // Pass the length: a pattern may contain NUL characters.
        let bytes = Array(pattern.utf8)
        let compiled: OpaquePointer? = bytes.withUnsafeBufferPointer { buf in
            pcre2_compile_8(buf.baseAddress ?? PCRE2Regex.emptySubject, buf.count, flags, &errorCode, &errorOffset, nil)
        }
        guard let compiled else {
            throw QueryError(
                .pattern,
                "invalid regular expression '\(pattern)' at offset \(errorOffset): \(PCRE2Regex.message(for: errorCode))",
                range: range)
        }
        guard let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(compiled)
            throw QueryError(.limit, "out of memory while compiling a regular expression", range: range)
        }
        pcre2_set_match_limit_8(context, limits.regexMatchLimit)
        pcre2_set_depth_limit_8(context, limits.regexDepthLimit)
        pcre2_set_heap_limit_8(context, limits.regexHeapLimitKiB)
        self.pattern = pattern
        self.options = options
        self.range = range
        self.foldsDiacritics = folds
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

    /// Whether the pattern is found anywhere in `subject`.
    ///
    /// - Throws: `.pattern` when the match or depth limit is exceeded.
    func firstMatch(in subject: String, scratch: RegexScratch) throws(QueryError) -> Bool {
        let subject = foldsDiacritics ? DiacriticFolding.fold(subject) : subject
        // Native strings (all strings on Linux) are contiguous UTF-8, small
        // ones included: no copy. The fallback copies.
        let rc = subject.utf8.withContiguousStorageIfAvailable { match($0, scratch) }
            ?? Array(subject.utf8).withUnsafeBufferPointer { match($0, scratch) }
        if rc >= 0 { return true }  // 0 = matched, but the 1-pair vector was too small: fine
        if rc == PCRE2_ERROR_NOMATCH { return false }
        switch rc {
        case PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_JIT_STACKLIMIT:
            throw QueryError(.pattern, "regex too expensive: '\(pattern)' exceeded its match limit", range: range)
        case PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_HEAPLIMIT:
            throw QueryError(.pattern, "regex too expensive: '\(pattern)' exceeded its depth limit", range: range)
        default:
            throw QueryError(.pattern, "regular expression '\(pattern)' failed: \(PCRE2Regex.message(for: rc))", range: range)
        }
    }

    /// One match attempt over valid UTF-8; PCRE2's return code.
    @inline(__always)
    private func match(_ buf: UnsafeBufferPointer<UInt8>, _ scratch: RegexScratch) -> Int32 {
        let base = buf.baseAddress ?? PCRE2Regex.emptySubject
        if jitted {
            // pcre2_jit_match skips pcre2_match's argument checks (valid here:
            // Swift strings are valid UTF-8) and honours the same match context.
            let rc = pcre2_jit_match_8(code, base, buf.count, 0, 0, scratch.matchData, matchContext)
            if rc != PCRE2_ERROR_JIT_STACKLIMIT { return rc }
        }
        return pcre2_match_8(code, base, buf.count, 0, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, scratch.matchData, matchContext)
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

/// Per-evaluation match data for ``PCRE2Regex``. Not thread-safe: create one
/// per evaluation (it is cheap) and do not share it across threads.
final class RegexScratch {
    // One ovector pair is enough: the evaluator only asks whether there is a
    // match, and a too-small vector still reports one (rc == 0).
    let matchData: OpaquePointer?

    init() { matchData = pcre2_match_data_create_8(1, nil) }
    deinit { pcre2_match_data_free_8(matchData) }
}
