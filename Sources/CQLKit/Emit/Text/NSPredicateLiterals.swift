/// Constants in NSPredicate text.
enum NSPredicateLiterals {
    /// `"text"` with `\\ \" \n \t \r` and `\u00XX` for other control characters.
    static func string(_ s: String) -> String {
        var out = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if ch.value < 0x20 || ch.value == 0x7F {
                    let h = String(ch.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(ch)
                }
            }
        }
        return out + "\""
    }

    /// The literal of `v`, or `nil` when NSPredicate text has none.
    static func literal(_ v: Value) -> String? {
        switch v {
        case .null: return "nil"
        case .bool(let b): return b ? "TRUE" : "FALSE"
        case .int(let i): return String(i)
        case .double(let d):
            guard d.isFinite else { return nil }
            let s = "\(d)"
            // Keep it a decimal when read back (`1.0`, `1e+20`).
            return s.contains(".") || s.contains("e") ? s : s + ".0"
        case .string(let s): return string(s)
        case .date(let d): return "CAST(" + seconds(d) + ", \"NSDate\")"
        default: return nil
        }
    }

    /// Seconds since 2001-01-01T00:00:00Z, exact to the millisecond.
    static func seconds(_ d: DateValue) -> String {
        let ms = d.millisecondsSince1970 - NSPredicateParserState.referenceDateMilliseconds
        let sign = ms < 0 ? "-" : ""
        let magnitude = ms.magnitude
        let whole = magnitude / 1000, fraction = magnitude % 1000
        guard fraction != 0 else { return sign + String(whole) }
        var f = String(fraction)
        f = String(repeating: "0", count: 3 - f.count) + f
        while f.hasSuffix("0") { f.removeLast() }
        return sign + String(whole) + "." + f
    }
}
