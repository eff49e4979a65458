import CQLEval
import CQLKit
import CQLSQL
import Foundation

/// What no two objects may share, kept by the database (``UniqueIndex``:
/// a unique expression index), on every write path at once — sign-up, a
/// rename through `/1.1/users/<id>` or the class API, a batch, CQL —
/// because every write goes through ``ServerStorage/write(_:now:readBack:objectId:before:)``:
///
/// | class | key | compared | taken |
/// |---|---|---|---|
/// | `_User` | `username` | Unicode NFC, case-sensitive (as LeanCloud) | 202 |
/// | `_User` | `email` | Unicode NFC, ASCII letters without case | 203 |
/// | `_User` | `mobilePhoneNumber` | Unicode NFC | 214 |
/// | `_Role` | `name` | as stored (ASCII only, ``API/isRoleName(_:)``) | 137 |
/// | `_File` | `key` | as stored (made by the server) | 137 |
///
/// A write stores `_User`'s three keys in NFC (``normalisingUniqueKeys(_:)``),
/// checks them in this order inside its transaction (so a sign-up that
/// takes both a used name and a used email is 202 on either database), and
/// the index refuses whatever slips past (two rows of one insert, another
/// process). The indexes are made when the server opens the database and
/// when a write first creates one of these classes; a database whose
/// objects already share a value is refused at start, naming the values.
extension ServerStorage {
    /// A unique key and LeanCloud's error when a write takes a used value.
    struct UniqueKeyRule: Sendable {
        let index: UniqueIndex
        let error: APIError
    }

    static let uniqueKeys: [UniqueKeyRule] = [
        UniqueKeyRule(index: UniqueIndex(className: "_User", key: "username"), error: APIError(code: 202, "Username has already been taken.")),
        UniqueKeyRule(index: UniqueIndex(className: "_User", key: "email", folding: .asciiCase),
                      error: APIError(code: 203, "This email address has already been taken.")),
        UniqueKeyRule(index: UniqueIndex(className: "_User", key: "mobilePhoneNumber"),
                      error: APIError(code: 214, "Mobile phone number has already been taken.")),
        UniqueKeyRule(index: UniqueIndex(className: "_Role", key: "name"), error: APIError(code: 137, "A role with this name already exists.")),
        UniqueKeyRule(index: UniqueIndex(className: "_File", key: "key"), error: APIError(code: 137, "A file with this key already exists.")),
    ]

    /// `_User`'s keys stored in NFC, with the code of a bad value.
    static let normalisedUserKeys: [(key: String, code: Int)] = [("username", 200), ("email", 125), ("mobilePhoneNumber", 127)]

    /// A value of `_User`'s `username`, `email` or `mobilePhoneNumber` as
    /// stored and compared: Unicode NFC (two spellings of one name are one
    /// name).
    static func normalisedUserValue(_ s: String) -> String { s.precomposedStringWithCanonicalMapping }

    /// At open: the indexes of the classes that exist; objects that
    /// already share a value stop the server (which would otherwise serve
    /// two accounts under one name).
    /// - Returns: the names of the indexes made or found.
    static func prepareUniqueKeys(on db: any SQLDatabaseWriter, location: Location) throws(QueryError) -> Set<String> {
        let tables = try db.tableNames()
        let rules = uniqueKeys.filter { tables.contains($0.index.className) }
        do {
            try db.inWriteTransaction { session throws(QueryError) in
                for rule in rules { try rule.index.ensure(in: session) }
            }
        } catch {
            let place: String
            switch location {
            case .sqlite(let path): place = path
            case .postgres: place = "the PostgreSQL database"
            }
            throw QueryError(.data, "\(place): \(error.message): give each object its own value (cql exec can) and start again")
        }
        return Set(rules.map(\.index.name))
    }

