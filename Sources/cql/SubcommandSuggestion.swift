import ArgumentParser

/// A first argument that names no subcommand (`cql evl x`): argument-parser
/// would say "2 unexpected arguments", which hides the typo. This says
/// which subcommand was probably meant.
enum SubcommandSuggestion {
    /// The names `cql` takes first: its subcommands and argument-parser's `help`.
    static var names: [String] {
        CQL.configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// The usage error for `arguments`, or nil when the first argument is an
    /// option, a subcommand, or absent (argument-parser reads those).
    static func problem(_ arguments: ArraySlice<String>) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !names.contains(first) else { return nil }
        let list = names.dropLast().joined(separator: ", ")
        guard let nearest = nearest(to: first) else {
            return "error: unknown subcommand '\(first)'; the subcommands are \(list)\nSee 'cql --help'."
        }
        return "error: unknown subcommand '\(first)'; did you mean '\(nearest)'?\nSee 'cql --help'."
    }

    /// The subcommand nearest to `word`, if it is close: at most a third of
    /// the name's letters differ (so `evl` is `eval`, `trnaslate` is
    /// `translate`, while `zzz` is nothing). A prefix counts too (`trans`).
    static func nearest(to word: String) -> String? {
        let lowered = word.lowercased()
        var best: (name: String, distance: Int)?
        for name in names.dropLast() {
            let d = lowered.count >= 2 && name.hasPrefix(lowered) ? 0 : distance(lowered, name)
            if d <= max(1, name.count / 3), best == nil || d < best!.distance { best = (name, d) }
        }
        return best?.name
    }

    /// Optimal string alignment distance: insertions, deletions,
    /// substitutions and swaps of two neighbours each cost one.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}
