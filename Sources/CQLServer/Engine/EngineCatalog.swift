/// What the app's cloud engine defines, as its
/// `GET /1.1/functions/_ops/metadatas` lists it: cloud functions by name,
/// hooks by LeanEngine's hook names (``EngineHook/name(className:)``).
///
/// ```swift
/// let catalog = EngineCatalog(names: ["hello", "__before_save_for_Review"])
/// catalog.functions                                   // ["hello"]
/// catalog.has(.beforeSave, className: "Review")      // true
/// catalog.has(.afterSave, className: "Review")       // false: never called
/// ```
public struct EngineCatalog: Sendable, Equatable {
    public var names: Set<String>

    public init(names: Set<String>) { self.names = names }

    /// The cloud functions (every name not of a hook's form, `__...`), sorted.
    public var functions: [String] { names.filter { !$0.hasPrefix("__") }.sorted() }

    /// The hooks' names, sorted.
    public var hooks: [String] { names.filter { $0.hasPrefix("__") }.sorted() }

    /// Whether the engine defines `hook` for `className`.
    public func has(_ hook: EngineHook, className: String) -> Bool { names.contains(hook.name(className: className)) }
}
