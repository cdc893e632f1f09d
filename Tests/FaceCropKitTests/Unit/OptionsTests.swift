import Foundation
import Testing
import FaceCropCore
import FaceCropKit


struct OptionsTests {
    @Test func defaults() throws {
        let options = try OptionTable.parse(["photos", "-o", "out"])
        #expect(options.inputs == ["photos"])
        #expect(options.output == "out")
        #expect(options.size == 256)
        #expect(options.margin == 0.4)
        #expect(options.faces == .all)
        #expect(options.minFace == 48)
        #expect(options.pad == .inside)
        #expect(options.format == .jpg)
        #expect(options.quality == 90)
        #expect(options.cascade == nil)
        #expect(!options.followLinks && !options.quiet && !options.json)
    }

    @Test func valuesInEveryForm() throws {
        let options = try OptionTable.parse([
            "a", "--size=128", "--margin", "0.25", "--faces", "largest", "--format", "PNG", "b", "-j", "3",
            "--include", "*.jpg", "--include", "trip/*", "--output=out", "--pad", "black", "--", "-odd-name.jpg",
        ])
        #expect(options.inputs == ["a", "b", "-odd-name.jpg"])
        #expect(options.size == 128)
        #expect(options.margin == 0.25)
        #expect(options.faces == .largest)
        #expect(options.format == .png)
        #expect(options.jobs == 3)
        #expect(options.include == ["*.jpg", "trip/*"])
        #expect(options.output == "out")
        #expect(options.pad == .black)
    }

    @Test(arguments: [
        (["a", "-o", "x", "--jbos", "2"], "unknown option '--jbos'; did you mean '--jobs'?"),
        (["a", "-o", "x", "--detecter", "yunet"], "unknown option '--detecter'; did you mean '--detector'?"),
        (["a", "-o", "x", "--no-vid"], "unknown option '--no-vid'; did you mean '--no-videos'?"),
        (["a", "-o", "x", "--clip-fsp", "2"], "unknown option '--clip-fsp'; did you mean '--clip-fps'?"),
        (["a", "-o", "x", "-x"], "unknown option '-x'"),
        (["a", "-o", "x", "--frobnicate"], "unknown option '--frobnicate'"),
        (["a", "-o"], "missing value for '-o'"),
        (["a", "-o", "x", "--size", "0"], "'--size' needs a whole number from 16 to 8192, not '0'"),
        (["a", "-o", "x", "--size", "big"], "'--size' needs a whole number from 16 to 8192, not 'big'"),
        (["a", "-o", "x", "--margin", "-1"], "'--margin' needs a number from 0.0 to 4.0, not '-1'"),
        (["a", "-o", "x", "--faces", "some"], "'--faces' must be one of all, largest, not 'some'"),
        (["a", "-o", "x", "--quiet=yes"], "option '--quiet' takes no value"),
        (["-o", "x"], "no photos given"),
        (["a"], "missing '--output <dir>'"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: FaceCropError.usage(message)) { try OptionTable.parse(arguments) }
    }

    @Test func helpListsEveryOptionFromTheTable() {
        let help = OptionTable.help
        for spec in OptionTable.all {
            for name in spec.names {
                #expect(help.contains(name), "help is missing \(name)")
            }
        }
        #expect(help.contains(OptionTable.usage))
    }

    @Test func helpAndVersionNeedNothingElse() throws {
        #expect(try OptionTable.parse(["--help"]).showHelp)
        #expect(try OptionTable.parse(["--version"]).showVersion)
    }
}

/// The documentation: README.md, then every `docs/*.md` in name order.
func documentationText() throws -> String {
    let docs = packageRoot.appendingPathComponent("docs")
    let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
    var text = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    for page in pages {
        text += "\n" + (try String(contentsOf: docs.appendingPathComponent(page), encoding: .utf8))
    }
    return text
}

struct ReadmeTests {
    @Test func docsDocumentEveryOption() throws {
        let readme = try documentationText()
        for spec in OptionTable.all {
            let label = spec.label.replacingOccurrences(of: "|", with: "\\|")
            #expect(readme.contains("`\(label)`"), "README and docs/ are missing `\(label)`")
        }
    }

