/// The typed-value functions of CQL (`date`, `pointer`, `geopoint`, `file`,
/// `base64`): arity, argument checks and evaluation. The parser folds calls
/// whose arguments are constants; the binder evaluates the rest once the
/// placeholders have values, through the same code, so both report the same
/// errors.
enum TypedFunctions {
    /// The function called `name` (lowercase), if CQL has one.
    static func named(_ name: String) -> Term.Function? {
        Term.Function(rawValue: name)
    }

    static let allNames = "date, pointer, geopoint, file, base64 and current_timestamp"

    /// The parameters, for arity messages.
    static func parameters(of f: Term.Function) -> [String] {
        switch f {
        case .date: return ["an ISO 8601 string"]
        case .pointer: return ["className", "objectId"]
        case .geopoint: return ["longitude", "latitude"]
        case .file: return ["objectId"]
        case .base64: return ["base64 text"]
        }
    }

    /// `date() takes 1 argument (an ISO 8601 string), found 2`
    static func arityMessage(_ f: Term.Function, found: Int) -> String {
        let p = parameters(of: f)
        let n = p.count == 1 ? "1 argument" : "\(p.count) arguments"
        return "\(f.rawValue)() takes \(n) (\(p.joined(separator: ", "))), found \(found)"
    }

    /// Checks one argument's type and content; returns the value to use.
    static func checkArgument(_ f: Term.Function, _ index: Int, _ v: Value, range: SourceRange?) throws(QueryError) -> Value {
        func needs(_ what: String) -> QueryError {
            QueryError(.invalidValue, "\(f.rawValue)() needs \(what) as its \(ordinal(index + 1)) argument, found \(OperandChecks.describe(v))", range: range)
        }
        switch f {
        case .date:
            if case .date = v { return v }
            guard case .string(let s) = v else { throw needs("a string") }
            guard let d = ISODate.parse(s) else {
                throw QueryError(.invalidValue, "invalid date \(OperandChecks.describe(v)): expected ISO 8601 such as '2011-08-20T02:06:57.931Z'", range: range)
            }
            return .date(d)
        case .pointer, .file:
            guard case .string(let s) = v else { throw needs("a string") }
            if s.isEmpty {
                let what = f == .file ? "an objectId" : (index == 0 ? "a class name" : "an objectId")
                throw QueryError(.invalidValue, "\(f.rawValue)() needs \(what), found an empty string", range: range)
            }
            return v
        case .geopoint:
            guard let d = v.numberValue else { throw needs("a number") }
            guard d.isFinite else { throw needs("a finite number") }
            return v
        case .base64:
            guard case .string(let s) = v else { throw needs("a string") }
            // The whole character, not its first UTF-8 byte (which alone prints as U+FFFD).
            for ch in s.unicodeScalars where !(ch.isASCII && isBase64Byte(UInt8(ch.value))) {
                throw QueryError(.invalidValue, "base64() needs base64 text (A-Z a-z 0-9 + / =), found the character '\(ch)'", range: range)
            }
            return v
        }
    }

    static func isBase64Byte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "/") || b == UInt8(ascii: "=")
            || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }

    /// The value of `f(args)`; errors point at the argument, or at the call
    /// for errors about the whole call (arity, GeoPoint ranges).
    static func evaluate(_ f: Term.Function, _ args: [Value], argRanges: [SourceRange?], callRange: SourceRange?) throws(QueryError) -> Value {
        guard args.count == parameters(of: f).count else {
            throw QueryError(.syntax, arityMessage(f, found: args.count), range: callRange)
        }
        var checked: [Value] = []
        for (i, a) in args.enumerated() {
            checked.append(try checkArgument(f, i, a, range: i < argRanges.count ? argRanges[i] : callRange))
        }
        switch f {
        case .date:
            return checked[0]
        case .pointer:
            return .pointer(Pointer(className: checked[0].stringValue ?? "", objectId: checked[1].stringValue ?? ""))
        case .geopoint:
            let lng = checked[0].numberValue ?? .nan, lat = checked[1].numberValue ?? .nan
            let g = GeoPoint(latitude: lat, longitude: lng)
            guard g.isValid else {
                throw QueryError(.invalidValue, OperandChecks.geoRangeMessage(longitude: checked[0], latitude: checked[1]), range: callRange)
            }
            return .geoPoint(g)
        case .file:
            return .file(FileReference(id: checked[0].stringValue))
        case .base64:
            return .bytes(base64: checked[0].stringValue ?? "")
        }
    }

    /// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st` ...
    static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 10, n % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(n)\(suffix)"
    }
}
