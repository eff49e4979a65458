/// What a Usergrid request carries beside its `ql` text.
///
/// In Usergrid the collection is the URL path and `limit` / `cursor` are URL
/// parameters, not part of `ql` (UsergridQL.md). This library takes them here.
///
/// - `className`: the collection; `""` means not given.
/// - `literal`: string `=` compares exactly and case-sensitively (a plain
///   `=` comparison, `*` an ordinary character) instead of Usergrid's
///   case-insensitive whole-value match and wildcard.
/// - `limit`: 1...1000. Usergrid clamps larger limits to 1000, and so does
///   this library (the query then means what the server would return); a
///   limit below 1 is an error. `nil` is Usergrid's default page, 10, written
///   into `Query.limit` so that every backend returns that page too.
/// - `cursor`: an opaque paging token. Ours is the base64url text (no
///   padding) of `offset:N`; it becomes `Query.skip = N`. Build one with
///   ``cursor(offset:)``. Anything else is an error.
///
/// ```swift
/// let q = try UsergridParser.parse("name = 'Fido'",
///     options: UsergridOptions(className: "dogs", limit: 5, cursor: UsergridOptions.cursor(offset: 10)))
/// q.limit   // .value(.int(5))
/// q.skip    // .value(.int(10))
/// UsergridOptions.cursor(offset: 10)   // "b2Zmc2V0OjEw"
/// ```
public struct UsergridOptions: Hashable, Sendable {
    public var className: String
    public var literal: Bool
    public var limit: Int?
    public var cursor: String?

    /// The largest page Usergrid returns.
    public static let maxLimit = 1000

    public init(className: String = "", literal: Bool = false, limit: Int? = nil, cursor: String? = nil) {
        self.className = className
        self.literal = literal
        self.limit = limit
        self.cursor = cursor
    }

    /// The cursor that starts a page at `offset` (`offset:N` in base64url).
    public static func cursor(offset: Int64) -> String {
        Base64URL.encode(Array("offset:\(max(0, offset))".utf8))
    }

    /// Sets class name, limit and skip of `query` from these options, and its
    /// order from Usergrid's rules (`UsergridMeaning.order`).
    func apply(to query: inout Query, orderRanges: [SourceRange] = []) throws(QueryError) {
        query.className = className
        let limit = self.limit ?? UsergridMeaning.defaultLimit
        guard limit >= 1 else {
            throw QueryError(.invalidValue, "limit must be at least 1, found \(limit)")
        }
        query.limit = .value(.int(Int64(min(limit, UsergridOptions.maxLimit))))
        if let cursor {
            query.skip = .value(.int(try UsergridOptions.offset(ofCursor: cursor)))
        }
        query.order = try UsergridMeaning.order(query.order, condition: query.condition, ranges: orderRanges)
    }

    /// The offset a cursor stands for.
    static func offset(ofCursor cursor: String) throws(QueryError) -> Int64 {
        let invalid = QueryError(
            .invalidValue,
            "invalid cursor '\(cursor.count > 60 ? String(cursor.prefix(60)) + "…" : cursor)': expected a cursor returned with an earlier page")
        guard let bytes = Base64URL.decode(cursor) else { throw invalid }
        let prefix = Array("offset:".utf8)
        guard bytes.count > prefix.count, bytes.count <= prefix.count + 19, Array(bytes[..<prefix.count]) == prefix else {
            throw invalid
        }
        let digits = bytes[prefix.count...]
        guard digits.allSatisfy(UsergridLexer.isDigit), digits.count == 1 || digits.first != UInt8(ascii: "0"),
            let n = Int64(String(decoding: digits, as: UTF8.self))
        else { throw invalid }
        return n
    }
}

/// base64url (RFC 4648 §5) without padding; decoding also accepts padding.
enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let chunk = Array(bytes[i..<min(i + 3, bytes.count)])
            let n = (Int(chunk[0]) << 16) | (chunk.count > 1 ? Int(chunk[1]) << 8 : 0) | (chunk.count > 2 ? Int(chunk[2]) : 0)
            for k in 0...chunk.count { out.append(alphabet[(n >> (18 - 6 * k)) & 63]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var symbols = Array(text.utf8)
        while symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
        guard symbols.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var acc = 0
        var bits = 0
        for s in symbols {
            guard let v = alphabet.firstIndex(of: s) else { return nil }
            acc = (acc << 6) | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((acc >> bits) & 0xFF))
            }
            acc &= (1 << bits) - 1
        }
        // Leftover bits must be zero, so each byte string has one spelling.
        guard acc & ((1 << bits) - 1) == 0 else { return nil }
        return out
    }
}
