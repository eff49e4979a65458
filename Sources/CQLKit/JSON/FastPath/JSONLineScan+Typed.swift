extension JSONLineScan.Cursor {
    /// One member of a typed value, as far as deciding whether it decodes
    /// goes: where its value lies and what it is.
    private struct Slot {
        var start = -1, end = -1
        var kind = JSONLineScan.Kind.null
        var integer: Int64 = 0
        var isString: Bool { start >= 0 && (kind == .plainString || kind == .escapedString) }
    }

    /// The members of a typed value that some type reads, each where its
    /// (last) value lies.
    private struct TypedMembers {
        var type = Slot(), iso = Slot(), className = Slot(), objectId = Slot(), latitude = Slot(), longitude = Slot()
        var id = Slot(), name = Slot(), base64 = Slot()
    }

    /// The members of the object at `start..<end` (already scanned as well
    /// formed), `nil` when one is outside the scan's subset. Shared by the
    /// check that a typed value decodes and by building one.
    private static func typedMembers(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int, depth: Int) -> TypedMembers? {
        var m = TypedMembers()
        var walk = JSONLineScan.Cursor(p: p, n: end)
        walk.i = start + 1
        while true {
            walk.skipSpace()
            guard walk.at(UInt8(ascii: "\"")) else { break }  // `{}` cannot hold `__type`
            let keyStart = walk.i + 1
            guard walk.key() else { return nil }
            let key = UnsafeBufferPointer(start: p + keyStart, count: walk.i - 1 - keyStart)
            walk.skipSpace()
            walk.i += 1  // the colon
            walk.skipSpace()
            let valueStart = walk.i
            guard let kind = walk.value(depth: depth + 1) else { return nil }
            let slot = Slot(start: valueStart, end: walk.i, kind: kind, integer: walk.integer)
            if equals(key, "__type") { m.type = slot }
            else if equals(key, "iso") { m.iso = slot }
            else if equals(key, "className") { m.className = slot }
            else if equals(key, "objectId") { m.objectId = slot }
            else if equals(key, "latitude") { m.latitude = slot }
            else if equals(key, "longitude") { m.longitude = slot }
            else if equals(key, "id") { m.id = slot }
            else if equals(key, "name") { m.name = slot }
            else if equals(key, "base64") { m.base64 = slot }
            walk.skipSpace()
            guard walk.at(UInt8(ascii: ",")) else { break }
            walk.i += 1
        }
        return m
    }

    /// Whether the object at `start..<i`, already scanned and holding a
    /// `"__type"` key, decodes without error as ``JSONReader`` decodes it
    /// (`decodingTypedValues`): the same answer as `TypedValueCoding`,
    /// read from the members' bytes (a repeated key: its last value).
    ///
    /// Why: every object of a LeanCloud export has a Date, a Pointer or a
    /// GeoPoint or two; building each (a dictionary, strings, a date) to
    /// learn that it is well formed cost more than scanning the line. The
    /// common shapes are decided here without building anything; the rest
    /// (a `__type` with escapes, `Object`, unknown types, a GeoPoint at or
    /// beyond its bounds) is read alone by the reader, which also gives the
    /// answer for a malformed one.
    mutating func typedValueDecodes(from start: Int, depth: Int) -> Bool {
        let end = i
        isDate = false
        // A second walk over the members (the object is known to be well
        // formed): typed values are small, and the first walk stays free of
        // key comparisons for the plain objects that are most objects.
        guard let m = Self.typedMembers(p, from: start, to: end, depth: depth) else { return readAlone(start, end) }
        let (type, iso, className, objectId) = (m.type, m.iso, m.className, m.objectId)
        let (latitude, longitude, id, name, base64) = (m.latitude, m.longitude, m.id, m.name, m.base64)
        guard type.kind == .plainString else { return readAlone(start, end) }  // no string: a plain object; escapes
        let typeName = Self.text(type, p)
        let decodes: Bool
        if Self.equals(typeName, "Date") {
            let date = iso.kind == .plainString
                ? ISODate.parse(bytes: UnsafeBufferPointer(start: p + iso.start + 1, count: iso.end - iso.start - 2)) : nil
            decodes = date != nil
            if let date {
                isDate = true
                dateMillis = date.millisecondsSince1970
            }
        } else if Self.equals(typeName, "Pointer") {
            decodes = className.isString && objectId.isString
        } else if Self.equals(typeName, "GeoPoint") {
            decodes = within(latitude, 90) && within(longitude, 180)
        } else if Self.equals(typeName, "File") {
            decodes = id.isString || name.isString
        } else if Self.equals(typeName, "Bytes") {
            decodes = base64.isString
        } else if Self.equals(typeName, "Relation") {
            decodes = className.isString
        } else {
            decodes = false  // Object (its fields decoded again), an unknown type
        }
        return decodes || readAlone(start, end)
    }

    /// The Date, Pointer or GeoPoint at `start..<end` (an object the scan
    /// accepted as ``JSONLineScan/Kind/typed``, so one that decodes) as the
    /// reader decodes it: a Date from its `iso`, a Pointer from its
    /// `className` and `objectId`, a GeoPoint from its two numbers (a
    /// repeated key: its last value; other members are ignored, as
    /// `TypedValueCoding` ignores them). `nil` for the other types and for
    /// members with escapes: the reader builds those.
    ///
    /// ```swift
    /// // {"__type":"Date","iso":"2024-03-01T08:00:00.000Z"}
    /// Cursor.typedValue(in: p, from: 0, to: n)   // .date(2024-03-01T08:00:00.000Z)
    /// ```
    static func typedValue(in p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Value? {
        guard let m = typedMembers(p, from: start, to: end, depth: 1) else { return nil }
        let (type, iso, className, objectId, latitude, longitude) = (m.type, m.iso, m.className, m.objectId, m.latitude, m.longitude)
        guard type.kind == .plainString else { return nil }
        let typeName = text(type, p)
        if equals(typeName, "Date") {
            guard iso.kind == .plainString, let d = ISODate.parse(bytes: text(iso, p)) else { return nil }
            return .date(d)
        }
        if equals(typeName, "Pointer") {
            guard className.kind == .plainString, objectId.kind == .plainString else { return nil }
            return .pointer(Pointer(className: String(decoding: text(className, p), as: UTF8.self),
                                    objectId: String(decoding: text(objectId, p), as: UTF8.self)))
        }
        if equals(typeName, "GeoPoint") {
            guard let lat = number(latitude, p), let lng = number(longitude, p) else { return nil }
            let g = GeoPoint(latitude: lat, longitude: lng)
            return g.isValid ? .geoPoint(g) : nil
        }
        return nil
    }

    /// A number member as the reader reads it into a GeoPoint: an integer
    /// widened, a fraction through `Double(String)` (`NumberText`).
    private static func number(_ slot: Slot, _ p: UnsafePointer<UInt8>) -> Double? {
        switch slot.kind {
        case .integer: return Double(slot.integer)
        case .fraction:
            guard let d = Double(String(decoding: UnsafeBufferPointer(start: p + slot.start, count: slot.end - slot.start), as: UTF8.self)),
                  d.isFinite else { return nil }
            return d
        default: return nil
        }
    }

    /// Reads the typed value at `i` (on its `{`) in one pass when it is
    /// spelled as the writer spells a Date, a Pointer or a GeoPoint — which
    /// is how every one a LeanCloud export or a stored document holds is
    /// spelled, up to whitespace between tokens (then ``spaced`` is set) —
    /// and decodes, checking as it goes what the scan checks
    /// (UTF-8, JSON numbers): on `true`, `i` is after it and the cursor holds
    /// what the scan would have left (``isDate``, ``dateMillis``; a
    /// GeoPoint's range in ``typed``, whether its numbers are their doubles'
    /// shortest text being ``typedIsVerbatim(in:from:to:)``'s to say); on
    /// `false` nothing has changed, and the scan reads the object as any
    /// other and ``typedValueDecodes(from:depth:)`` decides it.
    ///
    /// The answers agree with ``typedValueDecodes(from:depth:)``'s: a Date
    /// whose `iso` is the writer's fixed layout with every field in range
    /// (what `ISODate.parse` accepts of it, same milliseconds), a Pointer
    /// with two strings, a GeoPoint whose numbers are within ±90 and ±180
    /// as `within` reads them.
    ///
    /// Why: walking a typed value's keys and strings as those of any object,
    /// then its members again to compare each key with nine names, cost a
    /// fifth of scanning a LeanCloud line, which holds three.
    mutating func writersTypedAhead() -> Bool {
        if writersTypedAhead(.compact) { return true }
        // Python's `json.dumps` layout, then any other whitespace: the same
        // tokens; the member holding it is re-copied without the spaces.
        if writersTypedAhead(.python) || writersTypedAheadSpaced() {
            spaced = true
            return true
        }
        return false
    }

    /// The two layouts read by fixed literals: the writer's, and Python's
    /// default (a space after each `:` and `,`).
    enum TypedLayout { case compact, python }

    @inline(__always)
    private mutating func writersTypedAhead(_ layout: TypedLayout) -> Bool {
        let start = i
        var k = start
        let python = layout == .python
        // The type name's first byte, after `{"__type":"` (or `{"__type": "`).
        let name = python ? 12 : 11
        guard k + name + 1 < n, p[k + name - 1] == UInt8(ascii: "\"") else { return false }
        // Methods with `k` passed in, not nested functions: those capture
        // `k` in a heap box when the cursor is mutated.
        switch p[k + name] {
        case UInt8(ascii: "D"):
            guard literal(python ? #"{"__type": "Date", "iso": ""# : #"{"__type":"Date","iso":""#, &k), k + 26 <= n,
                  p[k + 24] == UInt8(ascii: "\""), p[k + 25] == UInt8(ascii: "}"),
                  let ms = JSONLineScan.Cursor.writtenDate(p + k) else { return false }
            i = k + 26
            isDate = true
            dateMillis = ms
            return true
        case UInt8(ascii: "P"):
            guard literal(python ? #"{"__type": "Pointer", "className": ""# : #"{"__type":"Pointer","className":""#, &k),
                  plainBody(&k), literal(python ? #"", "objectId": ""# : #"","objectId":""#, &k),
                  plainBody(&k), literal(#""}"#, &k) else { return false }
            i = k
            isDate = false
            return true
        case UInt8(ascii: "G"):
            guard literal(python ? #"{"__type": "GeoPoint", "latitude": "# : #"{"__type":"GeoPoint","latitude":"#, &k),
                  boundedNumber(&k, 90), literal(python ? #", "longitude": "# : #","longitude":"#, &k),
                  boundedNumber(&k, 180), literal("}", &k) else { return false }
            i = k
            isDate = false
            typed.append(start)
            typed.append(k)
            return true
        default:
            return false
        }
    }

    /// ``writersTypedAhead()`` for a typed value with whitespace between its
    /// tokens in another layout than Python's (tabs, several spaces): the
    /// same members in the same order, each token matched with the spaces
    /// JSON allows before it. Its member is re-copied without the spaces
    /// (``JSONCanonicalCopy``), which gives the writer's spelling because
    /// the tokens are the writer's.
    ///
    /// Why: a line of spaced JSON has three typed values; read as any
    /// object, then decided by ``typedValueDecodes(from:depth:)``, they cost
    /// a third of its scan.
    private mutating func writersTypedAheadSpaced() -> Bool {
        let start = i
        var k = start
        guard spacedTokens(#"{"__type":""#, inString: false, &k), k < n else { return false }
        switch p[k] {
        case UInt8(ascii: "D"):
            guard spacedTokens(#"Date","iso":""#, inString: true, &k), k + 25 <= n, p[k + 24] == UInt8(ascii: "\""),
                  let ms = JSONLineScan.Cursor.writtenDate(p + k) else { return false }
            k += 24
            guard spacedTokens(#""}"#, inString: true, &k) else { return false }
            isDate = true
            dateMillis = ms
        case UInt8(ascii: "P"):
            guard spacedTokens(#"Pointer","className":""#, inString: true, &k), plainBody(&k),
                  spacedTokens(#"","objectId":""#, inString: true, &k), plainBody(&k),
                  spacedTokens(#""}"#, inString: true, &k) else { return false }
            isDate = false
        case UInt8(ascii: "G"):
            guard spacedTokens(#"GeoPoint","latitude":"#, inString: true, &k), skipSpaces(&k), boundedNumber(&k, 90),
                  spacedTokens(#","longitude":"#, inString: false, &k), skipSpaces(&k), boundedNumber(&k, 180),
                  spacedTokens("}", inString: false, &k) else { return false }
            isDate = false
            typed.append(start)
            typed.append(k)
        default:
            return false
        }
        i = k
        return true
    }

    @inline(__always)
    private func spacedTokens(_ s: StaticString, inString: Bool, _ k: inout Int) -> Bool {
        JSONLineScan.Cursor.spacedTokens(s, inString: inString, p, &k, n)
    }

    @inline(__always)
    private func skipSpaces(_ k: inout Int) -> Bool {
        JSONLineScan.Cursor.skipSpaces(p, &k, n)
    }

    /// Whether the bytes at `k` (before `end`) spell the JSON tokens of `s`
    /// with any whitespace JSON allows between tokens (none inside a string;
    /// `inString`: `s` starts inside one); skips them.
    @inline(__always)
    static func spacedTokens(_ s: StaticString, inString: Bool, _ p: UnsafePointer<UInt8>, _ k: inout Int, _ end: Int) -> Bool {
        var inString = inString
        let q = s.utf8Start
        for j in 0..<s.utf8CodeUnitCount {
            let c = q[j]
            if !inString { _ = skipSpaces(p, &k, end) }
            guard k < end, p[k] == c else { return false }
            k += 1
            if c == UInt8(ascii: "\"") { inString.toggle() }
        }
        return true
    }

    /// Skips whitespace at `k` (before `end`); always `true` (to sit in a
    /// condition list).
    @inline(__always)
    static func skipSpaces(_ p: UnsafePointer<UInt8>, _ k: inout Int, _ end: Int) -> Bool {
        while k < end, p[k] == 0x20 || p[k] == 0x0A || p[k] == 0x0D || p[k] == 0x09 { k += 1 }
        return true
    }

    /// Whether the bytes at `k` spell `s`; skips them.
    @inline(__always)
    private func literal(_ s: StaticString, _ k: inout Int) -> Bool {
        let count = s.utf8CodeUnitCount
        guard k + count <= n, JSONLineScan.Cursor.equal(p + k, s.utf8Start, count) else { return false }
        k += count
        return true
    }

    /// A string body at `k` without `\`, control bytes or DEL, its UTF-8
    /// checked as ``string()`` checks it; `k` ends on the closing quote.
    @inline(__always)
    private func plainBody(_ k: inout Int) -> Bool {
        while true {
            k = specialByte(from: k)
            guard k < n else { return false }
            if p[k] == UInt8(ascii: "\"") { return true }
            guard p[k] >= 0x80, let end = JSONStringScan.utf8RunEnd(p, from: k, end: n) else { return false }
            k = end
        }
    }

    /// Whether the JSON number at `k` is one ``number()`` accepts with its
    /// integer part within `bound` as `within` reads it (an integer up to
    /// the bound, a fraction below it); `k` ends after it.
    /// The cursor is left as it was.
    private mutating func boundedNumber(_ k: inout Int, _ bound: Int64) -> Bool {
        guard k < n, p[k] == UInt8(ascii: "-") || (p[k] >= 0x30 && p[k] <= 0x39) else { return false }
        let saved = (i, verbatim, integer)
        i = k
        let kind = number()
        let end = i
        (i, verbatim, integer) = saved
        guard kind != nil else { return false }
        var d = k
        if p[d] == UInt8(ascii: "-") { d += 1 }
        var whole: Int64 = 0
        while d < end, p[d] >= 0x30, p[d] <= 0x39 {
            whole = whole &* 10 &+ Int64(p[d] &- 48)
            if whole > bound { return false }
            d += 1
        }
        guard d == end || whole < bound else { return false }
        k = end
        return true
    }

    /// Whether the `count` bytes at `a` and `b` are the same, eight at a time.
    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var j = 0
        while j + 8 <= count {
            guard UnsafeRawPointer(a + j).loadUnaligned(as: UInt64.self) == UnsafeRawPointer(b + j).loadUnaligned(as: UInt64.self)
            else { return false }
            j += 8
        }
        while j < count {
            guard a[j] == b[j] else { return false }
            j += 1
        }
        return true
    }

    /// The milliseconds of the 24 bytes at `p` when they are a date in the
    /// writer's layout, `YYYY-MM-DDTHH:MM:SS.fffZ`, with every field in
    /// range (so the writer prints the same text back); `nil` otherwise.
    /// The same milliseconds as `ISODate.parse` of those bytes.
    static func writtenDate(_ p: UnsafePointer<UInt8>) -> Int64? {
        // Three words: digits where the layout has them (each byte minus
        // '0' below 10: no byte of `w - '0'` borrows and none reaches 10),
        // the separators compared whole.
        @inline(__always) func word(_ k: Int) -> UInt64 { UInt64(littleEndian: UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self)) }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func digits(_ w: UInt64, _ mask: UInt64) -> Bool {
            let d = (w & mask) | (ones &* 0x30 & ~mask)  // a '0' where no digit is expected
            let v = d &- ones &* 0x30
            // A byte below '0' borrows, which sets the high bit of the lowest
            // such byte of `v` (as a byte of 0x80 or more sets one of `d`);
            // else each byte of `v` is at most 0x4F, and adding 0x76 carries
            // into its high bit exactly when it is 10 or more.
            return (d | v) & highs == 0 && (v &+ ones &* 0x76) & highs == 0
        }
        // "YYYY-MM-" "DDTHH:MM" ":SS.fffZ" (bytes little-endian: first lowest)
        let w0 = word(0), w1 = word(8), w2 = word(16)
        guard digits(w0, 0x00FF_FF00_FFFF_FFFF), w0 & 0xFF00_00FF_0000_0000 == 0x2D00_002D_0000_0000,
              digits(w1, 0xFFFF_00FF_FF00_FFFF), w1 & 0x0000_FF00_00FF_0000 == 0x0000_3A00_0054_0000,
              digits(w2, 0x00FF_FFFF_00FF_FF00), w2 & 0xFF00_0000_FF00_00FF == 0x5A00_0000_2E00_003A
        else { return nil }
        @inline(__always) func two(_ k: Int) -> Int { Int(p[k] &- 48) &* 10 &+ Int(p[k + 1] &- 48) }
        let year = two(0) &* 100 &+ two(2), month = two(5), day = two(8)
        let hour = two(11), minute = two(14), second = two(17)
        let millis = Int(p[20] &- 48) &* 100 &+ two(21)
        guard month >= 1, month <= 12, day >= 1, day <= ISODate.daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        let days = ISODate.daysFromCivil(year: year, month: month, day: day)
        return (Int64(days) &* 86400 &+ Int64(hour &* 3600 &+ minute &* 60 &+ second)) &* 1000 &+ Int64(millis)
    }

    /// Whether the typed value at `start..<end` (one the scan accepted and
    /// recorded) is spelled exactly as ``JSONWriter`` writes it, decided
    /// from its layout for a GeoPoint whose numbers are their doubles'
    /// shortest text. `nil` for anything else: build it and compare then.
    /// (A Date or Pointer in the writer's spelling is never asked: the scan
    /// decided it, ``writersTypedAhead()``, and did not record it.)
    ///
    /// Why: building each typed value and writing it to compare cost a
    /// fifth of writing a line.
    static func typedIsVerbatim(in p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool? {
        var i = start
        @inline(__always) func literal(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard i + n <= end, equal(p + i, s.utf8Start, n) else { return false }
            i += n
            return true
        }
        /// A fraction written as the writer writes its double.
        @inline(__always) func number() -> Bool {
            let s = i
            while i < end, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: ".") || (p[i] >= 0x30 && p[i] <= 0x39) { i += 1 }
            if shortestDecimal(p + s, i - s) { return true }
            let text = String(decoding: UnsafeBufferPointer(start: p + s, count: i - s), as: UTF8.self)
            guard let d = Double(text) else { return false }
            return JSONWriter.doubleText(d) == text
        }
        // A spaced GeoPoint ({"__type": "GeoPoint", ...}) is the same tokens with spaces between.
        @inline(__always) func tokens(_ s: StaticString, inString: Bool) -> Bool {
            (literal(s) || spacedTokens(s, inString: inString, p, &i, end)) && skipSpaces(p, &i, end)
        }
        guard tokens(#"{"__type":"GeoPoint","latitude":"#, inString: false) else { return nil }
        guard number(), tokens(#","longitude":"#, inString: false), number(), tokens("}", inString: false), i == end else { return nil }
        return true
    }

    /// Whether the `count` bytes at `p` are, for certain, the text the
    /// writer gives the double they read as (`JSONWriter.doubleText`: the
    /// shortest digits that read back as the same double, in plain
    /// notation); `false` when that is not proved here (decide by writing).
    ///
    /// Why: a GeoPoint's two numbers are checked on every line written, and
    /// reading each into a `String`, a `Double` and back cost a microsecond.
    ///
    /// How: `m` (the digits) over 10^k (k fraction digits) with `m` below
    /// 2^53 and k at most 22 is read exactly as the reader reads it (both
    /// exact doubles, one correctly rounded division). The text is the
    /// shortest that reads back as that double when neither neighbour on its
    /// grid (m ± 1) nor either point of the grid ten times coarser around
    /// it (⌊m/10⌋ and ⌊m/10⌋ + 1 over 10^(k-1)) reads as it: the doubles a
    /// text reads as are an interval, so any other text with as few digits
    /// would put one of those four inside it. When the grid is finer than
    /// the doubles there (m ± 1 read as the same double) or `m` reaches
    /// 2^53, the same is decided in exact integer arithmetic, where the
    /// writer's choice among texts of as few digits is the nearest one
    /// (``place(_:_:of:)``, ``isNearestGridPoint(_:_:to:)``). Plain notation: an integer
    /// part of 1 to 15 digits without a leading zero, or `0.` then a
    /// non-zero digit (Swift writes below 0.1 the same, but that is not
    /// needed here), and at least one fraction digit.
    static func shortestDecimal(_ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var k = 0
        if count > 0 && p[0] == UInt8(ascii: "-") { k = 1 }
        let intStart = k
        var m: UInt64 = 0
        while k < count, p[k] >= 0x30, p[k] <= 0x39 {
            m = m &* 10 &+ UInt64(p[k] &- 48)
            k += 1
        }
        let intDigits = k - intStart
        guard intDigits >= 1, intDigits <= 15, k < count, p[k] == UInt8(ascii: "."),
              intDigits == 1 || p[intStart] != UInt8(ascii: "0") else { return false }
        k += 1
        let fracStart = k
        while k < count, p[k] >= 0x30, p[k] <= 0x39 {
            m = m &* 10 &+ UInt64(p[k] &- 48)
            k += 1
        }
        let fraction = k - fracStart
        guard k == count, fraction >= 1, fraction <= 22, intDigits + fraction <= 17,
              p[intStart] != UInt8(ascii: "0") || p[fracStart] != UInt8(ascii: "0") else { return false }
        let coarse = m / 10
        if m + 1 < 1 << 53 {
            let x = Double(m) / powersOfTen[fraction]
            if Double(m - 1) / powersOfTen[fraction] != x && Double(m + 1) / powersOfTen[fraction] != x
                && Double(coarse) / powersOfTen[fraction - 1] != x && Double(coarse + 1) / powersOfTen[fraction - 1] != x {
                return true
            }
        }
        // Sixteen or seventeen digits, as a device's coordinates have (a grid
        // finer than the doubles, or digits beyond 2^53): decided exactly
        // (``place(_:_:of:)``). The writer gives the shortest digits that
        // read back as the double, the nearest of them to it: so neither
        // point of the coarser grid may read as it, and `m` must be strictly
        // inside its interval (whatever the writer's rule at a midpoint) and
        // the point of its grid nearest to it.
        guard fraction <= 19, let x = nearestDouble(m, fraction),
              place(coarse, fraction - 1, of: x) == .outside, place(coarse + 1, fraction - 1, of: x) == .outside,
              isNearestGridPoint(m, fraction, to: x) else { return false }
        return true
    }

    /// 10^0 ... 10^22, each exact as a double.
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

    /// 10^0 ... 10^19, the powers of ten a UInt64 holds.
    private static let integerPowersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(1) { r, _ in r * 10 } }

    /// The double `m` / 10^`k` reads as (correct rounding, as `Double(String)`
    /// reads it) when it lies strictly inside that double's interval, for
    /// `m` below 10^17 and `k` at most 19; `nil` when it is on a midpoint
    /// (the writer's rule there is not this function's to know) or not
    /// found among the three doubles next to the quotient in floating point
    /// (never seen: that quotient is within about one unit in the last place).
    static func nearestDouble(_ m: UInt64, _ k: Int) -> Double? {
        let approx = Double(m) / powersOfTen[k]
        if place(m, k, of: approx) == .inside { return approx }
        if place(m, k, of: approx.nextUp) == .inside { return approx.nextUp }
        if place(m, k, of: approx.nextDown) == .inside { return approx.nextDown }
        return nil
    }

    /// Where a decimal lies against the interval of reals that read as a double.
    enum Place: Equatable {
        /// Strictly between the midpoints to the double's neighbours: reads as it.
        case inside
        /// On one of those midpoints: reads as it when its significand is even.
        case midpoint
        case outside
        /// Not decided (a product beyond 128 bits; a double this does not take).
        case unknown
    }

    /// Where `m` / 10^`k` (0 ≤ k ≤ 19) lies against the interval of the
    /// positive normal double `x`, decided in 128-bit integers: `m`·2^s
    /// against `P`·10^k for each midpoint `P`·2^-s.
    ///
    /// Why: a number of sixteen or seventeen digits is not an exact double,
    /// so a quotient in floating point does not say which double it reads
    /// as; reading it with `strtod` and writing it back to compare cost
    /// five thousand instructions a GeoPoint, a quarter of copying a
    /// LeanCloud row from PostgreSQL.
    static func place(_ m: UInt64, _ k: Int, of x: Double) -> Place {
        guard x.isNormal, x > 0, k >= 0, k <= 19 else { return .unknown }
        let significand = x.significandBitPattern | 1 << 52
        let e = Int(x.exponent) - 52  // x = significand · 2^e
        // Midpoints as P · 2^(e - 2): above, 4M + 2; below, 4M - 2, or 4M - 1
        // when M is a power of two (the neighbour below is twice as close).
        let above = 4 * significand + 2
        let below = significand == 1 << 52 ? 4 * significand - 1 : 4 * significand - 2
        guard let d = shifted(m, 2 - e) else { return .unknown }
        let ten = integerPowersOfTen[k]
        let toAbove = compare(d, above.multipliedFullWidth(by: ten)), toBelow = compare(d, below.multipliedFullWidth(by: ten))
        if toAbove < 0 && toBelow > 0 { return .inside }
        return toAbove == 0 || toBelow == 0 ? .midpoint : .outside
    }

    /// Whether `m` / 10^`k` is strictly the nearest point of its grid to `x`
    /// (a positive normal double): (2m - 1) / (2·10^k) < x < (2m + 1) / (2·10^k).
    static func isNearestGridPoint(_ m: UInt64, _ k: Int, to x: Double) -> Bool {
        guard x.isNormal, x > 0, k >= 0, k <= 19, m > 0, m < 1 << 62 else { return false }
        let significand = x.significandBitPattern | 1 << 52
        let e = Int(x.exponent) - 52
        // Both sides times 2·10^k·2^-e: (2m ± 1)·2^-e against 2M·10^k.
        guard let low = shifted(2 * m - 1, -e), let high = shifted(2 * m + 1, -e) else { return false }
        let value = (2 * significand).multipliedFullWidth(by: integerPowersOfTen[k])
        return compare(low, value) < 0 && compare(high, value) > 0
    }

    /// -1, 0 or 1 as the 128-bit `a` is below, equal to or above `b`.
    @inline(__always)
    private static func compare(_ a: (high: UInt64, low: UInt64), _ b: (high: UInt64, low: UInt64)) -> Int {
        a.high != b.high ? (a.high < b.high ? -1 : 1) : (a.low != b.low ? (a.low < b.low ? -1 : 1) : 0)
    }

    /// `m` · 2^`shift` as a 128-bit (high, low) pair; `nil` when it does not
    /// fit or `shift` is not in 1..<128.
    @inline(__always)
    private static func shifted(_ m: UInt64, _ shift: Int) -> (high: UInt64, low: UInt64)? {
        guard shift > 0, shift < 128 else { return nil }
        if m == 0 { return (0, 0) }
        guard m.leadingZeroBitCount + 64 >= shift else { return nil }
        if shift >= 64 { return (m << UInt64(shift - 64), 0) }
        return (m >> UInt64(64 - shift), m << UInt64(shift))
    }

    /// The bytes between the quotes of a plain string member.
    @inline(__always)
    private static func text(_ slot: Slot, _ p: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: p + slot.start + 1, count: slot.end - slot.start - 2)
    }

    /// Whether a number member is certainly within `-bound...bound`: an
    /// integer checked exactly, a fraction whose integer part is below the
    /// bound (the rest is left to the reader).
    private func within(_ slot: Slot, _ bound: Int64) -> Bool {
        switch slot.kind {
        case .integer: return slot.integer >= -bound && slot.integer <= bound
        case .fraction:
            var k = slot.start
            if p[k] == UInt8(ascii: "-") { k += 1 }
            var whole: Int64 = 0
            while p[k] != UInt8(ascii: ".") {
                whole = whole * 10 + Int64(p[k] &- 48)
                guard whole < bound else { return false }
                k += 1
            }
            return true
        default: return false
        }
    }

    /// Whether the reader reads the object at `start..<end` alone, typed
    /// values decoded, without error — what it does with it inside the line.
    private func readAlone(_ start: Int, _ end: Int) -> Bool {
        (try? JSONReader.parse(bytes: UnsafeBufferPointer(start: p + start, count: end - start), decodingTypedValues: true)) != nil
    }

    /// Whether the bytes `b` spell `name`.
    @inline(__always)
    private static func equals(_ b: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard b.count == name.utf8CodeUnitCount else { return false }
        for k in 0..<b.count where b[k] != name.utf8Start[k] { return false }
        return true
    }
}
