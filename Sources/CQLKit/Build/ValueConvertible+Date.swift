// Foundation's `Date` as a query value. FoundationEssentials (where it
// exists) is much lighter to link than all of Foundation and has `Date`.
#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

#if canImport(FoundationEssentials) || canImport(Foundation)
extension Date: ValueConvertible {
    /// The date rounded to the nearest millisecond (the services store
    /// milliseconds; rounding rather than truncating keeps
    /// `1434909772.249` from becoming `…248` through binary floating point).
    ///
    /// Throws `invalidValue` for a date that has no ISO 8601 form with a
    /// four-digit year (before year 0 or after 9999).
    public func queryValue() throws(QueryError) -> Value {
        let ms = (timeIntervalSince1970 * 1000).rounded()
        if ms.isFinite, let exact = Int64(exactly: ms) {
            let date = DateValue(millisecondsSince1970: exact)
            if ISODate.parse(ISODate.format(date)) == date { return .date(date) }
        }
        throw QueryError(.invalidValue, "the date \(timeIntervalSince1970) seconds since 1970 is outside the years 0000...9999")
    }
}
#endif
