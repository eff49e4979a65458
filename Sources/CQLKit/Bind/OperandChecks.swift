/// Checks of predicate operands (GeoPoints, distances, counts, patterns,
/// pointers), shared by the parser (constants) and the binder (values of
/// placeholders), so a bad operand gets the same message either way.
enum OperandChecks {
    /// How messages show a value: numbers and literals as written in CQL,
    /// strings in single quotes, other values by type.
    static func describe(_ v: Value) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return JSONWriter.doubleText(d)
        case .string(let s): return "'" + CQLToken.clip(s) + "'"
        default: return v.typeDescription
        }
    }

    static func geoRangeMessage(longitude: Value, latitude: Value) -> String {
        "invalid GeoPoint values: longitude must be in -180...180 and latitude in -90...90, found geopoint(\(describe(longitude)), \(describe(latitude)))"
    }

    /// A GeoPoint operand of `what` (`'near'`, `'within'`): a GeoPoint, or
    /// `[lng, lat]`.
    static func geoPoint(_ v: Value, what: String, range: SourceRange?) throws(QueryError) -> GeoPoint {
        switch v {
        case .geoPoint(let g):
            guard g.isValid else {
                throw QueryError(.invalidValue, geoRangeMessage(longitude: .double(g.longitude), latitude: .double(g.latitude)), range: range)
            }
            return g
        case .array(let a) where a.count == 2:
            guard let lng = a[0].numberValue, let lat = a[1].numberValue else { break }
            let g = GeoPoint(latitude: lat, longitude: lng)
            guard g.isValid else { throw QueryError(.invalidValue, geoRangeMessage(longitude: a[0], latitude: a[1]), range: range) }
            return g
        default:
            break
        }
        throw QueryError(.invalidValue, "\(what) needs a GeoPoint (geopoint(lng, lat) or [lng, lat]), found \(describe(v))", range: range)
    }

    /// A GeoPoint operand term as the parser sees it: constants become
    /// `.geoPoint` values; placeholders, `geopoint(?, ?)` and `[?, ?]` wait for
    /// the binder.
    static func geoTerm(_ t: Term, what: String, range: SourceRange?) throws(QueryError) -> Term {
        switch t {
        case .value(let v): return .value(.geoPoint(try geoPoint(v, what: what, range: range)))
        case .placeholder, .call(.geopoint, _, _): return t
        case .array(let items) where items.count == 2: return t
        default:
            throw QueryError(.invalidValue, "\(what) needs a GeoPoint (geopoint(lng, lat) or [lng, lat])", range: range)
        }
    }

    /// A `near` distance: a finite non-negative number.
    static func distance(_ v: Value, range: SourceRange?) throws(QueryError) {
        guard let d = v.numberValue, d.isFinite, d >= 0 else {
            throw QueryError(.invalidValue, "a distance must be a non-negative number, found \(describe(v))", range: range)
        }
    }

    /// `limit`, `skip`, `size(k) = n`: a non-negative integer.
    static func count(_ v: Value, what: String, range: SourceRange?) throws(QueryError) {
        guard case .int(let n) = v, n >= 0 else {
            throw QueryError(.invalidValue, "\(what) must be a non-negative integer, found \(describe(v))", range: range)
        }
    }

    /// A count (`size(k) = n`, `limit`, `skip`) as the integer it stands
    /// for: a double with a whole value (`2.0`) becomes `.int(2)`, as MongoDB
    /// and the evaluator read it; anything else is returned unchanged.
    /// Emitters write counts this way because the readers of their output
    /// (the CQL parser, `$size` and `limit` readers) want integers.
    static func wholeCount(_ v: Value) -> Value {
        guard case .double(let d) = v, d.isFinite, d == d.rounded(.towardZero), abs(d) < 9.2e18 else { return v }
        return .int(Int64(d))
    }

    /// The pattern of `like` / `regexp`: a string.
    static func pattern(_ v: Value, what: String, range: SourceRange?) throws(QueryError) -> String {
        guard case .string(let s) = v else {
            throw QueryError(.invalidValue, "the pattern of \(what) must be a string, found \(describe(v))", range: range)
        }
        return s
    }

    /// The object of `related ... to`: a Pointer.
    static func pointer(_ v: Value, range: SourceRange?) throws(QueryError) {
        guard case .pointer = v else {
            throw QueryError(.invalidValue, "'related ... to' needs a Pointer (pointer('Class', 'objectId')), found \(describe(v))", range: range)
        }
    }

    /// `within a and b` / `$box: [a, b]` as its true southwest and northeast
    /// corners: the min and max of the corners' latitudes and longitudes, as
    /// MongoDB's `$box` normalizes corners given the wrong way round
    /// (EvaluationSemantics.md; the box never wraps the antimeridian).
    ///
    /// ```swift
    /// OperandChecks.box(GeoPoint(latitude: 10, longitude: 0), GeoPoint(latitude: 0, longitude: 20))
    /// // (southwest: (lat 0, lng 0), northeast: (lat 10, lng 20))
    /// ```
    static func box(_ a: GeoPoint, _ b: GeoPoint) -> (southwest: GeoPoint, northeast: GeoPoint) {
        (GeoPoint(latitude: min(a.latitude, b.latitude), longitude: min(a.longitude, b.longitude)),
         GeoPoint(latitude: max(a.latitude, b.latitude), longitude: max(a.longitude, b.longitude)))
    }

    /// `near ... min a max b`: an inverted distance range is a query error (it
    /// could never match and is surely a mistake; a box's corners, by
    /// contrast, are normalized as MongoDB does).
    /// Bounds in different units are compared as central angles.
    static func distanceBounds(min lo: Distance, max hi: Distance, range: SourceRange?) throws(QueryError) {
        guard let a = lo.value.value?.numberValue, let b = hi.value.value?.numberValue else { return }
        if a / lo.unit.earthRadius > b / hi.unit.earthRadius {
            throw QueryError(.invalidValue, "'near' needs min <= max: the minimum distance is greater than the maximum distance", range: range)
        }
    }

    /// Splits a leading inline option group `(?imsx)` off a regex (CQL.md,
    /// "`like` and `regexp`"):
    /// `(?i)^a` → (`^a`, `i`). Only the letters `imsx`, the whole group, at the
    /// very start; the options come back sorted and without repeats.
    static func liftRegexOptions(_ pattern: String) -> (pattern: String, options: String) {
        // Most patterns have no group to lift: tell without copying the bytes.
        var head = pattern.utf8.makeIterator()
        guard head.next() == UInt8(ascii: "("), head.next() == UInt8(ascii: "?") else { return (pattern, "") }
        let u = Array(pattern.utf8)
        guard u.count >= 4 else { return (pattern, "") }
        var i = 2
        var letters = Set<UInt8>()
        while i < u.count, "imsx".utf8.contains(u[i]) { letters.insert(u[i]); i += 1 }
        guard i > 2, i < u.count, u[i] == UInt8(ascii: ")") else { return (pattern, "") }
        let rest = String(decoding: u[(i + 1)...], as: UTF8.self)
        return (rest, String(decoding: letters.sorted(), as: UTF8.self))
    }

    /// The union of two option strings, sorted, without repeats.
    static func mergeOptions(_ a: String, _ b: String) -> String {
        String(decoding: Set(a.utf8).union(b.utf8).sorted(), as: UTF8.self)
    }
}
