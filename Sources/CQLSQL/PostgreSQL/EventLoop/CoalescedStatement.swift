import CQLKit
import PostgresNIO

/// Several runs of one read statement with different arguments, as one
/// statement: the arguments go in as arrays, one row of them per run, and
/// the statement runs once per row of arguments, laterally.
///
/// ```sql
/// -- runs of: SELECT t0."raw" FROM "Comment" AS t0 WHERE t0."objectId" = $1
/// SELECT "cql_q".*, "cql_batch"."cql_run"
///   FROM unnest($1::text[]) WITH ORDINALITY AS "cql_batch"("cql_a1", "cql_run")
///   CROSS JOIN LATERAL (SELECT t0."raw" FROM "Comment" AS t0 WHERE t0."objectId" = "cql_batch"."cql_a1") AS "cql_q"
/// ```
///
/// Each run's rows are the statement's own rows, in its own order (a nested
/// loop over the arguments yields each run's rows together, in the order
/// its subquery yields them — the same reliance every `SELECT … FROM
/// (statement) AS q` of this library has on a subquery's order), followed
/// by one column more: the run's number, from 1, by which
/// ``PostgreSQLReadConnection`` hands each caller its rows. Callers read
/// columns by position from the first, so the extra last one is never in
/// their way.
///
/// Why: under many clients, PostgreSQL's and postgres-nio's cost per
/// statement (a round trip, executor start-up, a protocol exchange each
/// way) dominates a get by id; one statement for the runs waiting on a
/// connection pays it once. It is what Prisma does with concurrent
/// `findUnique` calls. Measured in Server.md ("Coalesced reads").
enum CoalescedStatement {
    /// The coalesced statement's SQL and its parameters' types, or nil when
    /// the statement cannot be coalesced: a NULL argument (its type is left
    /// to PostgreSQL, which an array cannot do), no arguments, not a plain
    /// `SELECT`, or SQL this rewriting does not read (a comment, a
    /// dollar-quoted or `E''` string). `types`: the statement's argument
    /// types (those of ``PreparedCall``: `bool`, `int8`, `float8`, `text`).
    ///
    /// `shared`: the arguments every run gives the same value (a page's
    /// limit, its preflight's index names). They stay scalar parameters,
    /// numbered after the arrays, so what reads only them is not correlated
    /// with the runs: PostgreSQL evaluates it once for the statement, not
    /// once per run (a page's preflight probes). At least one argument must
    /// vary (``bindings(_:types:shared:)``).
    static func coalesced(_ sql: String, types: [PostgresDataType], shared: [Bool]? = nil) -> (sql: String, types: [PostgresDataType])? {
        let shared = shared ?? Array(repeating: false, count: types.count)
        guard !types.isEmpty, shared.count == types.count, shared.contains(false), sql.utf8.starts(with: "SELECT ".utf8) else { return nil }
        var arrays: [String] = [], names: [String] = [], arrayTypes: [PostgresDataType] = [], scalarTypes: [PostgresDataType] = []
        var replacement = [String](repeating: "", count: types.count)
        let varying = shared.filter { !$0 }.count
        for (i, t) in types.enumerated() {
            guard let array = arrayOf(t) else { return nil }
            if shared[i] {
                scalarTypes.append(t)
                replacement[i] = "$\(varying + scalarTypes.count)"
            } else {
                arrays.append("$\(arrays.count + 1)::\(array.element)[]")
                arrayTypes.append(array.type)
                names.append("\"cql_a\(i + 1)\"")
                replacement[i] = "\"cql_batch\".\"cql_a\(i + 1)\""
            }
        }
        guard let body = laterallyBound(sql, parameterCount: types.count, replacement: { replacement[$0 - 1] }) else { return nil }
        return ("SELECT \"cql_q\".*, \"cql_batch\".\"cql_run\" FROM unnest(\(arrays.joined(separator: ", "))) WITH ORDINALITY AS \"cql_batch\"(\(names.joined(separator: ", ")), \"cql_run\") CROSS JOIN LATERAL (\(body)) AS \"cql_q\"",
                arrayTypes + scalarTypes)
    }

    /// An argument type's element name and array type (nil: not coalesced).
    static func arrayOf(_ t: PostgresDataType) -> (element: String, type: PostgresDataType)? {
        switch t {
        case .bool: return ("bool", .boolArray)
        case .int8: return ("int8", .int8Array)
        case .float8: return ("float8", .float8Array)
        case .text: return ("text", .textArray)
        default: return nil
        }
    }

    /// `sql` with each parameter `$n` (outside quotes) read from the lateral
    /// row of arguments instead; nil when a parameter is out of range or the
    /// text holds what this scan does not follow (comments, dollar quotes,
    /// backslash-escaped strings). The library's SQL never holds values
    /// (they are all parameters), so its quotes hold identifiers and keys.
    static func laterallyBound(_ sql: String, parameterCount: Int,
                               replacement: (Int) -> String = { "\"cql_batch\".\"cql_a\($0)\"" }) -> String? {
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        var quote: UInt8? = nil
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote {
                out.append(b)
                if b == q { quote = nil }  // '' and "" re-open at once: still right
                i += 1
                continue
            }
            switch b {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // E'…' strings take backslash escapes this scan does not follow.
                if b == UInt8(ascii: "'"), i > 0, bytes[i - 1] == UInt8(ascii: "E") || bytes[i - 1] == UInt8(ascii: "e") {
                    if i < 2 || !isIdentifierByte(bytes[i - 2]) { return nil }
                }
                quote = b
                out.append(b)
                i += 1
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                return nil
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                return nil
            case UInt8(ascii: "$"):
                var j = i + 1
                var n = 0
                while j < bytes.count, bytes[j] >= UInt8(ascii: "0"), bytes[j] <= UInt8(ascii: "9"), n <= parameterCount {
                    n = n * 10 + Int(bytes[j] - UInt8(ascii: "0"))
                    j += 1
                }
                // `$$`, `$tag$` or a parameter past the arguments.
                guard j > i + 1, n >= 1, n <= parameterCount else { return nil }
                out.append(contentsOf: replacement(n).utf8)
                i = j
            default:
                out.append(b)
                i += 1
            }
        }
        guard quote == nil else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isIdentifierByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
    }

    /// The runs' arguments as one array per varying parameter, then the
    /// shared ones as scalars, as ``coalesced(_:types:shared:)`` numbers them
    /// (every run's types are `types`, which the caller groups by).
    static func bindings(_ runs: [[Value]], types: [PostgresDataType], shared: [Bool]? = nil) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: types.count)
        for (p, t) in types.enumerated() where shared?[p] != true {
            switch t {
            case .bool:
                bindings.append(runs.map { if case .bool(let b) = $0[p] { return b } else { return false } })
            case .int8:
                bindings.append(runs.map { if case .int(let i) = $0[p] { return Int64(i) } else { return 0 } })
            case .float8:
                bindings.append(runs.map { if case .double(let d) = $0[p] { return d } else { return 0 } })
            default:
                bindings.append(runs.map { v -> String in
                    if case .string(let s) = v[p] { return s }
                    return JSONWriter.string(v[p])
                })
            }
        }
        if let shared {
            for (p, isShared) in shared.enumerated() where isShared {
                bindings.append(PostgreSQLDatabase.binds([runs[0][p]])[0])
            }
        }
        return bindings
    }

    /// Which arguments every run gives the same value.
    static func shared(_ runs: [[Value]]) -> [Bool] {
        guard let first = runs.first else { return [] }
        return first.indices.map { p in runs.allSatisfy { $0[p] == first[p] } }
    }
}
