/// Conversion between the REST JSON forms of typed values
/// (`{"__type":"Date","iso":...}`) and the typed cases of ``Value``.
extension Value {
    /// This value with every `{"__type": ...}` object (at any depth) decoded
    /// into its typed case. Objects whose `__type` is unknown stay objects.
    ///
    /// ```swift
    /// try Value.object(["__type": "Pointer", "className": "Post", "objectId": "a1"]).decodingTypedValues()
    /// // .pointer(Pointer(className: "Post", objectId: "a1"))
    /// ```
    /// - Throws: ``QueryError`` of kind `invalidValue` for a malformed typed
    ///   value (a Date without `iso`, a GeoPoint out of range, ...); its `path`
    ///   names the bad part, relative to this value.
    public func decodingTypedValues() throws(QueryError) -> Value {
        try TypedValueCoding.decode(self, path: "")
    }

    /// The REST JSON form: typed cases become `{"__type": ...}` objects; plain
    /// JSON is returned unchanged.
    public var restJSON: Value {
        switch self {
        case .array(let a): return .array(a.map(\.restJSON))
        case .object(let o): return .object(o.mapValues(\.restJSON))
        case .null, .bool, .int, .double, .string: return self
        default: return .object(Dictionary(uniqueKeysWithValues: TypedValueCoding.restFields(of: self).map { ($0.0, $0.1.restJSON) }))
        }
    }
}

enum TypedValueCoding {
    static func restFields(of value: Value) -> [(String, Value)] {
        switch value {
        case .date(let d): return [("__type", "Date"), ("iso", .string(ISODate.format(d)))]
        case .pointer(let p): return [("__type", "Pointer"), ("className", .string(p.className)), ("objectId", .string(p.objectId))]
        case .geoPoint(let g): return [("__type", "GeoPoint"), ("latitude", .double(g.latitude)), ("longitude", .double(g.longitude))]
        case .bytes(let b): return [("__type", "Bytes"), ("base64", .string(b))]
        case .file(let f):
            var r: [(String, Value)] = [("__type", "File")]
            if let id = f.id { r.append(("id", .string(id))) }
            if let name = f.name { r.append(("name", .string(name))) }
            if let url = f.url { r.append(("url", .string(url))) }
            return r
        case .relation(let c): return [("__type", "Relation"), ("className", .string(c))]
        case .typedObject(let c, let fields):
            var r: [(String, Value)] = [("__type", "Object"), ("className", .string(c))]
            for (k, v) in fields where k != "__type" && k != "className" { r.append((k, v)) }
            return r
        case .object(let o): return o.map { ($0.key, $0.value) }
        default: return []
        }
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    static func decode(_ value: Value, path: String) throws(QueryError) -> Value {
        switch value {
        case .array(let items):
            var out: [Value] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try decode(item, path: path + "[\(i)]")) }
            return .array(out)
        case .object(let o):
            if case .string(let type)? = o["__type"] { return try decodeTyped(type, o, path: path) }
            var out: [String: Value] = [:]
            out.reserveCapacity(o.count)
            for (k, v) in o { out[k] = try decode(v, path: join(path, k)) }
            return .object(out)
        default:
            return value
        }
    }

    private static func bad(_ path: String, _ message: String) -> QueryError {
        QueryError(.invalidValue, message, path: path.isEmpty ? nil : path)
    }

    private static func string(_ o: [String: Value], _ key: String, _ type: String, _ path: String) throws(QueryError) -> String {
        guard case .string(let s)? = o[key] else {
            throw bad(join(path, key), "\(type) needs a string '\(key)'")
        }
        return s
    }

    private static func decodeTyped(_ type: String, _ o: [String: Value], path: String) throws(QueryError) -> Value {
        switch type {
        case "Date":
            let iso = try string(o, "iso", "Date", path)
            guard let d = ISODate.parse(iso) else {
                throw bad(join(path, "iso"), "invalid ISO 8601 date '\(iso)'")
            }
            return .date(d)
        case "Pointer":
            return .pointer(Pointer(className: try string(o, "className", "Pointer", path),
                                    objectId: try string(o, "objectId", "Pointer", path)))
        case "GeoPoint":
            guard let lat = o["latitude"]?.numberValue else { throw bad(join(path, "latitude"), "GeoPoint needs a numeric 'latitude'") }
            guard let lng = o["longitude"]?.numberValue else { throw bad(join(path, "longitude"), "GeoPoint needs a numeric 'longitude'") }
            let g = GeoPoint(latitude: lat, longitude: lng)
            guard g.isValid else {
                throw bad(path, "invalid GeoPoint values: latitude must be in -90...90 and longitude in -180...180")
            }
            return .geoPoint(g)
        case "Bytes":
            return .bytes(base64: try string(o, "base64", "Bytes", path))
        case "File":
            // Some exports and older SDKs name the `_File` by `objectId` (WhereJSON.md, typed values).
            let f = FileReference(id: o["id"]?.stringValue ?? o["objectId"]?.stringValue, name: o["name"]?.stringValue, url: o["url"]?.stringValue)
            guard f.id != nil || f.name != nil else { throw bad(path, "File needs an 'id' (or 'objectId') or a 'name'") }
            return .file(f)
        case "Relation":
            return .relation(className: try string(o, "className", "Relation", path))
        case "Object":
            let c = try string(o, "className", "Object", path)
            var fields: [String: Value] = [:]
            for (k, v) in o where k != "__type" && k != "className" { fields[k] = try decode(v, path: join(path, k)) }
            return .typedObject(className: c, fields: fields)
        default:
            // Unknown `__type`s (e.g. Parse's "Polygon") stay plain objects.
            var out: [String: Value] = [:]
            for (k, v) in o { out[k] = try decode(v, path: join(path, k)) }
            return .object(out)
        }
    }
}

