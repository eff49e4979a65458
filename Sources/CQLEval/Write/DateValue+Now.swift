import CQLKit
import Foundation

extension DateValue {
    /// The current instant, to the millisecond (rounded down): what a write
    /// stamps as createdAt/updatedAt and what time functions read. (Here,
    /// not in CQLKit, which reads no clock.)
    public static var now: DateValue {
        DateValue(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
