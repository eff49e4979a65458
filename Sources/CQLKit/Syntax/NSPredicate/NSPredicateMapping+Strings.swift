/// BEGINSWITH, CONTAINS, ENDSWITH, LIKE and MATCHES as exact regexes: the
/// text is quoted with `\Q..\E`, whole-value matches end in `\z` (not `$`,
/// which also matches before a final newline).
extension NSPredicateMapping {
    static func stringMatch(
        _ path: FieldPath, _ op: NSPredicateToken, _ s: String, _ m: NSPredicateModifiers, _ r: SourceRange, patternRange: SourceRange
    ) throws(QueryError) -> Condition {
        let options = m.regexOptions
        func regex(_ pattern: String, _ options: String) -> Condition {
            Condition(.regex(path, pattern: .value(.string(pattern)), options: options), range: r)
        }
        switch op.kind {
        case .beginsWith: return regex("^" + TextRegex.quote(s), options)
        case .contains: return regex(TextRegex.quote(s), options)
        case .endsWith: return regex(TextRegex.quote(s) + #"\z"#, options)
        case .like:
            let pieces = try likePieces(s, at: patternRange)
            // `LIKE[c]` with `*` wildcards only is Usergrid's case-insensitive
            // wildcard match: reuse its node.
            if options == "i", !pieces.contains(.one), !pieces.contains(where: { if case .text(let t) = $0 { return t.contains("*") } else { return false } }) {
                let text = pieces.map { piece -> String in
                    switch piece {
                    case .text(let t): return t
                    case .any: return "*"
                    case .one: return "?"
                    }
                }.joined()
                return Condition(.text(path, pieces.contains(.any) ? .wildcard : .equalsIgnoringCase, text), range: r)
            }
            return regex(likeRegex(pieces), OperandChecks.mergeOptions(options + "s", ""))
        default:
            let translated = try ICURegex.translate(s, at: patternRange)
            return regex("^(?:" + translated + #")\z"#, options)
        }
    }

    /// One run of a LIKE pattern.
    enum LikePiece: Equatable {
        case text(String)
        /// `*`
        case any
        /// `?`
        case one
    }

    /// `*` any run, `?` one character, `\*` `\?` `\\` the characters themselves.
    static func likePieces(_ pattern: String, at range: SourceRange) throws(QueryError) -> [LikePiece] {
        var pieces: [LikePiece] = []
        var run = ""
        var escaped = false
        for ch in pattern.unicodeScalars {
            if escaped {
                guard ch == "*" || ch == "?" || ch == "\\" else {
                    throw QueryError(.syntax, "in a LIKE pattern '\\' escapes only *, ? and \\ (found '\\\(ch)'); a backslash is written '\\\\\\\\'", range: range)
                }
                run.unicodeScalars.append(ch)
                escaped = false
                continue
            }
            switch ch {
            case "\\": escaped = true
            case "*", "?":
                if !run.isEmpty { pieces.append(.text(run)); run = "" }
                pieces.append(ch == "*" ? .any : .one)
            default: run.unicodeScalars.append(ch)
            }
        }
        if escaped { throw QueryError(.syntax, "a LIKE pattern cannot end with a lone '\\'", range: range) }
        if !run.isEmpty { pieces.append(.text(run)) }
        return pieces
    }

    static func likeRegex(_ pieces: [LikePiece]) -> String {
        var out = "^"
        for p in pieces {
            switch p {
            case .text(let t): out += TextRegex.quote(t)
            case .any: out += ".*"
            case .one: out += "."
            }
        }
        return out + #"\z"#
    }
}
