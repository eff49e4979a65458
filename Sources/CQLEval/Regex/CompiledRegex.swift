import CQLKit

/// A `regexp` (or `like`, or NSPredicate `MATCHES`) pattern as the evaluator
/// runs it: options parsed, option `d` applied, compiled once per plan by one
/// engine (``RegexEngineKind``) and shared; engine outcomes turned into
/// positioned ``QueryError``s.
///
/// ```swift
/// let r = try CompiledRegex(pattern: "a+b", options: "i")
/// try r.firstMatch(in: "xxAAB", scratch: RegexScratch())                  // true
/// try CompiledRegex(pattern: "(a)\\1", options: "", engine: .swift)
/// // throws .unsupported: "the Swift regex engine does not run a backreference
/// //   (\1) in '(a)\1' at offset 3 ..."
/// ```
final class CompiledRegex: Sendable {
    let pattern: String
    let options: String
    /// Where the predicate is in the query text; match-time errors point here.
    let range: SourceRange?
    /// Whether subjects (and the pattern) are matched with diacritics folded
    /// away: option `d`, NSPredicate's `[d]`.
    let foldsDiacritics: Bool
    let program: any RegexProgram

    /// Compiles `pattern` with `options` drawn from `i m x s`, and `d`
    /// (diacritic-insensitive: pattern and subject are compared with their
    /// diacritics folded away, as NSPredicate's `[d]`).
    ///
    /// - Parameters:
    ///   - range: where the pattern is in the query text, for errors.
    ///   - engine: the engine (``RegexEngineKind/standard`` unless a test asks).
    ///   - limits: the match, depth and heap limits (``EvaluationLimits``).
    init(
        pattern: String, options: String, range: SourceRange? = nil, engine: RegexEngineKind = .standard,
        limits: EvaluationLimits = .default
    ) throws(QueryError) {
        var flags = RegexFlags()
        var folds = false
        for ch in options.unicodeScalars {
            switch ch {
            case "d": folds = true
            case "i": flags.caseless = true
            case "m": flags.multiline = true
            case "x": flags.extended = true
            case "s": flags.dotAll = true
            default:
                throw QueryError(.pattern, "unknown regular expression option '\(ch)'; only i, m, x and s are allowed", range: range)
            }
        }
        let pattern = folds ? DiacriticFolding.fold(pattern) : pattern
        do throws(RegexCompileFailure) {
            program = try engine.compile(pattern, flags: flags, limits: limits)
        } catch {
            switch error {
            case .invalid(let message, let offset):
                throw QueryError(.pattern, "invalid regular expression '\(pattern)' at offset \(offset): \(message)", range: range)
            case .refused(let construct, let offset):
                throw QueryError(
                    .unsupported,
                    "the Swift regex engine does not run \(construct) in '\(pattern)' at offset \(offset) (a build without PCRE2 refuses what it cannot run with PCRE2's meaning)",
                    range: range)
            }
        }
        self.pattern = pattern
        self.options = options
        self.range = range
        self.foldsDiacritics = folds
    }

    /// Whether the pattern is found anywhere in `subject`.
    ///
    /// - Throws: `.pattern` when the pattern's budget (match or depth limit)
    ///   runs out: "regex too expensive".
    func firstMatch(in subject: String, scratch: RegexScratch) throws(QueryError) -> Bool {
        let subject = foldsDiacritics ? DiacriticFolding.fold(subject) : subject
        // Native strings (all strings on Linux) are contiguous UTF-8, small
        // ones included: no copy. The fallback copies.
        let result = subject.utf8.withContiguousStorageIfAvailable { program.search($0, scratch) }
            ?? Array(subject.utf8).withUnsafeBufferPointer { program.search($0, scratch) }
        switch result {
        case .match: return true
        case .noMatch: return false
        case .tooExpensive(let limit):
            throw QueryError(.pattern, "regex too expensive: '\(pattern)' exceeded its \(limit)", range: range)
        case .failed(let message):
            throw QueryError(.pattern, "regular expression '\(pattern)' failed: \(message)", range: range)
        }
    }
}
