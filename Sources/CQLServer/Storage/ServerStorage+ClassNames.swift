import CQLKit
import CQLSQL

/// One table per class name, on both databases: two names that differ only
/// in letter case never name two classes, nor one class twice.
///
/// Why: SQLite compares table names without regard to case, so `note`
/// would read and write `Note`'s table under another name (past every rule
/// keyed by the name, such as class-level permissions), while PostgreSQL
/// would make a second class. Both refuse it the same way: a request
/// naming a class (or a relation's `_Join:` table) that the database lacks
/// while it holds one whose name differs only in case answers 103.
/// ``ClassNames`` spells the system's classes canonically before this is
/// asked, so `_user` is `_User` and never refused.
extension ServerStorage {
    /// 103 when one of `tables` is missing but another letter case of it is present.
    static func checkLetterCase(_ tables: Set<String>, present: Set<String>) throws(QueryError) {
        let missing = tables.subtracting(present)
        guard !missing.isEmpty else { return }
        var byFolded: [String: String] = [:]
        for name in present { byFolded[ClassNames.folded(name)] = name }
        for name in missing.sorted() {
            if let other = byFolded[ClassNames.folded(name)] {
                throw QueryError(.data, "103 Class name '\(name)' differs only in letter case from the existing '\(other)': "
                                 + "two classes' names must differ in more than case")
            }
        }
    }

    /// What opening checks: a table named as a system class in another
    /// letter case (`_user`, `_Join:users:_role`, left by an earlier version
    /// on SQLite) would hold that class's rows apart from its rules; the
    /// database must be repaired before it is served.
    static func checkSystemSpellings(_ tables: Set<String>) throws(QueryError) {
        for table in tables.sorted() {
            let owner = table.hasPrefix("_Join:") ? String(table.split(separator: ":", omittingEmptySubsequences: false).last ?? "") : table
            let canonical = ClassNames.canonical(owner)
            if canonical != owner {
                throw QueryError(.data, "the table '\(table)' holds the system class '\(canonical)' under another letter case; "
                                 + "rename it (or move its rows into '\(canonical)') before serving this database")
            }
        }
    }

    /// The tables a write reads and writes: its class, the classes its
    /// condition reads, the join tables of its relation ops.
    static func tablesNamed(by statement: Statement) -> Set<String> {
        var tables = SQLRunner.tablesRead(by: Query(className: statement.className, condition: API.condition(of: statement)))
        if case .update(let u) = statement {
            for a in u.assignments {
                if case .operation(let op) = a.change, op.kind == .addRelation || op.kind == .removeRelation {
                    tables.insert("_Join:\(a.key.name):\(u.className)")
                }
            }
        }
        return tables
    }
}