    /// docs/manual.md's option table is the option table: a row for each
    /// option, in its order, headed by its names and value as --help shows
    /// them, and no other row; its table of commands is `Commands.markdown`.
    @Test func theManualListsEveryOptionAndCommandInTheTablesOrder() throws {
        let manual = try String(contentsOf: packageRoot.appendingPathComponent("docs/manual.md"), encoding: .utf8)
        let usage = try #require(manual.range(of: "## Usage\n"))
        let lines = manual[usage.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        let options = lines.drop { !$0.hasPrefix("| option |") }.dropFirst(2).prefix { $0.hasPrefix("|") }
        let labels = options.map { row in
            String(row.dropFirst(3).prefix { $0 != "`" }).replacingOccurrences(of: "\\|", with: "|")
        }
        #expect(labels == OptionTable.all.map(\.label))
        let commands = lines.drop { !$0.hasPrefix("| command |") }.prefix { $0.hasPrefix("|") }
        #expect(commands.joined(separator: "\n") + "\n" == Commands.markdown)
    }

    /// The man page's synopsis names every subcommand.
    @Test func theManPageNamesEveryCommand() {
        let page = Manual.page
        for command in Commands.all {
            #expect(page.contains("\n.B facecrop \(command.name)"), "the man page lacks facecrop \(command.name)")
        }
    }

    /// The documentation's "Exit status" table is `ExitStatus.table`, row for row.
    @Test func docsExitStatusesAreTheTable() throws {
        let readme = try documentationText()
        let section = try #require(readme.range(of: "### Exit status\n\n"))
        let rows = readme[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("|") }
        #expect(rows.joined(separator: "\n") + "\n" == ExitStatus.markdown)
    }
}

struct ExitStatusTests {
    @Test func everyStatusIsListedOnceInOrder() {
        let statuses = ExitStatus.table.map(\.status)
        #expect(statuses == statuses.sorted() && Set(statuses).count == statuses.count)
        #expect(statuses == [0, 1, 64, 66, 69, 73, 75, 130, 143])
    }

    /// `--help` names every status; the man page gives each its meaning.
    @Test func helpAndManPageComeFromTheTable() {
        let help = OptionTable.help.replacingOccurrences(of: "\n", with: " ")
        let page = Manual.page
        for entry in ExitStatus.table {
            #expect(help.contains("\(entry.status) \(entry.name)"), "help lacks \(entry.status)")
            #expect(page.contains(".B \(entry.status)\n"), "man page lacks \(entry.status)")
        }
        #expect(page.contains("a library (libvips, OpenCV's people detector, ONNX Runtime for YuNet, CenterFace and \\-\\-people) cannot be loaded"))
    }

    /// A library that cannot start is unavailable (EX_UNAVAILABLE), like a
    /// cascade or the model; per-photo failures are 1.
    @Test(arguments: [
        (FaceCropError.libraryFailed("libvips failed to start"), ExitStatus.unavailable),
        (.cascadeUnavailable("x.xml", reason: "r"), ExitStatus.unavailable),
        (.modelUnavailable("m.onnx", reason: "r"), ExitStatus.unavailable),
        (.ffmpegUnavailable("ffmpeg", reason: "r"), ExitStatus.unavailable),
        (.usage("u"), ExitStatus.usage),
        (.inputMissing("p", reason: "r"), ExitStatus.noInput),
        (.outputUnusable("o", reason: "r"), ExitStatus.cannotCreate),
        (.decodeFailed("p", reason: "r"), ExitStatus.failure),
        (.outputFull("p", reason: "r"), ExitStatus.failure),
    ])
    func everyErrorExitsWithItsStatus(error: FaceCropError, status: Int32) {
        #expect(error.exitStatus == status)
        #expect(ExitStatus.table.contains { $0.status == status })
    }

    /// "Did you mean": within 1 edit for 3-4 letters, 2 for longer words, a
    /// swap counting 1; the start of one word; nothing for 1-2 letters.
    @Test(arguments: [
        ("--detecter", ["--detector", "--detect-size"], ["--detector"]),
        ("--jbos", ["--jobs", "--json"], ["--jobs"]),
        ("peple", ["people", "pick", "reject"], ["people"]),
        ("pikc", ["people", "pick", "reject"], ["pick"]),
        ("-x", ["-o", "-q", "-j"], []),
        ("--frobnicate", ["--format", "--faces"], []),
        ("--min", ["--min-face", "--min-score"], []),
        ("--min-sc", ["--min-face", "--min-score"], ["--min-score"]),
        ("Steve Wozniak", ["steve wozniak", "ada"], ["steve wozniak"]),
        ("bob", ["bo", "bobby", "rob", "bib"], ["bo", "rob", "bib"]),
    ])
    func suggestionsAreTheNearestKnownWords(typed: String, known: [String], expected: [String]) {
        #expect(Suggestion.nearest(to: typed, among: known) == expected)
    }
}
