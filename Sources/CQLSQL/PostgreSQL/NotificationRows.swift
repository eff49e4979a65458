import CQLKit

/// The SQL of LiveQuery's notifications between server processes sharing
/// one PostgreSQL database: `pg_notify` inside the write's transaction, and
/// the table of the payloads too large for a notification (a `seq`, the
/// time written, the payload text), kept here with the rest of the SQL text
/// rather than in the server.
///
/// ```swift
/// NotificationRows.notify(channel: "cql_livequery", payload: json).sql   // SELECT pg_notify($1, $2)
/// try NotificationRows.spilled(42, table: "cql:livequery").sql           // SELECT payload FROM "cql:livequery" WHERE seq = $1
/// ```
public enum NotificationRows {
    /// Creates the table of large payloads when missing.
    public static func createSpillTable(_ table: String) throws(QueryError) -> SQLStatement {
        SQLStatement(sql: "CREATE TABLE IF NOT EXISTS \(try quote(table)) (seq bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL)",
                     arguments: [])
    }

    /// Sends `payload` on `channel` (delivered when the transaction commits).
    public static func notify(channel: String, payload: String) -> SQLStatement {
        SQLStatement(sql: "SELECT pg_notify($1, $2)", arguments: [.string(channel), .string(payload)])
    }

    /// Writes `payload` to `table` and sends on `channel` the text
    /// `reference` followed by the new row's `seq` and `}`.
    public static func notifySpilled(channel: String, reference: String, payload: String, table: String) throws(QueryError) -> SQLStatement {
        SQLStatement(sql: "WITH s AS (INSERT INTO \(try quote(table)) (payload) VALUES ($3) RETURNING seq) "
                         + "SELECT pg_notify($1, $2 || s.seq::text || '}') FROM s",
                     arguments: [.string(channel), .string(reference), .string(payload)])
    }

    /// Deletes the payloads written more than `seconds` ago.
    public static func prune(_ table: String, olderThan seconds: Double) throws(QueryError) -> SQLStatement {
        SQLStatement(sql: "DELETE FROM \(try quote(table)) WHERE at < now() - make_interval(secs => $1)", arguments: [.double(seconds)])
    }

    /// The payload of row `seq`, for ``PostgreSQLListener/strings(_:)``.
    public static func spilled(_ seq: Int64, table: String) throws(QueryError) -> SQLStatement {
        SQLStatement(sql: "SELECT payload FROM \(try quote(table)) WHERE seq = $1", arguments: [.int(seq)])
    }

    private static func quote(_ table: String) throws(QueryError) -> String { try PostgreSQLDialect().quote(table) }
}
