/// One identity for a class name: the system's classes (`_User`, `_Role`,
/// `_File`, ...) are recognised in any letter case and always spelled as
/// the system spells them, so that every guard, table and join table that
/// derives from a name sees the same one.
///
/// Why: SQLite compares table names without regard to letter case, so a
/// request naming `_user` would otherwise read and write `_User`'s table
/// while every guard, which compares `"_User"`, let it through.
///
/// ```swift
/// ClassNames.canonical("_user")   // "_User"
/// ClassNames.canonical("_ROLE")   // "_Role"
/// ClassNames.canonical("Note")    // "Note" (not the system's: as given)
/// ```
public enum ClassNames {
    /// The classes the system reserves, as it spells them.
    public static let reserved = [
        "_User", "_Role", "_File", "_Installation", "_Session", "_Conversation", "_Status", "_Followee", "_Follower",
        "_Notification", "_Product", "_Audience",
    ]

    static let reservedByFoldedName: [String: String] = Dictionary(uniqueKeysWithValues: reserved.map { (folded($0), $0) })

    /// ASCII letters folded to lower case (class names are ASCII).
    public static func folded(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// `name`, or the system's spelling of the reserved class it names in
    /// another letter case.
    public static func canonical(_ name: String) -> String {
        guard name.utf8.first == UInt8(ascii: "_") else { return name }
        return reservedByFoldedName[folded(name)] ?? name
    }

    /// The query with every class name in it canonical: its own, its
    /// sub-queries' and the owners of its `$relatedTo`s.
    public static func canonical(_ query: Query) -> Query {
        var q = query
        let name = canonical(q.className)
        if name != q.className { q.className = name }
        if let c = q.condition, let renamed = canonicalOrNil(c) { q.condition = renamed }
        return q
    }

    /// The statement with every class name in it canonical (its own and
    /// those of its condition).
    public static func canonical(_ statement: Statement) -> Statement {
        switch statement {
        case .select(let q): return .select(canonical(q))
        case .insert(var s):
            s.className = canonical(s.className)
            return .insert(s)
        case .update(var s):
            s.className = canonical(s.className)
            if let c = s.condition { s.condition = canonicalOrNil(c) ?? c }
            return .update(s)
        case .delete(var s):
            s.className = canonical(s.className)
            if let c = s.condition { s.condition = canonicalOrNil(c) ?? c }
            return .delete(s)
        }
    }

    /// The condition renamed, or nil when no name in it changes (the
    /// common case, which then copies nothing).
    static func canonicalOrNil(_ c: Condition) -> Condition? {
        c.transformed(entering: .elementMatch) { node in
            switch node.predicate {
            case .select, .inQuery:
                return node.mappingSubquery { sub in
                    let r = canonical(sub)
                    return r != sub ? r : nil
                }
            case .relatedTo(.value(.pointer(let owner)), let key):
                let name = canonical(owner.className)
                guard name != owner.className else { return nil }
                var renamed = node
                renamed.predicate = .relatedTo(object: .value(.pointer(Pointer(className: name, objectId: owner.objectId))), key: key)
                return renamed
            case .relationHolds(let key, let className, let object):
                let name = canonical(className)
                guard name != className else { return nil }
                var renamed = node
                renamed.predicate = .relationHolds(key: key, className: name, object: object)
                return renamed
            // Entered by the traversal, or naming no class.
            case .and, .or, .not, .elementMatch, .relatedTo, .constant, .aclGrants, .compare, .in, .all, .size, .exists, .regex,
                 .like, .prefix, .text, .containedBy, .type, .modulo, .fullText, .near, .withinBox, .withinPolygon,
                 .withinCenterSphere, .geoIntersects:
                return nil
            }
        }
    }
}
