/// What a Usergrid request means beyond its condition (UsergridQL.md,
/// "Meaning"): trimmed string literals, the default order and page size, and
/// `order by` the `within` field. The parser, ``UsergridOptions`` and the
/// ``UsergridQuery`` builder apply it; ``UsergridFormatter`` writes it back.
///
/// ```swift
/// let q = try UsergridParser.parse("name = 'Morgan* '", options: UsergridOptions(className: "users"))
/// q.condition?.predicate  // .text("name", .wildcard, "Morgan*")
/// q.order                 // [OrderKey("created", descending: true)]: newest first
/// q.limit                 // .value(.int(10)): Usergrid's page
/// ```
enum UsergridMeaning {
    /// The page size when the request gives no `limit` (Usergrid's default).
    static let defaultLimit = 10
    /// The order when `ql` has no `order by` and no `within`: newest first.
    /// `created` is the millisecond creation time every entity carries.
    static let defaultOrder = [OrderKey("created", descending: true)]

    /// Usergrid trims string literals before matching, as Java's
    /// `String.trim()` does: every code point up to U+0020 (spaces, tabs,
    /// newlines and the other control characters) at either end.
    static func trimmed(_ s: String) -> String {
        let bytes = Array(s.utf8)
        guard let first = bytes.firstIndex(where: { $0 > 0x20 }), let last = bytes.lastIndex(where: { $0 > 0x20 }) else {
            return ""
        }
        if first == 0 && last == bytes.count - 1 { return s }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// Whether `s` reads back unchanged from a `ql` string literal.
    static func isTrimmed(_ s: String) -> Bool { trimmed(s) == s }

    /// The field of the first `within` (`near`), depth first: the one whose
    /// distance orders the results (as the evaluator and `$nearSphere` do).
    static func firstWithin(_ c: Condition?) -> FieldPath? {
        guard let c else { return nil }
        switch c.predicate {
        case .near(let path, _, _, _): return path
        case .and(let items), .or(let items):
            for item in items { if let p = firstWithin(item) { return p } }
            return nil
        case .not(let inner): return firstWithin(inner)
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects: return nil
        }
    }

    /// Every field a `within` tests.
    static func withinFields(_ c: Condition?, into out: inout Set<FieldPath>) {
        guard let c else { return }
        switch c.predicate {
        case .near(let path, _, _, _): out.insert(path)
        case .and(let items), .or(let items): for item in items { withinFields(item, into: &out) }
        case .not(let inner): withinFields(inner, into: &out)
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects: break
        }
    }

    /// The order the results come in: the written keys; none with a `within`
    /// (nearest first); else newest first. `order by location` where
    /// `location` is the `within` field means the distance order, whatever
    /// direction is written, so it becomes "no keys" (nearest first). The
    /// distance cannot be one key among others (the AST has no distance
    /// key), so that is an error rather than a silently different order.
    ///
    /// - Parameter ranges: where each written key is, for the error.
    static func order(_ keys: [OrderKey], condition: Condition?, ranges: [SourceRange] = []) throws(QueryError) -> [OrderKey] {
        let within = firstWithin(condition)
        guard !keys.isEmpty else { return within == nil ? defaultOrder : [] }
        guard within != nil else { return keys }
        var fields = Set<FieldPath>()
        withinFields(condition, into: &fields)
        for (i, key) in keys.enumerated() where fields.contains(key.path) {
            let range = i < ranges.count ? ranges[i] : nil
            guard key.path == within else {
                throw QueryError(
                    .unsupported,
                    "'order by \(key.path.dotted)' would be the distance order of a second 'within'; only the first 'within' ('\(within?.dotted ?? "")') orders results (write 'order by \(within?.dotted ?? "")' or no order)",
                    range: range)
            }
            guard keys.count == 1 else {
                throw QueryError(
                    .unsupported,
                    "'order by \(key.path.dotted)' means nearest first (the distance of 'within') and cannot be combined with other order keys",
                    range: range)
            }
            return []
        }
        return keys
    }

    /// `k op v` in the AST, for the parser and the builder alike. A quoted
    /// string is trimmed; then, unless `literal`, `=` is the case-insensitive
    /// match (a wildcard when the text has a `*`) and `<` `<=` `>` `>=` the
    /// case-insensitive ranges. Everything else (numbers, booleans, unquoted
    /// UUIDs, `literal` strings) compares exactly.
    static func comparison(_ path: FieldPath, _ op: ComparisonOperator, _ value: Value, quoted: Bool, literal: Bool) -> Predicate {
        guard quoted, case .string(let raw) = value else { return .compare(path, op, .value(value)) }
        let s = trimmed(raw)
        if !literal {
            if op == .equal { return .text(path, s.utf8.contains(UInt8(ascii: "*")) ? .wildcard : .equalsIgnoringCase, s) }
            if let match = TextMatch.ignoringCase(op) { return .text(path, match, s) }
        }
        return .compare(path, op, .value(.string(s)))
    }
}
