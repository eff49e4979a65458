import CQLEval
import CQLKit
import CQLSQL
import Foundation
import XCTest

/// Hostile class names, keys and values (quotes, `;`, comments, NUL, 1 MB
/// strings, `$`-keys) through every operator: the SQL is well-formed (no
/// database error), the answers are the evaluator's, and the data is
/// unchanged afterwards.
final class HostileInputTests: XCTestCase {
    static let strings: [String] = [
        "'", "\"", "''; DROP TABLE \"T\"; --", "\"); DELETE FROM x; --", "/* comment */", "-- comment",
        "a;b", "$where", "$gt", "\\", "%_[x]", "?1", "$1", "\u{0}", "a\u{0}b", "é", "e\u{301}",
    ]

    /// A 1 MB value of quotes and semicolons.
    static let big = String(repeating: "x'\"; ", count: 200_000)

    static let classNames = ["T", "we\"ird", "x'; DROP TABLE T; --", "/* c */", "$cls", "x\"; DROP TABLE \"T"]

    static let keys = ["k", "k'", "k\"", "k;--", "$where", "a/*b*/", "k\u{0}", "k.x"]

    func testHostileInputs() throws {
        let tally = try Self.hostileInputs(storesNUL: true) { try SQLiteDatabase(path: nil) }
        print("hostile inputs on SQLite: \(tally.queries) queries, \(tally.rows) rows compared")
        XCTAssertGreaterThan(tally.rows, 1000)
    }

    /// Every hostile class name, key and value through every operator on a
    /// fresh database from `open`; `storesNUL: false` (PostgreSQL's jsonb)
    /// leaves strings and keys with NUL out of the data, not out of the queries.
    static func hostileInputs(storesNUL: Bool, _ open: () throws -> any SQLDatabaseWriter) throws -> Differential.Tally {
        var tally = Differential.Tally()
        for className in Self.classNames {
            // Objects: every hostile key holding every hostile value.
            var objects: [[String: Value]] = []
            for (i, s) in Self.strings.enumerated() where storesNUL || !s.contains("\u{0}") {
                var o: [String: Value] = ["objectId": .string("o\(i)")]
                for key in Self.keys where storesNUL || !key.contains("\u{0}") {
                    o[key] = i % 2 == 0 ? .string(s) : .array([.string(s), .int(Int64(i))])
                }
                objects.append(o)
            }
            objects.append(["objectId": "id'\";--"])
            let db = try open()
            try db.insert(objects, into: className)
            let store = DocumentStore([className: objects])
            let before = try documents(db, className)
            XCTAssertEqual(before.count, objects.count)

            // Every key for the first class; one key each for the others.
            let keys = className == "T" ? Self.keys : [Self.keys[Self.classNames.firstIndex(of: className)! % Self.keys.count]]
            for key in keys {
                let path = FieldPath([key])
                for s in Self.strings {
                    let v = Term.value(.string(s))
                    var predicates: [CQLKit.Predicate] = [
                        .compare(path, .equal, v), .compare(path, .notEqual, v), .compare(path, .lessThan, v),
                        .compare(path, .greaterThanOrEqual, v), .in(path, [v, .value(.null)], negated: false),
                        .in(path, [v], negated: true), .all(path, [v]), .like(path, pattern: v),
                        .text(path, .equalsIgnoringCase, s), .exists(path, true), .size(path, .value(.int(2))),
                    ]
                    if s.utf8.count < 100 { predicates.append(.regex(path, pattern: .value(.string("\\Q" + s + "\\E")), options: "")) }
                    for p in predicates {
                        var q = Query(className: className, condition: Condition(p))
                        q.order = [OrderKey(path, descending: s.count % 2 == 0)]
                        if let failure = Differential.compare(q, store: store, db: db, tally: &tally) {
                            XCTFail("\(className) / \(key.debugDescription) / \(String(s.prefix(40)).debugDescription): \(failure.prefix(2000))")
                        }
                    }
                }
            }
            XCTAssertEqual(try documents(db, className), before, "data changed in \(className)")
        }
        return tally
    }

    /// A 1 MB value stored and used as a constant.
    func testOneMegabyteValues() throws {
        try Self.oneMegabyteValues(try SQLiteDatabase(path: nil))
    }

    static func oneMegabyteValues(_ db: any SQLDatabaseWriter) throws {
        let objects: [[String: Value]] = [
            ["objectId": "big", "k": .string(Self.big)], ["objectId": "small", "k": "x'"], ["objectId": "arr", "k": .array([.string(Self.big)])],
        ]
        try db.insert(objects, into: "Big")
        let store = DocumentStore(["Big": objects])
        let before = try documents(db, "Big")
        var tally = Differential.Tally()
        let path = FieldPath(["k"])
        let v = Term.value(.string(Self.big))
        let prefix = Term.value(.string(String(Self.big.prefix(500_000)) + "%"))
        for p: CQLKit.Predicate in [.compare(path, .equal, v), .compare(path, .lessThan, v), .like(path, pattern: prefix), .in(path, [v], negated: true)] {
            var q = Query(className: "Big", condition: Condition(p))
            q.order = [OrderKey(path, descending: true)]
            if let failure = Differential.compare(q, store: store, db: db, tally: &tally) { XCTFail(String(failure.prefix(300)) + " … " + String(failure.suffix(1500))) }
        }
        XCTAssertEqual(try documents(db, "Big"), before)
        XCTAssertGreaterThanOrEqual(tally.rows, 3)
    }

    func testNULInAClassNameIsANamedError() throws {
        let db = try SQLiteDatabase(path: nil)
        XCTAssertThrowsError(try db.insert([["objectId": "a"]], into: "T\u{0}x")) { error in
            XCTAssertTrue(((error as? QueryError)?.message ?? "").contains("NUL"), "\(error)")
        }
        XCTAssertThrowsError(try SQLGenerator.translate(Query(className: "T\u{0}"), dialect: .postgres)) { error in
            XCTAssertEqual((error as? QueryError)?.kind, .unsupported)
        }
    }

    static func documents(_ db: any SQLDatabaseWriter, _ className: String) throws -> [String] {
        try db.documents(try SQLGenerator.pushdown(Query(className: className), dialect: db.dialect).select)
    }
}
