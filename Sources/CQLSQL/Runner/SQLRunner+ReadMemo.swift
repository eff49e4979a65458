import CQLKit
import Foundation

extension SQLRunner {
    /// What a run of one query worked out, kept for its next run: the query
    /// as run (checked by `begin(_:countOnly:source:)`), its preflight
    /// question, and the SQL generated for the last preflight answer — on
    /// PostgreSQL's asynchronous reads with that statement joined to the
    /// preflight's columns, on SQLite for the same indexed keys too.
    ///
    /// Why: a server answers the same request again and again (a Valine page
    /// of one URL), and checking, generating and joining its SQL was an
    /// eighth of a page's server CPU. All of it is a function of the query
    /// and the preflight's answer alone, so a memo belongs to exactly one
    /// query (its holder keys it by everything that made the query) and
    /// keeps the SQL of one answer: a different answer generates again.
    /// The database is still asked every time, and nothing is answered
    /// from the memo but SQL text.
    ///
    /// ```swift
    /// let memo = SQLRunner.ReadMemo()
    /// let first = try await SQLRunner.run(query, on: connection, memo: memo)   // generates the SQL
    /// let again = try await SQLRunner.run(query, on: connection, memo: memo)   // the same SQL, not generated again
    /// ```
    public final class ReadMemo: @unchecked Sendable {
        struct Begun {
            var query: Query
            var countOnly: Bool
            var question: PreflightQuestion
        }

        struct Generated {
            var preflight: Preflight
            /// SQLite's indexed keys the SQL was generated for (``SQLContext/indexedKeys``).
            var indexedKeys: Set<String> = []
            var translation: SQLTranslation
            /// PostgreSQL: the statement run with the preflight's columns
            /// joined, its call made (nil: the SQL is not exact).
            var carried: PostgreSQLReadConnection.Carried? = nil
        }

        private let lock = NSLock()
        private var begun: Begun?
        private var generated: Generated?
        private var tables: Set<String>?

        /// ``SQLRunner/tablesRead(by:)`` of the memo's query, worked out once.
        public func tablesRead(by query: Query) -> Set<String> {
            lock.lock()
            if let tables {
                lock.unlock()
                return tables
            }
            lock.unlock()
            let read = SQLRunner.tablesRead(by: query)
            lock.lock()
            tables = read
            lock.unlock()
            return read
        }

        public init() {}

        func begun(countOnly: Bool) -> Begun? {
            lock.lock()
            defer { lock.unlock() }
            guard let b = begun, b.countOnly == countOnly else { return nil }
            return b
        }

        func setBegun(_ b: Begun) {
            lock.lock()
            begun = b
            lock.unlock()
        }

        func generated(for preflight: Preflight, indexedKeys: Set<String> = []) -> Generated? {
            lock.lock()
            defer { lock.unlock() }
            guard let g = generated, g.preflight == preflight, g.indexedKeys == indexedKeys else { return nil }
            return g
        }

        /// The SELECT last generated (tests).
        var generatedSQL: String? {
            lock.lock()
            defer { lock.unlock() }
            return generated?.translation.select.sql
        }

        func setGenerated(_ g: Generated) {
            lock.lock()
            generated = g
            lock.unlock()
        }
    }
}
