@testable import CQLKit

/// What `CQLParser.parse(CQLFormatter.format(q))` gives back for a query the
/// formatter accepts: `q` itself, except for the documented normalizations
/// (each keeps the meaning; the evaluation comparison checks that):
///
/// - regex options travel as a leading `(?imsx)` group (CQL.md, "`like` and `regexp`"), so the
///   parser lifts them back **sorted and without repeats**, and a pattern
///   without options that *starts* with such a group has it lifted into
///   `options` (`regex('(?i)^d', '')` comes back as `regex('^d', 'i')`);
/// - Usergrid text matches are written as the equivalent `regexp '(?i)…'`;
/// - `near` distances in meters (Usergrid's unit) are written in kilometers;
/// - counts (`size(k) = n`, `limit`, `skip`) given as whole doubles come back
///   as integers;
/// - `count(*)` alone drops keys (there are no results to select from);
/// - the constants `false` / `true` are written `objectId in ()` / `objectId not in ()`.
enum CQLRoundTrip {
    static func normalized(_ q: Query) -> Query {
        var out = q
        out.condition = q.condition.map(condition)
        out.skip = q.skip.map(wholeCount)
        out.limit = q.limit.map(wholeCount)
        if q.count == .only { out.keys = [] }
        return out
    }

    static func wholeCount(_ t: Term) -> Term { t.value.map { .value(OperandChecks.wholeCount($0)) } ?? t }

    static func condition(_ c: Condition) -> Condition {
        switch c.predicate {
        case .and(let items): return Condition.and(items.map(condition))
        case .or(let items): return Condition.or(items.map(condition))
        case .not(let inner): return Condition.not(condition(inner))
        case .regex(let path, .value(.string(let pattern)), let options):
            let lifted = OperandChecks.liftRegexOptions(options.isEmpty ? pattern : "(?\(options))" + pattern)
            return Condition(.regex(path, pattern: .value(.string(lifted.pattern)), options: lifted.options))
        case .size(let path, let n):
            return Condition(.size(path, wholeCount(n)))
        case .constant(let b):
            return Condition(.in("objectId", [], negated: b))
        case .text(let path, let match, let text):
            // The case-insensitive ranges have no CQL spelling (never formatted).
            guard let (pattern, options) = TextRegex.regex(match, text) else { return c }
            let lifted = OperandChecks.liftRegexOptions("(?\(options))" + pattern)
            return Condition(.regex(path, pattern: .value(.string(lifted.pattern)), options: lifted.options))
        case .near(let path, let point, let minimum, let maximum):
            func km(_ d: Distance?) -> Distance? {
                guard let d, d.unit == .meters, let x = d.value.value?.numberValue else { return d }
                return Distance(.value(.double(x / 1000)), .kilometers)
            }
            return Condition(.near(path, point: point, min: km(minimum), max: km(maximum)))
        case .select(let path, let key, let query, let negated):
            return Condition(.select(path, key: key, query: normalized(query), negated: negated))
        case .inQuery(let path, let query, let negated):
            return Condition(.inQuery(path, query: normalized(query), negated: negated))
        default:
            return c
        }
    }
}

/// What `UsergridParser.parse(UsergridFormatter.format(q, literal: l),
/// options: options(for: q, literal: l))` gives back for a query the
/// formatter accepts: `q` after the formatter's rewrites (UsergridQL.md has no
/// `!=`, no lists, only `within` in meters):
///
/// - `k != v` → `not k = v`;
/// - `k in (a, b)` → `k = a or k = b`, `not in` → `not (...)`;
/// - `near` with a maximum → `within <meters>` (a zero minimum is dropped);
/// - class, `limit` and `skip` come from the options (not part of `ql`), so
///   counts come back as integers; no limit is sent as Usergrid's largest
///   page, 1000 (the random collections are smaller);
/// - no order without a `within` comes back as Usergrid's default, newest
///   first (`created` descending; the random data has no `created`, so the
///   stable sort keeps store order);
/// - a condition that is the constant `true` is no condition.
enum UsergridRoundTrip {
    /// The request parameters that carry class, limit and skip; `nil` when
    /// Usergrid cannot carry them (a limit of 0).
    static func options(for q: Query, literal: Bool) -> UsergridOptions? {
        var options = UsergridOptions(className: q.className, literal: literal, limit: UsergridOptions.maxLimit)
        if let limit = q.limit {
            guard case .int(let n)? = limit.value.map(OperandChecks.wholeCount), n >= 1, n <= Int64(UsergridOptions.maxLimit)
            else { return nil }
            options.limit = Int(n)
        }
        if let skip = q.skip {
            guard case .int(let n)? = skip.value.map(OperandChecks.wholeCount), n >= 0 else { return nil }
            options.cursor = UsergridOptions.cursor(offset: n)
        }
        return options
    }

    static func normalized(_ q: Query) -> Query {
        var out = q
        out.condition = q.condition.map(condition)
        if out.condition?.predicate == .constant(true) { out.condition = nil }
        out.skip = q.skip.map(CQLRoundTrip.wholeCount)
        out.limit = q.limit.map(CQLRoundTrip.wholeCount) ?? .value(.int(Int64(UsergridOptions.maxLimit)))
        if out.order.isEmpty && UsergridMeaning.firstWithin(out.condition) == nil { out.order = UsergridMeaning.defaultOrder }
        return out
    }

    static func condition(_ c: Condition) -> Condition {
        switch c.predicate {
        case .and(let items): return Condition.and(items.map(condition))
        case .or(let items): return Condition.or(items.map(condition))
        case .not(let inner): return Condition.not(condition(inner))
        case .compare(let path, .notEqual, let term):
            return Condition.not(Condition(.compare(path, .equal, term)))
        case .in(let path, let terms, let negated):
            let any = Condition.or(terms.map { Condition(.compare(path, .equal, $0)) })
            return negated ? Condition.not(any) : any
        case .near(let path, let point, _, let maximum):
            guard let maximum, let v = maximum.value.value, let meters = UsergridDistance.meters(v, maximum.unit) else { return c }
            return Condition(.near(path, point: point, min: nil, max: Distance(.value(meters), .meters)))
        default:
            return c
        }
    }
}
