/// Parse Server's relative times (`{"$relativeTime": "in 2 days"}`):
/// `now`, `in <n> <unit> [<n> <unit> ...]` or `<n> <unit> ... ago`, with
/// integer amounts. Units (case-insensitive): s/sec/secs/second/seconds,
/// min/mins/minute/minutes, h/hr/hrs/hour/hours, d/day/days,
/// w/wk/wks/week/weeks, mo/month/months (30 days), y/yr/yrs/year/years
/// (365 days). Parse Server has no months; the rest is its table.
enum RelativeTime {
    static let unitSeconds: [String: Int64] = [
        "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
        "min": 60, "mins": 60, "minute": 60, "minutes": 60,
        "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
        "d": 86_400, "day": 86_400, "days": 86_400,
        "w": 604_800, "wk": 604_800, "wks": 604_800, "week": 604_800, "weeks": 604_800,
        "mo": 2_592_000, "month": 2_592_000, "months": 2_592_000,
        "y": 31_536_000, "yr": 31_536_000, "yrs": 31_536_000, "year": 31_536_000, "years": 31_536_000,
    ]

    /// The offset from now in milliseconds (negative in the past).
    static func offset(_ text: String, range: SourceRange?) throws(QueryError) -> Int64 {
        func bad(_ why: String) -> QueryError {
            QueryError(.invalidValue, "invalid relative time '\(CQLToken.clip(text))': \(why)", range: range)
        }
        var parts = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
        if parts == ["now"] { return 0 }
        guard !parts.isEmpty else { throw bad("it is empty") }
        let future = parts[0] == "in"
        let past = parts[parts.count - 1] == "ago"
        if future && past { throw bad("it cannot have both 'in' and 'ago'") }
        guard future || past else { throw bad("expected 'now', 'in <amount> <unit>' or '<amount> <unit> ago'") }
        if future { parts.removeFirst() } else { parts.removeLast() }
        guard !parts.isEmpty else { throw bad("no amount given") }
        guard parts.count % 2 == 0 else { throw bad("dangling number or unit; expected pairs such as '2 days'") }
        var seconds: Int64 = 0
        var i = 0
        while i < parts.count {
            let amountText = parts[i], unit = parts[i + 1]
            guard let amount = Int64(amountText) else { throw bad("'\(CQLToken.clip(amountText))' is not an integer") }
            guard let size = unitSeconds[unit] else {
                throw bad("unknown unit '\(CQLToken.clip(unit))' (use sec, min, hour, day, week, month or year)")
            }
            let (product, o1) = amount.multipliedReportingOverflow(by: size)
            let (sum, o2) = seconds.addingReportingOverflow(product)
            guard !o1, !o2 else { throw bad("out of range") }
            seconds = sum
            i += 2
        }
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow, ISODate.representable.contains(ms) else { throw bad("out of range") }
        return future ? ms : -ms
    }

    /// `now` moved by `text`.
    static func resolve(_ text: String, now: DateValue, range: SourceRange?) throws(QueryError) -> DateValue {
        let offset = try offset(text, range: range)
        let (ms, overflow) = now.millisecondsSince1970.addingReportingOverflow(offset)
        guard !overflow else {
            throw QueryError(.invalidValue, "invalid relative time '\(CQLToken.clip(text))': out of range", range: range)
        }
        return DateValue(millisecondsSince1970: ms)
    }
}
