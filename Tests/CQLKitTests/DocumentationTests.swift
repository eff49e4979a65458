import CorpusSupport
import Foundation
import XCTest

/// The reference travels with the repository: README.md links only files that
/// exist in it, and every article the DocC landing page lists exists.
final class DocumentationTests: XCTestCase {
    private let root = Corpus.repositoryRoot
    private var catalog: URL { root.appendingPathComponent("Sources/CQLKit/CQLKit.docc") }

    /// The articles the reference must have (issue 7): the landing page lists them.
    private let requiredArticles = ["GettingStarted", "EvaluationSemantics", "CQL", "UsergridQL", "WhereJSON"]

    func testReadmeLinksResolveInsideTheRepository() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let problems = LinkCheck.problems(markdown: readme, relativeTo: root, repositoryRoot: root)
        XCTAssertEqual(problems, [], "README.md links that do not resolve to a file in the repository")
        XCTAssertFalse(LinkCheck.links(in: readme).isEmpty, "README.md has no links at all: the check would be empty")
    }

    func testReadmeLinksEveryArticle() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let targets = Set(LinkCheck.links(in: readme).map { LinkCheck.withoutFragment($0) })
        for article in requiredArticles {
            XCTAssertTrue(targets.contains("Sources/CQLKit/CQLKit.docc/\(article).md"),
                          "README.md does not link the article \(article).md")
        }
    }

    func testLandingPageArticlesExist() throws {
        let landing = try String(contentsOf: catalog.appendingPathComponent("CQLKit.md"), encoding: .utf8)
        let listed = LinkCheck.docLinks(in: landing)
        for article in requiredArticles {
            XCTAssertTrue(listed.contains(article), "CQLKit.md does not list <doc:\(article)>")
        }
        XCTAssertEqual(LinkCheck.missingArticles(listed, in: catalog), [], "articles CQLKit.md lists but the catalog lacks")
        // And no article is left out of the landing page's topics.
        let files = try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            .filter { $0.hasSuffix(".md") && $0 != "CQLKit.md" }
            .map { String($0.dropLast(3)) }
        XCTAssertEqual(Set(files).subtracting(listed), [], "articles in the catalog that CQLKit.md does not list")
    }

    func testArticlesLinkOnlyExistingArticles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
        for file in files {
            let text = try String(contentsOf: catalog.appendingPathComponent(file), encoding: .utf8)
            XCTAssertEqual(LinkCheck.missingArticles(LinkCheck.docLinks(in: text), in: catalog), [], "in \(file)")
        }
    }

    /// The checks can fail: the link README.md used to have, and a missing article.
    func testTheChecksCatchBrokenLinks() {
        let bad = """
            See [`semantics.md`](../shared/spec/semantics.md), [the site](https://example.com/x),
            [gone](Sources/CQLKit/CQLKit.docc/Nope.md) and [ok](Package.swift#L1).
            ```
            [in a code block](../not/a/link.md)
            ```
            """
        XCTAssertEqual(LinkCheck.problems(markdown: bad, relativeTo: root, repositoryRoot: root), [
            "../shared/spec/semantics.md: outside the repository",
            "https://example.com/x: outside the repository",
            "Sources/CQLKit/CQLKit.docc/Nope.md: no such file",
        ])
        XCTAssertEqual(LinkCheck.missingArticles(["GettingStarted", "Nope"], in: catalog), ["Nope"])
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
