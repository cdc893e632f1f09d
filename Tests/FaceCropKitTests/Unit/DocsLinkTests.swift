import Foundation
import Testing

/// Every relative link in README.md and docs/*.md leads somewhere: to a file
/// of the repository, and for `#anchor` to a heading of that file (GitHub's
/// anchors), so moving a section cannot leave a link behind.
struct DocsLinkTests {
    /// README.md and docs/*.md, as paths relative to the package root.
    static var documents: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// GitHub's anchor for a heading: lower case, every character but
    /// letters, digits, spaces, `-` and `_` dropped, spaces made `-`.
    static func slug(_ heading: String) -> String {
        let kept = heading.lowercased().unicodeScalars.filter {
            CharacterSet.letters.contains($0) || CharacterSet.decimalDigits.contains($0) || " -_".unicodeScalars.contains($0)
        }
        return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
    }

    /// The lines of a Markdown text outside fenced and indented code.
    static func prose(_ text: String) -> [String] {
        var fenced = false
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                fenced.toggle()
                continue
            }
            if fenced || line.hasPrefix("    ") || line.hasPrefix("\t") { continue }
            lines.append(String(line))
        }
        return lines
    }

    /// The anchors of a file's headings, a repeated one numbered as GitHub does (`-1`, `-2`).
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors = Set<String>()
        for line in prose(text) {
            guard let match = line.firstMatch(of: /^#{1,6} (.+)$/) else { continue }
            let base = slug(String(match.1))
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// The link targets of a text: `[text](target)` and `![alt](target)`,
    /// not inside code.
    static func links(_ text: String) -> [String] {
        prose(text).flatMap { line -> [String] in
            let outsideCode = line.replacing(/`[^`]*`/, with: "")
            return outsideCode.matches(of: /\]\(([^)\s]+)\)/).map { String($0.1) }
        }
    }

    @Test(arguments: [
        ("## Use the dataset", "use-the-dataset"),
        ("### Measured quality (scripts/eval)", "measured-quality-scriptseval"),
        ("### --person-only", "--person-only"),
        ("### Curating the dataset: rejections, near-duplicates, splits", "curating-the-dataset-rejections-near-duplicates-splits"),
        ("## `--detector`, as_is", "--detector-as_is"),
    ])
    func anchorsAreGitHubs(heading: String, anchor: String) {
        let text = heading.split(separator: " ", maxSplits: 1)[1]
        #expect(Self.slug(String(text)) == anchor)
    }

    @Test func linksInCodeAreNotLinks() {
        let text = "a [b](c.md) `[d](e.md)`\n\n    [f](g.md)\n```\n[h](i.md)\n```\n![j](k.png)\n"
        #expect(Self.links(text) == ["c.md", "k.png"])
    }

    /// The README stays a newcomer's page; the rest is in docs/.
    @Test func theReadmeIsAtMostFourHundredLines() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let count = readme.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        #expect(count <= 400, "README.md has \(count) lines")
    }

    @Test func everyRelativeLinkResolves() throws {
        var checked = 0
        for document in Self.documents {
            let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
            let folder = (document as NSString).deletingLastPathComponent
            for link in Self.links(text) where !link.contains("://") && !link.hasPrefix("mailto:") {
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0])
                let target = path.isEmpty ? document : ((folder as NSString).appendingPathComponent(path) as NSString).standardizingPath
                let url = packageRoot.appendingPathComponent(target)
                #expect(FileManager.default.fileExists(atPath: url.path), "\(document): '\(link)' leads to no file")
                guard parts.count == 2, FileManager.default.fileExists(atPath: url.path) else { continue }
                let anchor = String(parts[1])
                let headings = Self.anchors(try String(contentsOf: url, encoding: .utf8))
                #expect(headings.contains(anchor), "\(document): '\(link)': \(target) has no heading '#\(anchor)'")
            }
        }
        #expect(checked > 20, "the documents have \(checked) relative links")
    }
}
