/// Canonical Usergrid `ql` text for a ``Query``.
///
/// The canonical form is `select <keys> [where <condition> | direct <names>]
/// [order by <key> [desc], ...]`: `select *` when every key is selected,
/// lowercase keywords, `asc` omitted, parentheses only where precedence needs
/// them (`or` inside `and`, `and`/`or` under `not`), strings in single quotes
/// with `\'`, `\\` and control characters escaped, UUID strings compared with
/// `=` unquoted. `parse(format(q)) == q` for every query the parser yields
/// (with the same `literal` setting).
///
/// What `ql` cannot say is an ``QueryError/Kind/unsupported`` error that
/// names the construct: regex, like, exists, size, all, subqueries,
/// relations, boxes and polygons, null and typed values, placeholders, count,
/// include, excluded keys, LeanCloud's `returnACL`, and — because Usergrid's `=` ignores case — exact
/// string equality unless `literal` is set (and case-insensitive matches when
/// it is). Rewrites that keep the meaning: `!=` → `not k = v`, `in` →
/// `k = a or k = b`, `not in` → `not (...)`, `near` with a maximum in km,
/// radians or (when exact) miles → `within <meters>` (see
/// `UsergridDistance`).
///
/// The class name, `limit` and `skip` are not part of `ql` (Usergrid takes
/// them as the request path and URL parameters; see ``UsergridOptions`` and
/// ``UsergridOptions/cursor(offset:)``), so they are not written.
///
/// Order (UsergridQL.md, "Meaning"): `ql` without `order by` means newest first
/// (`created` descending), or nearest first with a `within`, so that order
/// is not written. A query with no order and no `within` (CQL's store order)
/// has no `ql` spelling of its own and is written the same way: like the
/// class and the page size, the order then becomes Usergrid's default. An
/// order by the value of a `within` field cannot be written (`ql` reads it
/// as the distance order). String literals are trimmed by Usergrid, so a
/// string with whitespace at an end cannot be written; string ranges ignore
/// case, so a case-sensitive one needs `literal`.
///
/// ```swift
/// let q = try UsergridParser.parse("WHERE not color eq 'Blue' && (a = 1 || b > 2.5) ORDER BY name ASC")
/// try UsergridFormatter.format(q)
/// // select * where not color = 'Blue' and (a = 1 or b > 2.5) order by name
/// ```
public enum UsergridFormatter {
    /// How deeply conditions may nest before formatting refuses (`.limit`).
    static let maxDepth = 256

    /// The canonical `ql` text of `query`. With `literal`, string `=` is
    /// written for exact comparisons (the text is meant to be parsed with
    /// ``UsergridOptions/literal``).
    public static func format(_ query: Query, literal: Bool = false) throws(QueryError) -> String {
        var w = UsergridWriter(literal: literal)
        return try w.query(query)
    }
}

/// Builds the text of one ``UsergridFormatter/format(_:literal:)`` call.
struct UsergridWriter {
    let literal: Bool
    var depth = 0

    init(literal: Bool) { self.literal = literal }

    func unsupported(_ what: String, _ range: SourceRange? = nil) -> QueryError {
        QueryError(.unsupported, "\(what) cannot be expressed in Usergrid ql", range: range)
    }

    mutating func query(_ q: Query) throws(QueryError) -> String {
        if q.count != .none { throw unsupported("'count'") }
        if !q.includes.isEmpty { throw unsupported("'include'") }
        if q.returnACL { throw unsupported("'returnACL'") }
        var out = "select " + (try keys(q.keys))
        if !q.direct.isEmpty {
            if q.condition != nil { throw unsupported("'direct' together with a condition") }
            out += " direct " + (try directNames(q.direct))
        } else if let c = q.condition {
            if c.predicate != .constant(true) { out += " where " + (try condition(c, .or)) }
        }
        if !q.order.isEmpty && !(q.order == UsergridMeaning.defaultOrder && UsergridMeaning.firstWithin(q.condition) == nil) {
            var withinFields = Set<FieldPath>()
            UsergridMeaning.withinFields(q.condition, into: &withinFields)
            if let k = q.order.first(where: { withinFields.contains($0.path) }) {
                throw unsupported(
                    "ordering by the value of the 'within' field '\(k.path.dotted)' (in Usergrid, 'order by \(k.path.dotted)' means nearest first)")
            }
            var parts: [String] = []
            for k in q.order { parts.append(try property(k.path) + (k.descending ? " desc" : "")) }
            out += " order by " + parts.joined(separator: ", ")
        }
        return out
    }

    func keys(_ keys: [SelectedKey]) throws(QueryError) -> String {
        if keys.isEmpty { return "*" }
        if keys.contains(where: \.excluded) { throw unsupported("an excluded key ('-k')") }
        let aliased = keys.filter { $0.alias != nil }.count
        if aliased == 0 {
            var parts: [String] = []
            for k in keys { parts.append(try property(k.path)) }
            return parts.joined(separator: ", ")
        }
        if aliased != keys.count {
            throw unsupported("a projection mixing renamed and plain keys")
        }
        var parts: [String] = []
        for k in keys {
            let alias = k.alias ?? ""
            guard Self.isIdentifier(alias) else {
                throw unsupported("the alias '\(alias)' (names are [A-Za-z_][A-Za-z0-9_.-]*, not reserved words)")
            }
            parts.append(try property(k.path) + ":" + alias)
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    func directNames(_ names: [Value]) throws(QueryError) -> String {
        var parts: [String] = []
        for v in names {
            guard case .string(let s) = v else { throw unsupported("a 'direct' name that is \(v.typeDescription)") }
            if UsergridKeywords.isUUID(s) || Self.isIdentifier(s) {
                parts.append(s)
            } else {
                parts.append(Self.quoted(s))
            }
        }
        return parts.joined(separator: ", ")
    }

    /// A property name as `ql` spells it.
    func property(_ path: FieldPath) throws(QueryError) -> String {
        let text = path.dotted
        guard UsergridKeywords.isWritableProperty(text), !UsergridKeywords.isUUID(text) else {
            throw unsupported(
                "the property name '\(text)' (names are [A-Za-z_][A-Za-z0-9_.-]* with no empty step, not reserved words)")
        }
        return text
    }

    /// A word the lexer reads back as one identifier token.
    static func isIdentifier(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard let first = bytes.first, UsergridLexer.isIdentifierStart(first),
            bytes.allSatisfy(UsergridLexer.isIdentifierByte)
        else { return false }
        return UsergridKeywords.kind(of: s) == nil && !UsergridKeywords.isUUID(s)
    }

    /// `'...'` with `'` and `\` escaped and control characters as escapes.
    static func quoted(_ s: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "'")]
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "'"), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(b)
            case 0x08: out.append(contentsOf: Array("\\b".utf8))
            case 0x09: out.append(contentsOf: Array("\\t".utf8))
            case 0x0A: out.append(contentsOf: Array("\\n".utf8))
            case 0x0C: out.append(contentsOf: Array("\\f".utf8))
            case 0x0D: out.append(contentsOf: Array("\\r".utf8))
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "'"))
        return String(decoding: out, as: UTF8.self)
    }
}
