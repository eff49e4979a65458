import CQLEval
import CQLKit
import GRDB
import GRDBSQLite

/// `cql_match(doc, where)`: the evaluator's test of a condition (bound as
/// MongoDB where-JSON) on a row's document text, registered with SQLite's C
/// interface rather than GRDB's.
///
/// Why: it runs once per row of a scan, where GRDB's wrapper would copy the
/// document into a `String` and the where-JSON text too, and look the
/// compiled condition up by that text on every call. Here the document's
/// bytes are read where SQLite holds them (``DocumentMatcher``: one
/// structural scan), and the compiled condition with its scratch scanners
/// is kept as the argument's auxiliary data, which SQLite holds for as long
/// as the argument is the same — a bound parameter, for the whole statement
/// — and drops when the statement ends.
extension SQLiteDatabase {
    static func registerMatch(_ db: Database) {
        sqlite3_create_function_v2(
            db.sqliteConnection, "cql_match", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, arguments in SQLiteDatabase.match(context, arguments) }, nil, nil, nil)
    }

    /// One call: a document that is not text (or a where that is not) does
    /// not match, as under GRDB's wrapper before.
    static func match(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let arguments, let document = text(arguments[0]) else { return sqlite3_result_int(context, 0) }
        let matcher: DocumentMatcher
        if let aux = sqlite3_get_auxdata(context, 1) {
            matcher = Unmanaged<DocumentMatcher>.fromOpaque(aux).takeUnretainedValue()
        } else {
            guard let whereText = text(arguments[1]) else { return sqlite3_result_int(context, 0) }
            do throws(QueryError) {
                matcher = try DocumentMatcher(whereJSON: String(decoding: whereText, as: UTF8.self))
            } catch {
                return fail(context, error)
            }
            // SQLite owns one retain now, released when it drops the data
            // (at once, if it cannot keep it: `matcher` holds its own).
            sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(matcher).toOpaque()) { p in
                if let p { Unmanaged<DocumentMatcher>.fromOpaque(p).release() }
            }
        }
        do throws(QueryError) {
            sqlite3_result_int(context, try matcher.matches(document) ? 1 : 0)
        } catch {
            fail(context, error)
        }
    }

    /// The bytes of a TEXT or BLOB value, valid until the call returns.
    private static func text(_ value: OpaquePointer?) -> UnsafeBufferPointer<UInt8>? {
        let type = sqlite3_value_type(value)
        guard type == SQLITE_TEXT || type == SQLITE_BLOB else { return nil }
        // _text before _bytes: the length is that of the text form.
        let p = sqlite3_value_text(value)
        let n = Int(sqlite3_value_bytes(value))
        guard let p else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: p, count: n)
    }

    /// The evaluator's error as the statement's, for ``queryError(_:)``.
    private static func fail(_ context: OpaquePointer?, _ error: QueryError) {
        sqlite3_result_error(context, functionErrorMarker + error.kind.rawValue + ":" + error.message, -1)
    }

    /// The one-step keys with the value index `cql load --index` makes
    /// (`"<Class>:<key>:value"`).
    public func indexedKeys(_ className: String) throws(QueryError) -> Set<String> {
        if keepsSchemaAnswers {
            if !keptAnswers.checkedInSnapshot { try checkKeptAnswers() }
            if let kept = keptAnswers.indexedKeys[className] { return kept }
        }
        let keys = try findIndexedKeys(className)
        if keepsSchemaAnswers { keptAnswers.keep(keys, for: className) }
        return keys
    }

    private func findIndexedKeys(_ className: String) throws(QueryError) -> Set<String> {
        let prefix = className + ":", suffix = ":value"
        return try read { db in
            let names = try String.fetchAll(
                try cachedStatement(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"), arguments: [className])
            return Set(names.compactMap { name in
                guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return nil }
                return String(name.dropFirst(prefix.count).dropLast(suffix.count))
            })
        }
    }
}
