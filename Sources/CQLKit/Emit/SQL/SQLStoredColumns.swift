/// The built-in keys every class table keeps as typed, indexed columns
/// beside `doc` (SQLBackends.md, "Storage"), so that the queries apps send most —
/// `order by -createdAt limit 10`, a `createdAt` range, a get by id — are
/// index scans:
///
/// - `objectId`: the key (the document's string objectId);
/// - `createdAt`, `updatedAt`: integer milliseconds since 1970 (UTC) when the
///   document's value is a Date **as the evaluator reads it** (an ISO-8601
///   string that parses, or a `{"__type":"Date"}`), else SQL NULL.
///
/// Every write path fills them from the document it writes (load, insert,
/// replace, the generated `UPDATE`), so they always agree with `doc`. The
/// generator uses a date column only where that is provably the evaluator's
/// answer: the evaluator ranks Dates above every other type (EvaluationSemantics.md),
/// so ordering by the column with NULLs first (ascending) or last
/// (descending), then by the evaluator's order of the values that are not
/// Dates, then by input order, is its order; a comparison with a Date
/// constant holds exactly for the rows whose column compares. That needs
/// one value per row: an object whose key holds an array (which writes
/// cannot make, and LeanCloud never stores) marks the database, and
/// `cql run` re-checks every row of a marked database in memory.
///
/// ```swift
/// SQLStoredColumns.dateColumn(.string("2017-11-11T07:19:15.549Z"))   // .int(1510384755549)
/// SQLStoredColumns.dateColumn(.string("yesterday"))                  // .null
/// ```
public enum SQLStoredColumns {
    /// The date columns, by the key they mirror.
    public static let dateKeys = ["createdAt", "updatedAt"]

    /// The column a one-step order or comparison path reads, if any.
    static func column(_ path: FieldPath) -> String? {
        guard let k = path.singleComponent else { return nil }
        return k == "objectId" || dateKeys.contains(k) ? k : nil
    }

    /// A date column's value for the document's value at the key.
    public static func dateColumn(_ value: Value?) -> Value {
        switch value {
        case .date(let d)?: return .int(d.millisecondsSince1970)
        case .string(let s)?: return ISODate.parse(s).map { .int($0.millisecondsSince1970) } ?? .null
        default: return .null
        }
    }

    /// Both date columns of an object, in ``dateKeys`` order (NULL for an
    /// array: see ``holdsArray(_:)``).
    public static func dateColumns(_ object: [String: Value]) -> [Value] {
        dateKeys.map { k in
            if case .array? = object[k] { return .null }
            return dateColumn(object[k])
        }
    }

    /// Whether `createdAt` or `updatedAt` holds an array. The evaluator
    /// sorts such an object by its smallest or largest element (its Date
    /// elements are Dates), which one column cannot hold: a database with
    /// such an object is marked, and `cql run` then re-checks every row in
    /// memory instead of trusting the columns (as for strings with NUL).
    public static func holdsArray(_ object: [String: Value]) -> Bool {
        dateKeys.contains { k in
            if case .array? = object[k] { return true }
            return false
        }
    }
}
