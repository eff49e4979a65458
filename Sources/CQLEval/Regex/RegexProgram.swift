/// The seam between the evaluator and a regex engine: compile a pattern with
/// its flags and limits once, then ask of UTF-8 subjects whether it matches
/// somewhere. Two engines sit behind it: PCRE2 (trait `PCRE2`, the default
/// build) and ``SwiftRegexProgram``, pure Swift, which serves every regex when
/// the package is built with `--disable-default-traits` (no libpcre2: iOS,
/// macOS, Windows, WebAssembly). Whether PCRE2 runs JIT code is its own
/// business.
///
/// ```swift
/// let program = try RegexEngineKind.swift.compile("^a+b", flags: RegexFlags(caseless: true), limits: .default)
/// Array("xAAB".utf8).withUnsafeBufferPointer { program.search($0, RegexScratch()) }   // .noMatch
/// ```
protocol RegexProgram: AnyObject, Sendable {
    /// Whether the pattern is found anywhere in `subject` (valid UTF-8).
    func search(_ subject: UnsafeBufferPointer<UInt8>, _ scratch: RegexScratch) -> RegexSearchResult
}

/// What one search ends with.
enum RegexSearchResult: Equatable {
    case match
    case noMatch
    /// The pattern's budget ran out: which limit ("match limit", "depth limit").
    case tooExpensive(String)
    /// Any other engine failure, with the engine's message.
    case failed(String)
}

/// The compile flags both engines take: the options `i m s x` and a pattern
/// that is already folded for option `d` (``CompiledRegex`` does that).
struct RegexFlags: Hashable, Sendable {
    var caseless = false
    var multiline = false
    var dotAll = false
    var extended = false
}

/// Why a pattern does not compile: either it is invalid (both engines say
/// so), or the Swift engine refuses a construct it cannot run with PCRE2's
/// meaning. `offset` is in UTF-8 bytes of the pattern, as PCRE2 reports it.
enum RegexCompileFailure: Error, Equatable {
    case invalid(message: String, offset: Int)
    case refused(construct: String, offset: Int)
}

/// Which engine compiles a pattern. ``standard`` is PCRE2 where the package
/// was built with it, else the Swift engine.
public enum RegexEngineKind: Hashable, Sendable {
    #if PCRE2
    /// libpcre2-8; `useJIT: false` forces its interpreter (tests cover both).
    case pcre2(useJIT: Bool)
    #endif
    /// The pure-Swift engine (`SwiftRegexProgram`).
    case swift

    /// The engine of this build: PCRE2 with JIT under trait `PCRE2`, else Swift.
    public static var standard: RegexEngineKind {
        #if PCRE2
        return .pcre2(useJIT: true)
        #else
        return .swift
        #endif
    }

    func compile(_ pattern: String, flags: RegexFlags, limits: EvaluationLimits) throws(RegexCompileFailure) -> any RegexProgram {
        switch self {
        #if PCRE2
        case .pcre2(let useJIT): return try PCRE2Program(pattern, flags: flags, useJIT: useJIT, limits: limits)
        #endif
        case .swift: return try SwiftRegexProgram(pattern, flags: flags, limits: limits)
        }
    }
}

/// Per-evaluation working memory of the engines (PCRE2's match data, the
/// Swift engine's decoded subject and backtracking stack). Not thread-safe:
/// create one per evaluation (it is cheap) and do not share it across threads.
final class RegexScratch {
    #if PCRE2
    private var _pcre2: PCRE2MatchData?
    var pcre2: PCRE2MatchData {
        if let d = _pcre2 { return d }
        let d = PCRE2MatchData()
        _pcre2 = d
        return d
    }
    #endif
    var machine = RegexMachineMemory()

    init() {}
}