    /// `statement` with `_User`'s unique keys in NFC; 200, 125 or 127 for a
    /// value that is not a non-empty string (email and phone may be removed:
    /// null or `Delete`).
    static func normalisingUniqueKeys(_ statement: Statement) throws(APIError) -> Statement {
        guard statement.className == "_User" else { return statement }
        func normalised(_ key: String, _ v: Value, code: Int) throws(APIError) -> Value {
            switch v {
            case .string(let s) where !s.isEmpty: return .string(normalisedUserValue(s))
            case .null where key != "username": return v
            default: throw APIError(code: code, "_User's '\(key)' must be a non-empty string")
            }
        }
        switch statement {
        case .insert(var s):
            for (column, k) in s.columns.enumerated() {
                guard let code = normalisedUserKeys.first(where: { $0.key == k.name })?.code else { continue }
                for row in s.rows.indices {
                    guard case .value(let v) = s.rows[row][column] else { throw APIError(code: code, "_User's '\(k.name)' must be a string") }
                    s.rows[row][column] = .value(try normalised(k.name, v, code: code))
                }
            }
            return .insert(s)
        case .update(var u):
            for i in u.assignments.indices {
                let name = u.assignments[i].key.name
                guard let code = normalisedUserKeys.first(where: { $0.key == name })?.code else { continue }
                switch u.assignments[i].change {
                case .set(.value(let v)): u.assignments[i].change = .set(.value(try normalised(name, v, code: code)))
                case .operation(let op) where op.kind == .delete && name != "username": break
                default: throw APIError(code: code, "_User's '\(name)' must be a non-empty string")
                }
            }
            return .update(u)
        case .delete, .select:
            return statement
        }
    }

    /// The values a write sets for unique keys, each with the object it is
    /// (nil for an insert) — what is checked before the write.
    static func uniqueValues(_ statement: Statement, _ rules: [UniqueKeyRule]) -> [(rule: UniqueKeyRule, value: String, objectId: String?)] {
        var out: [(rule: UniqueKeyRule, value: String, objectId: String?)] = []
        for rule in rules {
            switch statement {
            case .insert(let s):
                guard let column = s.columns.firstIndex(where: { $0.name == rule.index.key }) else { continue }
                for row in s.rows { if case .value(.string(let v)) = row[column] { out.append((rule, v, nil)) } }
            case .update(let u):
                guard case .value(.string(let id)) = u.objectId else { continue }
                for a in u.assignments where a.key.name == rule.index.key {
                    if case .set(.value(.string(let v))) = a.change { out.append((rule, v, id)) }
                }
            case .delete, .select:
                break
            }
        }
        return out
    }

    /// The part of a write that keeps the keys unique: `body` runs the
    /// write with the `before` it returns (which makes missing indexes and
    /// checks the values), and a conflict comes out as LeanCloud's error.
    func keepingKeysUnique(_ statement: Statement, before: @escaping @Sendable (any SQLWriteSession) throws(QueryError) -> Void,
                           _ body: (@escaping @Sendable (any SQLWriteSession) throws(QueryError) -> Void) async throws -> WriteResult)
        async throws -> WriteResult
    {
        let rules = Self.uniqueKeys.filter { $0.index.className == statement.className }
        if rules.isEmpty { return try await body(before) }
        let known = uniqueIndexed.value
        let missing = rules.filter { !known.contains($0.index.name) }
        let checks = Self.uniqueValues(statement, rules)
        let isInsert: Bool
        if case .insert = statement { isInsert = true } else { isInsert = false }
        let conflict = LockedValue<APIError?>(nil), indexed = LockedValue(false)
        let result: WriteResult
        do {
            result = try await body { session throws(QueryError) in
                if !missing.isEmpty {
                    // Only an insert makes the class: a write to a missing one fails anyway.
                    let present = try session.hasTable(statement.className)
                    guard isInsert || present else { return try before(session) }
                    for rule in missing { try rule.index.ensure(in: session) }
                    indexed.value = true
                }
                for check in checks {
                    guard try check.rule.index.isTaken(check.value, excluding: check.objectId, in: session) else { continue }
                    conflict.value = check.rule.error
                    throw QueryError(.data, check.rule.error.message)
                }
                try before(session)
            }
        } catch let error as QueryError {
            if let c = conflict.value { throw c }
            if let rule = rules.first(where: { $0.index.isViolated(by: error) }) { throw rule.error }
            throw error
        }
        if indexed.value { uniqueIndexed.value.formUnion(missing.map(\.index.name)) }
        return result
    }

    /// The `_User` whose `key` (`username`, `email` or `mobilePhoneNumber`)
    /// holds `value` as its unique index compares it (NFC; the email
    /// without ASCII case), or nil: how login finds its user.
    func user(byUniqueKey key: String, _ value: String) async throws -> [String: Value]? {
        guard let rule = Self.uniqueKeys.first(where: { $0.index.className == "_User" && $0.index.key == key }) else { return nil }
        guard try await missingTables(["_User"]).isEmpty else { return nil }
        let docs = try await documents(try rule.index.lookup(Self.normalisedUserValue(value), dialect: dialect))
        guard let doc = docs.first else { return nil }
        return try DataFiles.object(json: doc)
    }
}
