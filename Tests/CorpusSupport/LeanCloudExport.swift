import Foundation

/// A small export in LeanCloud's form (MigratingFromLeanCloud.md,
/// "1. Export and load"; SQLBackends.md, "Storage"): JSON Lines parts `<Class>.<n>.json` / `.jsonl`, each starting
/// with a `#filetype:JSON-streaming;...;class=<Class>` header line; three
/// parts of `Todo` whose part numbers sort differently as text (`.10` after
/// `.2`), a part whose header names another class than its file, plain
/// string `createdAt`/`updatedAt`, typed Dates, Pointers, GeoPoints and
/// Files, inline `ACL`s and a `_User` with `password` and `salt`; some
/// `createdAt`s are missing, a number, a typed Date or no date at all.
public enum LeanCloudExport {
    public static let parts: [String: [String]] = [
        "Todo.0.json": [
            "#filetype:JSON-streaming;version=1.0;class=Todo",
            #"{"objectId":"t1","title":"buy milk","priority":2,"createdAt":"2024-03-01T08:00:00.000Z","updatedAt":"2024-03-01T08:00:00.000Z","ACL":{"*":{"read":true,"write":true}},"due":{"__type":"Date","iso":"2024-03-05T00:00:00.000Z"},"owner":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#,
            #"{"objectId":"t2","title":"call mom","priority":1,"createdAt":"2024-03-02T09:30:00.000Z","updatedAt":"2024-03-04T10:00:00.000Z","ACL":{"u1":{"read":true,"write":true}},"location":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}}"#,
        ],
        "Todo.2.json": [
            "#filetype:JSON-streaming;version=1.0;class=Todo",
            #"{"objectId":"t3","title":"write report","priority":3,"createdAt":"2024-02-28T23:59:59.999Z","updatedAt":"2024-03-01T00:00:00.000Z","attachment":{"__type":"File","id":"f1","name":"report.pdf","url":"https://files.example.com/report.pdf"}}"#,
            #"{"objectId":"t4","title":"no date","priority":2}"#,
        ],
        "Todo.10.json": [
            "#filetype:JSON-streaming;version=1.0;class=Todo",
            #"{"objectId":"t5","title":"typed date","priority":1,"createdAt":{"__type":"Date","iso":"2024-03-03T00:00:00.000Z"},"updatedAt":"2024-03-03T00:00:00.000Z"}"#,
            #"{"objectId":"t6","title":"numeric date","priority":5,"createdAt":17,"updatedAt":"not a date"}"#,
            #"{"objectId":"t7","title":"same instant","priority":4,"createdAt":"2024-03-02T17:30:00.000+08:00","updatedAt":"2024-03-02T09:30:00Z"}"#,
        ],
        "export-counter.0.jsonl": [
            "#filetype:JSON-streaming;version=1.0;class=Counter",
            #"{"objectId":"c1","name":"visits","value":41,"createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-03-01T00:00:00.000Z"}"#,
        ],
        "_User.0.json": [
            "#filetype:JSON-streaming;version=1.0;class=_User",
            #"{"objectId":"u1","username":"alice","password":"$2a$10$abcdefghijklmnopqrstuv","salt":"s4lt","email":"alice@example.com","emailVerified":false,"createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-02T00:00:00.000Z","ACL":{"*":{"read":true},"u1":{"write":true}},"birthday":{"__type":"Date","iso":"1990-05-17T00:00:00.000Z"}}"#,
        ],
    ]

    /// The objectIds of `Todo` in part order (what a load keeps as input order).
    public static let todoIds = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"]

    /// Writes the export (or other `parts` in its form) into a new
    /// temporary directory and returns it.
    public static func write(_ parts: [String: [String]] = LeanCloudExport.parts) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, lines) in parts {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent(name))
        }
        return dir
    }

    /// Queries whose answers must be the same from every store.
    public static let queries = [
        "select * from Todo",
        "select * from Todo order by -createdAt limit 10",
        "select * from Todo order by createdAt",
        "select * from Todo order by -updatedAt, title",
        "select * from Todo where createdAt > date('2024-03-01T00:00:00.000Z') order by -createdAt",
        "select * from Todo where createdAt <= date('2024-03-02T09:30:00.000Z') order by createdAt limit 3",
        "select * from Todo where createdAt != date('2024-03-02T09:30:00.000Z')",
        "select * from Todo where priority = 2 order by -createdAt limit 10",
        "select * from Todo where due < date('2024-04-01T00:00:00.000Z')",
        "select * from Todo order by -objectId",
        "select * from Counter",
        "select * from _User where username = 'alice'",
    ]
}
