/// A half-open range of UTF-8 byte offsets into the query text.
///
/// Ranges are bookkeeping, not meaning: AST nodes that carry one ignore it in
/// `==` and `hash(into:)`, so `parse(format(ast)) == ast` holds although the
/// formatted text has other offsets.
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where a = 1")
/// q.condition?.range   // 22..<27: the text "a = 1"
/// ```
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    public var start: Int
    public var end: Int
    public init(_ start: Int, _ end: Int) {
        self.start = start
        self.end = max(start, end)
    }
    /// The smallest range covering both.
    public func union(_ other: SourceRange?) -> SourceRange {
        guard let o = other else { return self }
        return SourceRange(min(start, o.start), max(end, o.end))
    }
    public var description: String { "\(start)..<\(end)" }
}

/// The one error type of the library: every bad query, parameter, pattern or
/// datum ends as a `QueryError` that knows where it points.
///
/// ```swift
/// do { _ = try CQLParser.parse("select * form T") }
/// catch let e as QueryError { print(e.rendered()) }
/// // <input>:1:10: expected 'from' after the field list, found 'form'
/// // select * form T
/// //          ^~~~
/// ```
public struct QueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; callers switch on it, messages are for people.
    public enum Kind: String, Hashable, Sendable {
        /// The text does not follow the grammar (lexer or parser).
        case syntax
        /// A literal, function argument or typed value is malformed or out of range.
        case invalidValue
        /// `?` placeholders and the parameters given do not match.
        case binding
        /// The construct is valid but the chosen backend or dialect cannot express it.
        case unsupported
        /// A regular expression does not compile or exceeded its limits.
        case pattern
        /// A nesting, size or other safety limit was exceeded.
        case limit
        /// Input data (not the query) is malformed.
        case data
    }

    public var kind: Kind
    public var message: String
    /// Where in `source` the problem is, when known.
    public var range: SourceRange?
    /// The JSON path of the bad part of a where-JSON document (`where.score.$in`).
    public var path: String?
    /// The text the range points into (used to render line, column and caret).
    public var source: String?

    public init(_ kind: Kind, _ message: String, range: SourceRange? = nil, path: String? = nil, source: String? = nil) {
        self.kind = kind
        self.message = message
        self.range = range
        self.path = path
        self.source = source
    }

    /// 1-based line and column (in Unicode scalars) of the start of `range`.
    public var lineAndColumn: (line: Int, column: Int)? {
        guard let range, let source else { return nil }
        return SourceText.lineAndColumn(of: range.start, in: source)
    }

    /// `<input>:LINE:COL: message`, the source line and a caret line under the
    /// offending text. Without a position: `<input>: message`.
    public func rendered(inputName: String = "<input>") -> String {
        let text = path.map { "\($0): \(message)" } ?? message
        guard let range, let source else { return "\(inputName): \(text)" }
        let (line, column) = SourceText.lineAndColumn(of: range.start, in: source)
        let lineText = SourceText.line(containing: range.start, in: source)
        let (shown, underline) = SourceText.excerpt(lineText, range: range, column: column)
        return "\(inputName):\(line):\(column): \(text)\n\(shown)\n\(underline)"
    }

    /// The first line of ``rendered(inputName:)`` without the input name:
    /// `LINE:COL: message` (what corpus files record).
    public var shortDescription: String {
        let text = path.map { "\($0): \(message)" } ?? message
        guard let (line, column) = lineAndColumn else { return text }
        return "\(line):\(column): \(text)"
    }

    public var description: String { rendered() }

    /// The LeanCloud REST error code of a failed write the server reports
    /// with one: 101 (object not found), 305 (the write's condition does
    /// not hold) and 103 (a class name that differs only in letter case
    /// from an existing class's). Such `.data` errors start their message with the code
    /// ("305 No effect on updating/deleting a document: ..."). Computed, not
    /// stored: the error's size matters to the recursive parsers' frames.
    public var restCode: Int? {
        guard kind == .data else { return nil }
        if message.hasPrefix("101 Object not found") { return 101 }
        if message.hasPrefix("305 No effect on ") { return 305 }
        if message.hasPrefix("103 Class name ") { return 103 }
        return nil
    }

    /// The same error pointing into `source` (used when a nested parse reports
    /// offsets relative to the outer text).
    public func withSource(_ source: String) -> QueryError {
        var e = self
        if e.source == nil { e.source = source }
        return e
    }

    public static func == (a: QueryError, b: QueryError) -> Bool {
        a.kind == b.kind && a.message == b.message && a.range == b.range && a.path == b.path
    }
    public func hash(into h: inout Hasher) {
        h.combine(kind)
        h.combine(message)
    }
}

/// Line/column arithmetic over UTF-8 text.
enum SourceText {
    struct Line {
        var text: String
        var startOffset: Int
    }

    static func lineAndColumn(of offset: Int, in source: String) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        let bytes = Array(source.utf8)
        let end = min(offset, bytes.count)
        var i = 0
        while i < end {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        // Count Unicode scalars (not bytes) so the caret lands under the character.
        var column = 1
        i = lineStart
        while i < end {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return (line, column)
    }

    static func line(containing offset: Int, in source: String) -> Line {
        let bytes = Array(source.utf8)
        let at = min(max(0, offset), bytes.count)
        var start = at
        while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
        var end = at
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        var slice = Array(bytes[start..<end])
        if slice.last == 0x0D { slice.removeLast() }
        return Line(text: String(decoding: slice, as: UTF8.self), startOffset: start)
    }

    /// The line to show and the caret line under it. A line longer than
    /// `maxWidth` scalars (a megabyte-long query on one line) is cut to a
    /// window around the caret, with `...` where text was left out.
    static func excerpt(_ line: Line, range: SourceRange, column: Int, maxWidth: Int = 160) -> (String, String) {
        let scalars = Array(line.text.unicodeScalars)
        guard scalars.count > maxWidth else { return (line.text, caret(for: range, lineText: line, column: column)) }
        let start = max(0, column - 1 - 60)
        let end = min(scalars.count, start + maxWidth)
        var shown = String(String.UnicodeScalarView(scalars[start..<end]))
        var offset = column - 1 - start
        if start > 0 {
            shown = "..." + shown
            offset += 3
        }
        if end < scalars.count { shown += "..." }
        // The caret's width, counted on the original line, is capped by what is shown.
        let full = caret(for: range, lineText: line, column: column)
        let width = min(full.count - (column - 1), end - (column - 1))
        return (shown, String(repeating: " ", count: offset) + "^" + String(repeating: "~", count: max(0, width - 1)))
    }

    /// `   ^~~~` under `range` on its first line (tabs kept so the caret aligns).
    static func caret(for range: SourceRange, lineText: Line, column: Int) -> String {
        var prefix = ""
        for (n, ch) in lineText.text.unicodeScalars.enumerated() where n < column - 1 {
            prefix.append(ch == "\t" ? "\t" : " ")
        }
        let lineBytes = Array(lineText.text.utf8)
        let startInLine = range.start - lineText.startOffset
        let endInLine = min(range.end - lineText.startOffset, lineBytes.count)
        var width = 0
        if endInLine > startInLine && startInLine >= 0 {
            for b in lineBytes[startInLine..<endInLine] where b & 0xC0 != 0x80 { width += 1 }
        }
        return prefix + "^" + String(repeating: "~", count: max(0, width - 1))
    }
}