/// ISO 8601 dates in the forms the REST APIs use, parsed and printed without
/// Foundation (this runs on the evaluator's hot path for `createdAt`).
///
/// Accepted: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff...]]` followed by `Z`,
/// `±HH:MM`, `±HHMM` or nothing (UTC). Fractions beyond milliseconds are
/// truncated (the services store milliseconds). Printed: `YYYY-MM-DDTHH:MM:SS.fffZ`.
///
/// ```swift
/// let d = ISODate.parse("2011-08-20T10:06:57.931+08:00")!
/// ISODate.format(d)            // "2011-08-20T02:06:57.931Z"
/// ISODate.parse("2011-02-30")  // nil: no such day
/// ```
public enum ISODate {
    /// The instants ISO 8601 text with a four-digit year can write:
    /// 0000-01-01T00:00:00.000Z ... 9999-12-31T23:59:59.999Z, in
    /// milliseconds since 1970. A Date outside it could not be printed as
    /// CQL, where-JSON or SQL and read back, so the front ends refuse it.
    public static let representable: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    public static func parse(_ text: String) -> DateValue? {
        var t = text
        return t.withUTF8 { parse(bytes: $0) }
    }

    public static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> DateValue? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var hour = 0, minute = 0, second = 0, millis = 0, offsetMinutes = 0
        if i < b.count {
            guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") || b[i] == UInt8(ascii: "t") else { return nil }
            i += 1
            guard let h = digits(2), expect(58), let m = digits(2) else { return nil }
            hour = h; minute = m
            if expect(58) {
                guard let s = digits(2) else { return nil }
                second = s
                if expect(46) {
                    var n = 0
                    var frac = 0
                    while i < b.count, b[i] >= 48, b[i] <= 57 {
                        if n < 3 { frac = frac * 10 + Int(b[i] - 48) }
                        n += 1
                        i += 1
                    }
                    guard n > 0 else { return nil }
                    while n < 3 { frac *= 10; n += 1 }
                    millis = frac
                }
            }
            guard hour < 24, minute < 60, second < 61 else { return nil }
            if i < b.count {
                if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                    i += 1
                } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                    let sign = b[i] == UInt8(ascii: "+") ? 1 : -1
                    i += 1
                    guard let oh = digits(2) else { return nil }
                    _ = expect(58)
                    guard let om = digits(2), oh < 24, om < 60 else { return nil }
                    offsetMinutes = sign * (oh * 60 + om)
                } else {
                    return nil
                }
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return DateValue(millisecondsSince1970: seconds * 1000 + Int64(millis))
    }

    /// `YYYY-MM-DDTHH:MM:SS.fffZ`
    public static func format(_ d: DateValue) -> String {
        let ms = d.millisecondsSince1970
        var days = ms / 86_400_000
        var rem = ms % 86_400_000
        if rem < 0 { rem += 86_400_000; days -= 1 }
        let (y, m, dd) = civilFromDays(Int(days))
        let h = Int(rem / 3_600_000), mi = Int(rem / 60_000 % 60), s = Int(rem / 1000 % 60), f = Int(rem % 1000)
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(abs(v))
            return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(dd, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's civil-date algorithms.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral, ExpressibleByDictionaryLiteral
{
    /// `["title": "x", "n": 1]` is `.object(["title": .string("x"), "n": .int(1)])`
    /// (a key given twice keeps its last value).
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}
