/// Recognizes the regexes NSPredicate's string operators map to (see
/// ``NSPredicateMapping``) and writes the operator back: `^\Q..\E` is
/// BEGINSWITH, `\Q..\E` CONTAINS, `\Q..\E\z` ENDSWITH, `^..\z` of quoted
/// runs, `.*` and `.` with option `s` LIKE, `^(?:r)\z` MATCHES. Other
/// regexes have no exact NSPredicate form.
enum NSPredicateRegexForms {
    /// `OP[flags] "operand"` for the regex `pattern` with `options`.
    static func operation(_ pattern: String, _ options: String, _ c: Condition) throws(QueryError) -> String {
        guard options.allSatisfy({ "dis".contains($0) }) else {
            throw QueryError(.unsupported, "regular expression options other than i and s (here '\(options)') cannot be expressed in NSPredicate",
                             range: c.range)
        }
        var m = NSPredicateModifiers()
        m.caseInsensitive = options.contains("i")
        m.diacriticInsensitive = options.contains("d")
        let flags = m.isEmpty ? "" : m.text
        let p = Array(pattern.unicodeScalars)
        if options.contains("s") {
            if let like = likePattern(p), NSPredicateMapping.likeRegex(like) == pattern {
                return "LIKE" + flags + " " + NSPredicateLiterals.string(likeText(like))
            }
        } else {
            let anchored = p.first == "^"
            let body = anchored ? Array(p.dropFirst()) : p
            let ended = body.count >= 2 && body[body.count - 2] == "\\" && body[body.count - 1] == "z"
            let core = ended ? Array(body.dropLast(2)) : body
            if let text = quoted(core) {
                switch (anchored, ended) {
                case (true, true): return (m.isEmpty ? "==" : "==" + flags) + " " + NSPredicateLiterals.string(text)
                case (true, false): return "BEGINSWITH" + flags + " " + NSPredicateLiterals.string(text)
                case (false, true): return "ENDSWITH" + flags + " " + NSPredicateLiterals.string(text)
                case (false, false): return "CONTAINS" + flags + " " + NSPredicateLiterals.string(text)
                }
            }
            let prefix = "^(?:", suffix = #")\z"#
            if pattern.hasPrefix(prefix) && pattern.hasSuffix(suffix) && pattern.utf8.count >= prefix.utf8.count + suffix.utf8.count {
                let inner = String(pattern.dropFirst(prefix.count).dropLast(suffix.count))
                let icu = ICURegex.untranslate(inner)
                if let same = try? ICURegex.translate(icu, at: SourceRange(0, 0)), same == inner {
                    return "MATCHES" + flags + " " + NSPredicateLiterals.string(icu)
                }
            }
        }
        throw QueryError(.unsupported, "the regular expression '\(pattern)' has no exact NSPredicate form (MATCHES matches the whole value: "
                         + "write it as ^(?:...)\\z)", range: c.range)
    }

    /// The text of exactly one `\Q..\E` run as ``TextRegex/quote(_:)`` writes it.
    static func quoted(_ s: [Unicode.Scalar]) -> String? {
        guard let (text, end) = quotedRun(s, 0), end == s.count else { return nil }
        return TextRegex.quote(text) == String(String.UnicodeScalarView(s)) ? text : nil
    }

    /// A `\Q..\E` run starting at `i` (with `\E\\E\Q` splices): its text and where it ends.
    static func quotedRun(_ s: [Unicode.Scalar], _ start: Int) -> (String, Int)? {
        func at(_ i: Int, _ lit: String) -> Bool {
            let l = Array(lit.unicodeScalars)
            return i + l.count <= s.count && Array(s[i..<i + l.count]) == l
        }
        guard at(start, #"\Q"#) else { return nil }
        var i = start + 2
        var text = ""
        while true {
            var j = i
            while j < s.count && !at(j, #"\E"#) { j += 1 }
            guard j < s.count else { return nil }
            text.unicodeScalars.append(contentsOf: s[i..<j])
            i = j + 2
            if at(i, #"\\E\Q"#) {
                text += #"\E"#
                i += 5
                continue
            }
            return (text, i)
        }
    }

    /// The pieces of `^..\z` made of quoted runs, `.*` and `.`.
    static func likePattern(_ s: [Unicode.Scalar]) -> [NSPredicateMapping.LikePiece]? {
        guard s.count >= 3, s.first == "^", s[s.count - 2] == "\\", s[s.count - 1] == "z" else { return nil }
        var pieces: [NSPredicateMapping.LikePiece] = []
        var i = 1
        let end = s.count - 2
        while i < end {
            if s[i] == "." {
                if i + 1 < end && s[i + 1] == "*" { pieces.append(.any); i += 2 } else { pieces.append(.one); i += 1 }
            } else if let (text, next) = quotedRun(s, i), next <= end {
                pieces.append(.text(text))
                i = next
            } else {
                return nil
            }
        }
        return pieces
    }

    /// The LIKE pattern text of `pieces` (`*`, `?` and `\` in text escaped).
    static func likeText(_ pieces: [NSPredicateMapping.LikePiece]) -> String {
        var out = ""
        for p in pieces {
            switch p {
            case .any: out += "*"
            case .one: out += "?"
            case .text(let t):
                for ch in t.unicodeScalars {
                    if ch == "*" || ch == "?" || ch == "\\" { out += "\\" }
                    out.unicodeScalars.append(ch)
                }
            }
        }
        return out
    }
}
