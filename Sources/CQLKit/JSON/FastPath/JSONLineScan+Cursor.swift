extension JSONLineScan {
    /// The scan's position in a line, and what it learned on the way. Every
    /// function returns `nil`/`false` for what ``JSONLineScan`` leaves to the
    /// reader (see there), an error included.
    struct Cursor {
        let p: UnsafePointer<UInt8>
        let n: Int
        var i = 0
        /// Whitespace was skipped inside a value (the writer has none).
        var spaced = false
        /// See ``JSONLineScan/verbatim``.
        var verbatim = true
        /// The value of the last integer read.
        var integer: Int64 = 0
        /// Whether the last typed value checked (``typedValueDecodes(from:depth:)``)
        /// is a Date, and its milliseconds: a member that is one is built
        /// from them, not parsed again.
        var isDate = false
        var dateMillis: Int64 = 0
        /// The byte ranges (start, end pairs) of the typed values met whose
        /// spelling ``writersTypedAhead()`` did not settle: their
        /// written form is checked only when the line is written
        /// (``JSONLineScan/writeSorted(to:)``). Moved in and out of the
        /// scan's state, so its storage is kept from line to line.
        var typed: [Int] = []

        init(p: UnsafePointer<UInt8>, n: Int) {
            self.p = p
            self.n = n
        }

        @inline(__always)
        func at(_ b: UInt8) -> Bool { i < n && p[i] == b }

        @inline(__always)
        mutating func skipSpace() {
            while i < n {
                let b = p[i]
                guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
                i += 1
            }
        }

        @inline(__always)
        private mutating func skipInnerSpace() {
            let start = i
            skipSpace()
            if i != start { spaced = true }
        }

        /// A key at `i` (on its opening quote): printable ASCII, no escapes.
        /// Leaves `i` after the closing quote.
        @inline(__always)
        mutating func key() -> Bool {
            let j = specialByte(from: i + 1)
            guard j < n, p[j] == UInt8(ascii: "\"") else { return false }
            i = j + 1
            return true
        }

        /// Whether the key just read by ``key()`` (from `start`, after its
        /// opening quote) is `__type`.
        @inline(__always)
        func keyIsType(from start: Int) -> Bool {
            i - 1 - start == 6 && JSONReader.isTypeKey(UnsafeBufferPointer(start: p + start, count: 6))
        }

        /// The index of the first byte at or after `start` that is `"`, `\`,
        /// a control character, DEL or non-ASCII (`n` when none), eight
        /// bytes at a time: the lowest flagged byte of each SWAR test is
        /// exact (a borrow runs only upward from a flagged byte).
        @inline(__always)
        func specialByte(from start: Int) -> Int {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            var j = start
            while j + 8 <= n {
                let w = UInt64(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
                let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C), del = w ^ (ones &* 0x7F)
                var special = (quote &- ones) & ~quote
                special |= (backslash &- ones) & ~backslash
                special |= (del &- ones) & ~del
                special |= (w &- ones &* 0x20) & ~w
                special = (special | w) & highs
                if special != 0 { return j + special.trailingZeroBitCount >> 3 }
                j += 8
            }
            while j < n {
                let b = p[j]
                if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x7F { return j }
                j += 1
            }
            return n
        }

        /// The value at `i`; `depth` counts the containers it is in.
        mutating func value(depth: Int) -> Kind? {
            guard i < n else { return nil }
            switch p[i] {
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "t"): return word(0x74_72_75_65, 4) ? .true : nil
            case UInt8(ascii: "f"): return word(0x66_61_6C_73_65, 5) ? .false : nil
            case UInt8(ascii: "n"): return word(0x6E_75_6C_6C, 4) ? .null : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil
            }
        }

        /// Whether the `count` bytes at `i` spell `bigEndian`; skips them.
        @inline(__always)
        private mutating func word(_ bigEndian: UInt64, _ count: Int) -> Bool {
            guard i + count <= n else { return false }
            var w: UInt64 = 0
            for k in 0..<count { w = w << 8 | UInt64(p[i + k]) }
            guard w == bigEndian else { return false }
            i += count
            return true
        }

        private mutating func object(depth: Int) -> Kind? {
            guard depth < JSONLineScan.maxDepth else { return nil }
            // A typed value in the writer's spelling is read in one pass
            // (most objects of an export are Dates, Pointers, GeoPoints).
            if i + 2 < n, p[i + 2] == UInt8(ascii: "_") || p[i + 1] == 0x20 || p[i + 1] == 0x09, writersTypedAhead() { return .typed }
            let start = i
            let outer = (verbatim: verbatim, spaced: spaced)
            var isTyped = false
            i += 1
            skipInnerSpace()
            if at(UInt8(ascii: "}")) { i += 1; return .object }
            var previous = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
            while true {
                skipInnerSpace()
                guard at(UInt8(ascii: "\"")) else { return nil }
                let keyStart = i + 1
                guard key() else { return nil }
                if keyIsType(from: keyStart) { isTyped = true }
                let key = UnsafeBufferPointer(start: p + keyStart, count: i - 1 - keyStart)
                if previous.baseAddress != nil && !JSONLineScan.less(previous, key) { verbatim = false }
                previous = key
                skipInnerSpace()
                guard at(UInt8(ascii: ":")) else { return nil }
                i += 1
                skipInnerSpace()
                guard value(depth: depth + 1) != nil else { return nil }
                skipInnerSpace()
                if at(UInt8(ascii: ",")) { i += 1; continue }
                if at(UInt8(ascii: "}")) { i += 1; break }
                return nil
            }
            guard isTyped else { return .object }
            // A typed value: it must decode as the reader decodes it; its
            // written form (keys, numbers, the date's spelling) is the
            // writer's business, checked when the line is written.
            // (One in the writer's spelling was read by writersTypedAhead.)
            verbatim = outer.verbatim
            spaced = outer.spaced || spaced  // spaces inside: its member is re-copied without them
            guard typedValueDecodes(from: start, depth: depth) else { return nil }
            typed.append(start)
            typed.append(i)
            return .typed
        }

        private mutating func array(depth: Int) -> Kind? {
            guard depth < JSONLineScan.maxDepth else { return nil }
            i += 1
            skipInnerSpace()
            if at(UInt8(ascii: "]")) { i += 1; return .array }
            while true {
                skipInnerSpace()
                guard value(depth: depth + 1) != nil else { return nil }
                skipInnerSpace()
                if at(UInt8(ascii: ",")) { i += 1; continue }
                if at(UInt8(ascii: "]")) { i += 1; return .array }
                return nil
            }
        }

        /// A string at `i` (on its opening quote), plain runs a word at a time.
        private mutating func string() -> Kind? {
            var j = i + 1
            var escaped = false
            while true {
                j = specialByte(from: j)
                guard j < n else { return nil }
                let b = p[j]
                if b == UInt8(ascii: "\"") {
                    i = j + 1
                    return escaped ? .escapedString : .plainString
                }
                if b == 0x7F {
                    verbatim = false
                    j += 1
                    continue
                }
                if b >= 0x80 {
                    // UTF-8, which the writer copies as it is; anything else
                    // is the reader's error.
                    guard let end = JSONStringScan.utf8RunEnd(p, from: j, end: n) else { return nil }
                    j = end
                    continue
                }
                guard b == UInt8(ascii: "\\"), j + 1 < n else { return nil }  // a control character or non-ASCII
                escaped = true
                switch p[j + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"),
                    UInt8(ascii: "b"), UInt8(ascii: "f"):
                    j += 2
                case UInt8(ascii: "/"):
                    verbatim = false
                    j += 2
                case UInt8(ascii: "u"):
                    guard j + 6 <= n else { return nil }
                    var scalar: UInt32 = 0
                    for k in 2..<6 {
                        let c = p[j + k]
                        let d: UInt8
                        switch c {
                        case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - 48
                        case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - 87
                        case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - 55
                        default: return nil
                        }
                        scalar = scalar << 4 | UInt32(d)
                    }
                    if scalar >= 0xD800 && scalar <= 0xDFFF { return nil }
                    verbatim = false
                    j += 6
                default:
                    return nil
                }
            }
        }

        @inline(__always)
        private func isDigit(_ k: Int) -> Bool { k < n && p[k] >= 0x30 && p[k] <= 0x39 }

        /// A number at `i`: an integer of up to 18 digits (its value in
        /// ``integer``) or a fraction without exponent.
        mutating func number() -> Kind? {
            var negative = false
            if p[i] == UInt8(ascii: "-") {
                negative = true
                i += 1
            }
            guard isDigit(i) else { return nil }
            let digits = i
            var v: Int64 = 0
            if p[i] == UInt8(ascii: "0") {
                i += 1
                if isDigit(i) { return nil }
            } else {
                while isDigit(i) {
                    if i - digits < 18 { v = v &* 10 &+ Int64(p[i] &- 48) }
                    i += 1
                }
            }
            let count = i - digits
            var kind = Kind.integer
            if at(UInt8(ascii: ".")) {
                i += 1
                guard isDigit(i) else { return nil }
                while isDigit(i) { i += 1 }
                guard count <= 300 else { return nil }
                kind = .fraction
                verbatim = false
            }
            if at(UInt8(ascii: "e")) || at(UInt8(ascii: "E")) { return nil }
            if kind == .integer {
                guard count <= 18 else { return nil }
                if negative && v == 0 { verbatim = false }  // -0 is written 0
                integer = negative ? -v : v
            }
            return kind
        }
    }
}
