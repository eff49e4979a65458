/// An indented, human-readable dump of a query's AST (what `cql explain`
/// prints under `ast:`).
///
/// ```swift
/// print(ASTPrinter.describe(try CQLParser.parse("select * from T where a > 1 or not (b = 'x')")))
/// // query T
/// //   where: or
/// //     compare a > 1
/// //     not
/// //       compare b = "x"
/// ```
public enum ASTPrinter {
    public static func describe(_ query: Query) -> String {
        var out: [String] = []
        query_(query, indent: 0, into: &out)
        return out.joined(separator: "\n")
    }

    public static func describe(_ condition: Condition) -> String {
        var out: [String] = []
        node(condition, indent: 0, into: &out)
        return out.joined(separator: "\n")
    }

    private static func pad(_ n: Int) -> String { String(repeating: "  ", count: n) }

    private static func query_(_ q: Query, indent: Int, into out: inout [String]) {
        out.append(pad(indent) + "query " + (q.className.isEmpty ? "(no class)" : q.className))
        let p = pad(indent + 1)
        if !q.keys.isEmpty {
            out.append(p + "keys: " + q.keys.map { k in
                (k.excluded ? "-" : "") + k.path.dotted + (k.alias.map { " as \($0)" } ?? "")
            }.joined(separator: ", "))
        }
        if !q.includes.isEmpty { out.append(p + "include: " + q.includes.map(\.dotted).joined(separator: ", ")) }
        switch q.count {
        case .none: break
        case .only: out.append(p + "count: only")
        case .withResults: out.append(p + "count: with results")
        }
        if !q.direct.isEmpty { out.append(p + "direct: " + q.direct.map { JSONWriter.string($0) }.joined(separator: ", ")) }
        if let c = q.condition {
            var sub: [String] = []
            node(c, indent: indent + 1, into: &sub)
            if let first = sub.first {
                out.append(p + "where: " + first.drop(while: { $0 == " " }))
                out.append(contentsOf: sub.dropFirst())
            }
        }
        if !q.order.isEmpty {
            out.append(p + "order: " + q.order.map { ($0.descending ? "-" : "") + $0.path.dotted }.joined(separator: ", "))
        }
        if let s = q.skip { out.append(p + "skip: " + term(s)) }
        if let l = q.limit { out.append(p + "limit: " + term(l)) }
        if q.returnACL { out.append(p + "returnACL: true") }
    }

    static func term(_ t: Term) -> String {
        switch t {
        case .value(let v): return JSONWriter.string(v)
        case .placeholder(let i, _): return "?\(i + 1)"
        case .array(let items): return "[" + items.map(term).joined(separator: ", ") + "]"
        case .call(let f, let args, _): return f.rawValue + "(" + args.map(term).joined(separator: ", ") + ")"
        case .currentTimestamp: return "current_timestamp()"
        case .relativeTime(let s): return "relativeTime(\(JSONWriter.string(.string(s))))"
        }
    }

    private static func terms(_ ts: [Term]) -> String { "(" + ts.map(term).joined(separator: ", ") + ")" }

    private static func distance(_ label: String, _ d: Distance?) -> String {
        guard let d else { return "" }
        return " \(label) \(term(d.value)) \(d.unit.rawValue)"
    }

    private static func node(_ c: Condition, indent: Int, into out: inout [String]) {
        let p = pad(indent)
        switch c.predicate {
        case .and(let items):
            out.append(p + "and")
            for i in items { node(i, indent: indent + 1, into: &out) }
        case .or(let items):
            out.append(p + "or")
            for i in items { node(i, indent: indent + 1, into: &out) }
        case .not(let inner):
            out.append(p + "not")
            node(inner, indent: indent + 1, into: &out)
        case .constant(let b): out.append(p + (b ? "true" : "false"))
        case .compare(let k, let op, let v): out.append(p + "compare \(k) \(op.rawValue) \(term(v))")
        case .in(let k, let vs, let neg): out.append(p + "\(neg ? "not in" : "in") \(k) \(terms(vs))")
        case .all(let k, let vs): out.append(p + "all \(k) \(terms(vs))")
        case .size(let k, let n): out.append(p + "size \(k) = \(term(n))")
        case .exists(let k, let e): out.append(p + "\(e ? "exists" : "not exists") \(k)")
        case .regex(let k, let pat, let opts):
            out.append(p + "regex \(k) \(term(pat))" + (opts.isEmpty ? "" : " options \(opts)"))
        case .like(let k, let pat): out.append(p + "like \(k) \(term(pat))")
        case .prefix(let k, let s): out.append(p + "prefix \(k) \(JSONWriter.string(.string(s)))")
        case .text(let k, let m, let s): out.append(p + "text \(m.rawValue) \(k) \(JSONWriter.string(.string(s)))")
        case .containedBy(let k, let vs): out.append(p + "containedBy \(k) \(terms(vs))")
        case .elementMatch(let k, let inner):
            out.append(p + "elemMatch \(k)")
            node(inner, indent: indent + 1, into: &out)
        case .type(let k, let t): out.append(p + "type \(k) \(t)")
        case .modulo(let k, let d, let r): out.append(p + "mod \(k) \(term(d)) \(term(r))")
        case .fullText(let k, let s): out.append(p + "text search \(k) \(JSONWriter.string(.string(s.term)))")
        case .select(let k, let key, let q, let neg):
            out.append(p + "\(neg ? "not in" : "in") \(k) select \(key) of")
            query_(q, indent: indent + 1, into: &out)
        case .inQuery(let k, let q, let neg):
            out.append(p + "\(neg ? "not in" : "in") \(k) query")
            query_(q, indent: indent + 1, into: &out)
        case .relatedTo(let obj, let key): out.append(p + "related \(key) to \(term(obj))")
        case .relationHolds(let key, let className, let obj): out.append(p + "relation \(className).\(key) holds \(term(obj))")
        case .near(let k, let pt, let mn, let mx):
            out.append(p + "near \(k) \(term(pt))" + distance("min", mn) + distance("max", mx))
        case .withinBox(let k, let sw, let ne): out.append(p + "within box \(k) \(term(sw)) \(term(ne))")
        case .withinPolygon(let k, let pts): out.append(p + "within polygon \(k) \(terms(pts))")
        case .withinCenterSphere(let k, let c, let r): out.append(p + "within centerSphere \(k) \(term(c)) \(term(r))")
        case .geoIntersects(let k, let pt): out.append(p + "geoIntersects \(k) \(term(pt))")
        case .aclGrants(let right, let grantees): out.append(p + "acl \(right.rawValue) by \(grantees.joined(separator: ", "))")
        }
    }
}
