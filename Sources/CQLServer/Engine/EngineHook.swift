/// A hook the app's cloud engine may define for a class (LeanEngine's
/// names): the server calls it around the class's writes, and only when the
/// engine listed it (``EngineCatalog``).
///
/// ```swift
/// EngineHook.beforeSave.name(className: "Review")   // "__before_save_for_Review"
/// EngineHook.beforeSave.path(className: "Review")   // "/1.1/functions/Review/beforeSave"
/// EngineHook.onLogin.name(className: "_User")       // "__on_login__User"
/// ```
public enum EngineHook: String, Sendable, CaseIterable {
    case beforeSave, beforeUpdate, beforeDelete, afterSave, afterUpdate, afterDelete, onLogin

    /// The name the engine lists in `/1.1/functions/_ops/metadatas`.
    public func name(className: String) -> String {
        switch self {
        case .beforeSave: return "__before_save_for_" + className
        case .beforeUpdate: return "__before_update_for_" + className
        case .beforeDelete: return "__before_delete_for_" + className
        case .afterSave: return "__after_save_for_" + className
        case .afterUpdate: return "__after_update_for_" + className
        case .afterDelete: return "__after_delete_for_" + className
        case .onLogin: return "__on_login__User"
        }
    }

    /// Where the engine answers it.
    public func path(className: String) -> String { "/1.1/functions/\(className)/\(rawValue)" }

    /// Runs before the write (or login) and may refuse it; the others run
    /// after the commit and their failure is only logged.
    public var isBefore: Bool { self == .beforeSave || self == .beforeUpdate || self == .beforeDelete || self == .onLogin }
}
