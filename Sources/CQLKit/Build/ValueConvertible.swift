/// A Swift value that the builders (``LCQuery``, ``UsergridQuery``) accept
/// wherever a query needs a value.
///
/// Conforming: `String`, the integer types, `Double`, `Float`, `Bool`,
/// ``Value``, ``DateValue``, ``GeoPoint``, ``Pointer``, ``FileReference``,
/// Foundation's `Date` (milliseconds, as the services store dates), arrays and
/// `[String: …]` dictionaries of conforming values, and optionals (`nil` is
/// `null`).
///
/// ```swift
/// LCQuery("Todo").where("tags", .containedIn(["work", 2]))
/// // where-JSON: {"className":"Todo","where":{"tags":{"$in":["work",2]}}}
/// ```
///
/// The builders check every converted value: doubles must be finite and
/// GeoPoints in range, else `build()` throws an `invalidValue` error.
public protocol ValueConvertible {
    /// The value as the query AST holds it.
    func queryValue() throws(QueryError) -> Value
}

extension Value: ValueConvertible {
    public func queryValue() -> Value { self }
}

extension String: ValueConvertible {
    public func queryValue() -> Value { .string(self) }
}

extension Substring: ValueConvertible {
    public func queryValue() -> Value { .string(String(self)) }
}

extension Bool: ValueConvertible {
    public func queryValue() -> Value { .bool(self) }
}

extension Double: ValueConvertible {
    public func queryValue() -> Value { .double(self) }
}

extension Float: ValueConvertible {
    public func queryValue() -> Value { .double(Double(self)) }
}

extension Int: ValueConvertible {
    public func queryValue() -> Value { .int(Int64(self)) }
}

extension Int8: ValueConvertible {
    public func queryValue() -> Value { .int(Int64(self)) }
}

extension Int16: ValueConvertible {
    public func queryValue() -> Value { .int(Int64(self)) }
}

extension Int32: ValueConvertible {
    public func queryValue() -> Value { .int(Int64(self)) }
}

extension Int64: ValueConvertible {
    public func queryValue() -> Value { .int(self) }
}

extension UInt8: ValueConvertible {
    public func queryValue() -> Value { .int(Int64(self)) }
}

extension UInt16: ValueConvertible {
    public func queryValue() -> Value { .int(Int64(self)) }
}

extension UInt32: ValueConvertible {
    public func queryValue() -> Value { .int(Int64(self)) }
}

extension UInt: ValueConvertible {
    public func queryValue() throws(QueryError) -> Value { try BuilderSupport.exactInteger(self) }
}

extension UInt64: ValueConvertible {
    public func queryValue() throws(QueryError) -> Value { try BuilderSupport.exactInteger(self) }
}

extension DateValue: ValueConvertible {
    public func queryValue() -> Value { .date(self) }
}

extension GeoPoint: ValueConvertible {
    public func queryValue() -> Value { .geoPoint(self) }
}

extension Pointer: ValueConvertible {
    public func queryValue() -> Value { .pointer(self) }
}

extension FileReference: ValueConvertible {
    public func queryValue() -> Value { .file(self) }
}

extension Optional: ValueConvertible where Wrapped: ValueConvertible {
    public func queryValue() throws(QueryError) -> Value {
        guard let value = self else { return .null }
        return try value.queryValue()
    }
}

extension Array: ValueConvertible where Element: ValueConvertible {
    public func queryValue() throws(QueryError) -> Value {
        var out: [Value] = []
        out.reserveCapacity(count)
        for element in self { out.append(try element.queryValue()) }
        return .array(out)
    }
}

extension Dictionary: ValueConvertible where Key == String, Value: ValueConvertible {
    public func queryValue() throws(QueryError) -> CQLKit.Value {
        var out: [String: CQLKit.Value] = [:]
        for (key, value) in self { out[key] = try value.queryValue() }
        return .object(out)
    }
}
