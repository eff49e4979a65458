import CQLKit

/// State of one evaluation: the regex match data (not shareable across
/// threads) and the first error a predicate hit. Predicates return `false`
/// after recording an error, and the caller throws it once the node returns,
/// so the hot path needs no throwing closures.
final class EvalContext {
    private var _scratch: RegexScratch?
    var failure: QueryError?

    init() {}

    var scratch: RegexScratch {
        if let s = _scratch { return s }
        let s = RegexScratch()
        _scratch = s
        return s
    }
}

extension Node {
    /// Whether the object (as `.object`) satisfies this node. Check
    /// `context.failure` afterwards.
    func matches(_ root: Value, _ context: EvalContext) -> Bool {
        switch self {
        case .constant(let b):
            return b
        case .and(let nodes):
            for n in nodes where !n.matches(root, context) { return false }
            return true
        case .or(let nodes):
            for n in nodes where n.matches(root, context) { return true }
            return false
        case .not(let n):
            let r = n.matches(root, context)
            return context.failure == nil ? !r : false

        case .equal(let path, let v):
            return path.anyPresent(root) { Node.equalMatches($0, v) }
        case .scalar(let path, let test):
            return path.anyPresent(root) { test.matches($0) }
        case .foldedRange(let path, let test):
            return path.anyPresent(root) { test.matches($0) }
        case .isNull(let path):
            return path.visit(root, present: Node.isNullMatches, missing: { true })
        case .range(let path, let test):
            return path.anyPresent(root) { Node.rangeMatches($0, test) }
        case .member(let path, let set):
            return path.visit(root, present: { Node.memberMatches($0, set) }, missing: { set.hasNull })
        case .size(let path, let n):
            return path.anyPresent(root) { x in
                if case .array(let items) = x { return items.count == n }
                return false
            }
        case .exists(let path):
            return path.anyPresent(root) { _ in true }
        case .prefix(let path, let prefixes):
            // The same values as `.regex` visits: a string, or string elements.
            return path.anyPresent(root) { Node.prefixMatches($0, prefixes) }
        case .regex(let path, let regex):
            return path.anyPresent(root) { Node.regexMatches($0, regex, context) }
        case .elementMatch(let path, let node, let form):
            return path.anyPresent(root) { x in
                guard case .array(let items) = x else { return false }
                switch form {
                case .operators:
                    return items.contains { node.matchesWhole($0, context) }
                case .fields:
                    return items.contains { item in
                        guard let document = ElementMatchForm.document(item) else { return false }
                        return node.matches(document, context)
                    }
                }
            }
        case .type(let path, let test):
            return path.anyPresent(root) { x in
                if test.passes(x) { return true }
                if case .array(let items) = x { return items.contains(where: test.passes) }
                return false
            }
        case .modulo(let path, let divisor, let remainder):
            return path.anyPresent(root) { x in
                if Node.modulo(x, divisor, remainder) { return true }
                if case .array(let items) = x { return items.contains { Node.modulo($0, divisor, remainder) } }
                return false
            }
        case .containedBy(let path, let set):
            return path.anyPresent(root) { x in
                guard case .array(let items) = x else { return false }
                return items.allSatisfy(set.contains)
            }
        case .pointerIn(let path, let className, let ids):
            return path.anyPresent(root) { x in
                if Node.points(x, className, ids) { return true }
                if case .array(let items) = x { return items.contains { Node.points($0, className, ids) } }
                return false
            }
        case .aclGrants(let right, let grantees):
            return ACLRule.grants(root["ACL"], right, to: grantees)
        case .objectIdIn(let ids):
            guard case .string(let id)? = root["objectId"] else { return false }
            return ids.contains(id)
        case .geo(let path, let test):
            return path.anyPresent(root) { x in
                if let p = Semantic.geoPoint(x) { return test.passes(p) }
                if case .array(let items) = x {
                    return items.contains { Semantic.geoPoint($0).map(test.passes) ?? false }
                }
                return false
            }
        case .geoIntersects(let path, let point):
            return path.anyPresent(root) { x in
                guard let vertices = Polygon.vertices(of: x) else { return false }
                return Polygon.contains(vertices, point)
            }
        }
    }

