import CorpusSupport
import Foundation
import XCTest

/// The reference travels with the repository: README.md links only files that
/// exist in it, every library target has its DocC catalog, and every article
/// a catalog holds is listed on its root page and linked from README.md.
final class DocumentationTests: XCTestCase {
    private let root = Corpus.repositoryRoot

    /// The library targets, each with `Sources/<Target>/<Target>.docc` and
    /// its root page `<Target>.md`.
    static let libraryTargets = ["CQLKit", "CQLEval", "CQLSQL", "CQLServer"]

    private func catalog(_ target: String) -> URL {
        root.appendingPathComponent("Sources/\(target)/\(target).docc")
    }

    /// The articles of one catalog (its root page excluded), by name.
    private func articles(_ target: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: catalog(target).path)
            .filter { $0.hasSuffix(".md") && $0 != "\(target).md" }
            .map { String($0.dropLast(3)) }.sorted()
    }

    /// The articles the reference must have (issue 7), in CQLKit's catalog.
    private let requiredArticles = ["GettingStarted", "EvaluationSemantics", "CQL", "UsergridQL", "WhereJSON"]

    func testEveryLibraryTargetHasACatalogWithItsRootPage() throws {
        for target in Self.libraryTargets {
            let page = catalog(target).appendingPathComponent("\(target).md")
            let text = try String(contentsOf: page, encoding: .utf8)
            XCTAssertTrue(text.hasPrefix("# ``\(target)``"), "\(page.path) does not start with # ``\(target)``")
        }
        let required = try articles("CQLKit")
        for article in requiredArticles { XCTAssertTrue(required.contains(article), "CQLKit.docc lacks \(article).md") }
        // Each article lives in one catalog: an article name says which.
        var seen: [String: String] = [:]
        for target in Self.libraryTargets {
            for article in try articles(target) {
                XCTAssertNil(seen[article], "\(article).md is in both \(seen[article] ?? "") and \(target)")
                seen[article] = target
            }
        }
    }

    func testReadmeLinksResolveInsideTheRepository() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let problems = LinkCheck.problems(markdown: readme, relativeTo: root, repositoryRoot: root)
        XCTAssertEqual(problems, [], "README.md links that do not resolve to a file in the repository")
        XCTAssertFalse(LinkCheck.links(in: readme).isEmpty, "README.md has no links at all: the check would be empty")
    }

    func testReadmeLinksEveryArticle() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let targets = Set(LinkCheck.links(in: readme).map { LinkCheck.withoutFragment($0) })
        for target in Self.libraryTargets {
            for article in try articles(target) + [target] {
                XCTAssertTrue(targets.contains("Sources/\(target)/\(target).docc/\(article).md"),
                              "README.md does not link \(target)'s article \(article).md")
            }
        }
    }

    func testRootPagesListEveryArticleOfTheirCatalog() throws {
        for target in Self.libraryTargets {
            let landing = try String(contentsOf: catalog(target).appendingPathComponent("\(target).md"), encoding: .utf8)
            let listed = LinkCheck.docLinks(in: landing)
            XCTAssertEqual(LinkCheck.missingArticles(listed, in: catalog(target)), [],
                           "articles \(target).md lists but its catalog lacks")
            XCTAssertEqual(Set(try articles(target)).subtracting(listed), [],
                           "articles in \(target).docc that \(target).md does not list")
        }
        let listed = LinkCheck.docLinks(in: try String(contentsOf: catalog("CQLKit").appendingPathComponent("CQLKit.md"), encoding: .utf8))
        for article in requiredArticles {
            XCTAssertTrue(listed.contains(article), "CQLKit.md does not list <doc:\(article)>")
        }
    }

    /// A `<doc:>` link resolves only inside its own catalog (DocC builds one
    /// archive per module): an article of another module is named in text.
    func testArticlesLinkOnlyArticlesOfTheirOwnCatalog() throws {
        for target in Self.libraryTargets {
            for article in try articles(target) + [target] {
                let text = try String(contentsOf: catalog(target).appendingPathComponent("\(article).md"), encoding: .utf8)
                XCTAssertEqual(LinkCheck.missingArticles(LinkCheck.docLinks(in: text), in: catalog(target)), [],
                               "in \(target).docc/\(article).md")
            }
        }
    }

    /// The checks can fail: the link README.md used to have, and a missing article.
    func testTheChecksCatchBrokenLinks() {
        let bad = """
            See [`notes.md`](../elsewhere/notes.md), [the site](https://example.com/x),
            [gone](Sources/CQLKit/CQLKit.docc/Nope.md) and [ok](Package.swift#L1).
            ```
            [in a code block](../not/a/link.md)
            ```
            """
        XCTAssertEqual(LinkCheck.problems(markdown: bad, relativeTo: root, repositoryRoot: root), [
            "../elsewhere/notes.md: outside the repository",
            "https://example.com/x: outside the repository",
            "Sources/CQLKit/CQLKit.docc/Nope.md: no such file",
        ])
        XCTAssertEqual(LinkCheck.missingArticles(["GettingStarted", "Nope"], in: catalog("CQLKit")), ["Nope"])
        XCTAssertEqual(LinkCheck.docLinks(in: "- <doc:CQL>\n- <doc:WhereJSON#Dialects>"), ["CQL", "WhereJSON"])
    }
}

/// Markdown link extraction, small and strict enough for this repository's
/// documents: inline links `[text](target)` and reference definitions
/// `[label]: target`, outside fenced code blocks.
enum LinkCheck {
    static func links(in markdown: String) -> [String] {
        var targets: [String] = []
        var inFence = false
        let inline = try! NSRegularExpression(pattern: #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#)
        let definition = try! NSRegularExpression(pattern: #"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)"#)
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = String(line)
            if text.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            let range = NSRange(text.startIndex..., in: text)
            for regex in [inline, definition] {
                for match in regex.matches(in: text, range: range) {
                    if let r = Range(match.range(at: 1), in: text) { targets.append(String(text[r])) }
                }
            }
        }
        return targets
    }

    static func withoutFragment(_ target: String) -> String {
        String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    /// One message per link that is not a file or directory inside `repositoryRoot`.
    static func problems(markdown: String, relativeTo base: URL, repositoryRoot: URL) -> [String] {
        var problems: [String] = []
        let rootPath = repositoryRoot.standardizedFileURL.path
        for target in links(in: markdown) {
            let path = withoutFragment(target)
            if path.isEmpty { continue }  // an anchor in the same document
            if path.contains(":") || path.hasPrefix("/") {
                problems.append("\(target): outside the repository")
                continue
            }
            let decoded = path.removingPercentEncoding ?? path
            let resolved = base.appendingPathComponent(decoded).standardizedFileURL.path
            guard resolved == rootPath || resolved.hasPrefix(rootPath + "/") else {
                problems.append("\(target): outside the repository")
                continue
            }
            if !FileManager.default.fileExists(atPath: resolved) { problems.append("\(target): no such file") }
        }
        return problems
    }

    /// The article names of `<doc:Name>` and `<doc:Name#Heading>` links.
    static func docLinks(in markdown: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"<doc:([A-Za-z0-9_-]+)(?:#[^>]*)?>"#)
        return regex.matches(in: markdown, range: NSRange(markdown.startIndex..., in: markdown)).compactMap {
            Range($0.range(at: 1), in: markdown).map { String(markdown[$0]) }
        }
    }

    /// The names among `names` with no `<name>.md` in the catalog.
    static func missingArticles(_ names: [String], in catalog: URL) -> [String] {
        names.filter { !FileManager.default.fileExists(atPath: catalog.appendingPathComponent("\($0).md").path) }
    }
}
