import CQLKit
import CQLSQL
import Foundation

/// The finds a server answered lately, each as its request's query string
/// (or parameters) and caller → the query they made (read, bound, restricted to the caller,
/// optimized) and the SQL its runs worked out (``SQLRunner/ReadMemo``).
///
/// Why: a comment system asks for the same pages again and again, and
/// reading the where-JSON, preparing the query and generating its SQL was
/// about an eighth of a Valine page's server CPU. Making the query is a
/// function of exactly what the key holds — the class, the parameters a
/// find reads, as sent, and the caller's grantees — so a hit gives the
/// query the request would have made. Queries whose meaning depends on
/// the clock (`$relativeTime`, a date function: ``UnchangedByBinding``)
/// are never kept, nor requests that fail: each is made anew.
///
/// At most ``capacity`` entries: past it, all are dropped at once (a
/// client sending ever new requests cannot grow the server's memory; a
/// miss costs what every request cost without this).
///
/// ```swift
/// let finds = PreparedFinds()
/// let key = PreparedFinds.Key(className: "Comment", parameters: [.string(#"{"url":"/p/1/"}"#)], grantees: ["*"])
/// let entry = try finds.entry(for: key) { try made() }   // made
/// let again = try finds.entry(for: key) { try made() }   // kept: made() is not called
/// ```
final class PreparedFinds: @unchecked Sendable {
    static let capacity = 4096

    struct Key: Hashable {
        var className: String
        /// The URL query string as sent (``APIRequest/rawQuery``); nil for
        /// a request with parameters only (a batch's sub-request).
        var rawQuery: String?
        /// The find's parameters, in ``API/cachedFindParameters`` order, as
        /// sent (empty when ``rawQuery`` holds them).
        var parameters: [Value?]
        /// The caller in ACLs (nil: the master key).
        var grantees: [String]?

        init(className: String, parameters: [Value?], grantees: [String]?) {
            self.className = className
            self.parameters = parameters
            self.grantees = grantees
        }

        init(className: String, rawQuery: String, grantees: [String]?) {
            self.className = className
            self.rawQuery = rawQuery
            parameters = []
            self.grantees = grantees
        }
    }

    /// What a request made: the query ready for the storage, what its
    /// answer's body needs, and whether it may be kept.
    struct Made {
        var query: Query
        var returnACL: Bool
        var countAsked: Bool
        var cacheable: Bool
    }

    struct Entry {
        var query: Query
        var returnACL: Bool
        var countAsked: Bool
        var memo: SQLRunner.ReadMemo
    }

    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var hits = 0, misses = 0

    /// The entry for `key`, made by `make` when there is none.
    func entry(for key: Key, make: () throws -> Made) rethrows -> Entry {
        lock.lock()
        if let e = entries[key] {
            hits += 1
            lock.unlock()
            return e
        }
        misses += 1
        lock.unlock()
        let made = try make()
        let entry = Entry(query: made.query, returnACL: made.returnACL, countAsked: made.countAsked, memo: SQLRunner.ReadMemo())
        guard made.cacheable else { return entry }
        lock.lock()
        if entries.count >= Self.capacity { entries.removeAll() }
        entries[key] = entry
        lock.unlock()
        return entry
    }

    /// The entries kept now.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    /// (hits, misses) so far.
    var outcomes: (hits: Int, misses: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (hits, misses)
    }
}