    /// What `.equal` asks of a value reached.
    @inline(__always)
    static func equalMatches(_ x: Value, _ v: Value) -> Bool {
        if Semantic.equal(x, v) { return true }
        if case .array(let items) = x { return items.contains { Semantic.equal($0, v) } }
        return false
    }

    /// What `.isNull` asks of a value reached.
    @inline(__always)
    static func isNullMatches(_ x: Value) -> Bool {
        if case .null = x { return true }
        if case .array(let items) = x { return items.contains(.null) }
        return false
    }

    /// What `.range` asks of a value reached.
    @inline(__always)
    static func rangeMatches(_ x: Value, _ test: RangeTest) -> Bool {
        if test.passes(x) { return true }
        if case .array(let items) = x { return items.contains(where: test.passes) }
        return false
    }

    /// What `.member` asks of a value reached.
    @inline(__always)
    static func memberMatches(_ x: Value, _ set: MemberSet) -> Bool {
        if set.contains(x) { return true }
        if case .array(let items) = x { return items.contains(where: set.contains) }
        return false
    }

    /// What `.prefix` asks of a value reached: the values `.regex` visits.
    @inline(__always)
    static func prefixMatches(_ x: Value, _ prefixes: [[UInt8]]) -> Bool {
        switch x {
        case .string(let s): return Node.startsWithAny(s, prefixes)
        case .array(let items):
            for case .string(let s) in items where Node.startsWithAny(s, prefixes) { return true }
            return false
        default: return false
        }
    }

    /// What `.regex` asks of a value reached.
    @inline(__always)
    static func regexMatches(_ x: Value, _ regex: CompiledRegex, _ context: EvalContext) -> Bool {
        switch x {
        case .string(let s): return Node.search(regex, s, context)
        case .array(let items):
            for case .string(let s) in items where Node.search(regex, s, context) { return true }
            return false
        default: return false
        }
    }

    /// Whether the UTF-8 of `s` starts with one of `prefixes`.
    @inline(__always)
    static func startsWithAny(_ s: String, _ prefixes: [[UInt8]]) -> Bool {
        // Native strings are contiguous UTF-8 (no copy); the fallback walks the view.
        let found = s.utf8.withContiguousStorageIfAvailable { bytes in
            prefixes.contains { p in
                guard p.count <= bytes.count else { return false }
                for i in 0..<p.count where p[i] != bytes[i] { return false }
                return true
            }
        }
        return found ?? prefixes.contains { s.utf8.starts(with: $0) }
    }

    private static func search(_ regex: CompiledRegex, _ s: String, _ context: EvalContext) -> Bool {
        guard context.failure == nil else { return false }
        do {
            return try regex.firstMatch(in: s, scratch: context.scratch)
        } catch {
            context.failure = error
            return false
        }
    }

    /// `$mod` as MongoDB does it: doubles are truncated toward zero first.
    private static func modulo(_ x: Value, _ divisor: Int64, _ remainder: Int64) -> Bool {
        let n: Int64
        switch x {
        case .int(let i): n = i
        case .double(let d):
            guard d.isFinite, d > -9.2e18, d < 9.2e18 else { return false }
            n = Int64(d.rounded(.towardZero))
        default: return false
        }
        let (r, overflow) = n.remainderReportingOverflow(dividingBy: divisor)
        return !overflow && r == remainder
    }

    private static func points(_ x: Value, _ className: String, _ ids: Set<String>) -> Bool {
        switch x {
        case .pointer(let p): return p.className == className && ids.contains(p.objectId)
        case .typedObject(let c, let fields):
            guard c == className, case .string(let id)? = fields["objectId"] else { return false }
            return ids.contains(id)
        default: return false
        }
    }
}
