/// The constants of a bound query as the SQL dialects see them.
enum SQLScalar: Hashable {
    case null
    case bool(Bool)
    case number(Value)
    case string(String)

    /// A scalar the dialects compare exactly; `nil` for arrays, objects and
    /// typed values (Date, Pointer, ...), which are re-checked instead.
    init?(_ term: Term) {
        guard case .value(let v) = term else { return nil }
        self.init(value: v)
    }

    init?(value v: Value) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int, .double: self = .number(v)
        case .string(let s): self = .string(s)
        default: return nil
        }
    }
}

enum SQLTerms {
    /// The scalars of a list, or `nil` when one of them is not a scalar.
    static func scalars(_ terms: [Term]) -> [SQLScalar]? {
        var out: [SQLScalar] = []
        for t in terms {
            guard let s = SQLScalar(t) else { return nil }
            out.append(s)
        }
        return out
    }

    /// The string of a term, if it is one.
    static func string(_ t: Term) -> String? {
        if case .value(.string(let s)) = t { return s }
        return nil
    }

    /// A non-negative integer term (`size(k) = n`).
    static func count(_ t: Term) -> Int64? {
        switch t {
        case .value(.int(let n)) where n >= 0: return n
        default: return nil
        }
    }

    /// Whether the path is the built-in `createdAt` / `updatedAt`, whose ISO
    /// strings the evaluator reads as Dates (EvaluationSemantics.md): only `exists`
    /// is pushed down on them.
    static func coercesDates(_ path: FieldPath) -> Bool {
        // `singleComponent`: `components` builds an array (this runs for every leaf).
        guard let key = path.singleComponent else { return false }
        return key == "createdAt" || key == "updatedAt"
    }

    /// The literal text a LIKE pattern starts with (before `%`, `_`, `[` or
    /// `\`), for an index range; empty when it starts with a wildcard.
    static func likePrefix(_ pattern: String) -> String {
        var out = ""
        for c in pattern.unicodeScalars {
            if c == "%" || c == "_" || c == "[" || c == "\\" { break }
            out.unicodeScalars.append(c)
        }
        return out
    }

    /// The smallest string greater than every string starting with `prefix`
    /// in code-point order, or `nil` when there is none (all U+10FFFF).
    static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let s = Unicode.Scalar(next) {
                scalars.append(s)
                var out = ""
                out.unicodeScalars.append(contentsOf: scalars)
                return out
            }
        }
        return nil
    }

    /// Whether a path step is an array index for the evaluator's walk.
    static func isIndex(_ step: String) -> Bool {
        !step.isEmpty && step.utf8.count <= 18 && step.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }
}
