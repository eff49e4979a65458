import CQLKit

/// The hooks a write skips: LeanCloud's `__ignore_hooks` mark, honoured only
/// from the master key or the hook key (the app's engine writing from inside
/// a hook, so that saving an object from its own afterSave calls no
/// afterSave again). `true` skips every hook; a list skips the hooks it
/// names (LeanEngine's names: beforeSave, afterSave, beforeUpdate,
/// afterUpdate, beforeDelete, afterDelete).
///
/// ```swift
/// let skips = try SkippedHooks(sent: .array(["afterSave"]))
/// skips.skips("afterSave")    // true
/// skips.skips("beforeSave")   // false
/// try SkippedHooks(sent: true).skips("beforeDelete")   // true
/// ```
public struct SkippedHooks: Sendable, Equatable {
    /// Every hook is skipped (`"__ignore_hooks": true`).
    public var all: Bool
    /// The hooks named (`"__ignore_hooks": ["afterSave"]`).
    public var names: Set<String>

    public static let none = SkippedHooks(all: false, names: [])
    /// The hook names a list may hold.
    public static let known: Set<String> = ["beforeSave", "afterSave", "beforeUpdate", "afterUpdate", "beforeDelete", "afterDelete"]

    public init(all: Bool, names: Set<String>) {
        self.all = all
        self.names = names
    }

    /// `__ignore_hooks` as sent (nil: not sent). Anything but a boolean or a
    /// list of known hook names is refused (107), never taken for "none".
    public init(sent: Value?) throws(APIError) {
        switch sent {
        case nil, .null?, .bool(false)?: self = .none
        case .bool(true)?: self.init(all: true, names: [])
        case .array(let items)?:
            var names: Set<String> = []
            for item in items {
                guard case .string(let name) = item, Self.known.contains(name) else {
                    throw APIError(code: 107, "__ignore_hooks: \(JSONWriter.string(item.restJSON)) is not a hook name (one of \(Self.known.sorted().joined(separator: ", ")))")
                }
                names.insert(name)
            }
            self.init(all: false, names: names)
        case let other?:
            throw APIError(code: 107, "__ignore_hooks: expected true or a list of hook names, got \(JSONWriter.string(other.restJSON))")
        }
    }

    /// Whether the hook called `name` (beforeSave, afterUpdate...) is skipped.
    public func skips(_ name: String) -> Bool { all || names.contains(name) }

    /// Whether no hook is skipped.
    public var isEmpty: Bool { !all && names.isEmpty }
}
