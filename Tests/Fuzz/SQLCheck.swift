// SQL generation under the fuzzer: both dialects' `pushdown` and `translate`
// must succeed or refuse by name, and every SQLite statement must prepare in
// SQLite itself (its own parser) with exactly as many parameters as bound
// arguments: values never enter the SQL text.
import CQLKit
import CSQLite3

/// One in-memory SQLite for the whole run, with stand-ins for the functions
/// and collations `SQLiteDatabase` registers (preparing only needs their names).
nonisolated(unsafe) let sqliteForFuzz: OpaquePointer = {
    var db: OpaquePointer?
    guard sqlite3_open(":memory:", &db) == SQLITE_OK, let db else { fatalError("sqlite3_open failed") }
    let null: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, _ in
        sqlite3_result_null(ctx)
    }
    for (name, arity) in SQLiteDialect.registeredFunctions {
        sqlite3_create_function_v2(db, name, Int32(arity), SQLITE_UTF8, nil, null, nil, nil, nil)
    }
    let same: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, _, _, _, _ in 0 }
    for name in SQLiteDialect.registeredCollations { sqlite3_create_collation(db, name, SQLITE_UTF8, nil, same) }
    return db
}()

/// SQL for both dialects; the SQLite statements prepared.
func checkSQL(_ query: Query, _ source: String) {
    for dialect in SQLDialectName.allCases {
        do {
            let t = try SQLGenerator.pushdown(query, dialect: dialect)
            if dialect == .sqlite {
                prepares(t.select, source)
                if let c = t.count { prepares(c, source) }
            }
        } catch { render(error, source) }
        do { _ = try SQLGenerator.translate(query, dialect: dialect) } catch { render(error, source) }
    }
}

/// Prepares `statement`, creating each table SQLite reports missing (a class
/// table, or a `_Join:` table) the way `SQLiteDatabase.load` does.
func prepares(_ statement: SQLStatement, _ source: String) {
    var created = 0
    while true {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(sqliteForFuzz, statement.sql, -1, &stmt, nil)
        if rc == SQLITE_OK {
            let parameters = Int(sqlite3_bind_parameter_count(stmt))
            sqlite3_finalize(stmt)
            if parameters != statement.arguments.count {
                fuzzFinding("SQL with \(parameters) parameters for \(statement.arguments.count) arguments:\n\(statement.sql)", source)
            }
            return
        }
        let message = String(cString: sqlite3_errmsg(sqliteForFuzz))
        sqlite3_finalize(stmt)
        let missing = "no such table: "
        guard message.hasPrefix(missing), created < 16 else {
            fuzzFinding("SQLite cannot prepare the generated SQL: \(message)\n\(statement.sql)", source)
        }
        created += 1
        let name = String(message.dropFirst(missing.count))
        let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let columns = name.hasPrefix("_Join:") ? "(\"owningId\" TEXT, \"relatedId\" TEXT)" : "(\"objectId\" TEXT PRIMARY KEY, \"doc\" TEXT, \"createdAt\" INTEGER, \"updatedAt\" INTEGER)"
        guard sqlite3_exec(sqliteForFuzz, "CREATE TABLE \(quoted) \(columns)", nil, nil, nil) == SQLITE_OK else {
            fuzzFinding("cannot create table \(quoted): \(String(cString: sqlite3_errmsg(sqliteForFuzz)))\n\(statement.sql)", source)
        }
    }
}

/// A write's SQL for both dialects (a delete with one relation table); the
/// SQLite statements prepared.
func checkWriteSQL(_ statement: Statement, _ source: String) {
    let now = DateValue(millisecondsSince1970: 1_700_000_000_000)
    for dialect in SQLDialectName.allCases {
        do {
            var n = 0
            let w = try SQLWriteGenerator.translate(statement, dialect: dialect, now: now, newObjectId: { n += 1; return "new\(n)" },
                                                    joinTables: ["_Join:likes:\(statement.className)"])
            if dialect == .sqlite { for s in w.statements { prepares(s, source) } }
        } catch { render(error, source) }
    }
}
