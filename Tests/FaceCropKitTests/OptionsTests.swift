import Foundation
import Testing

@testable import FaceCropKit

struct OptionsTests {
    @Test func defaults() throws {
        let options = try OptionTable.parse(["photos", "-o", "out"])
        #expect(options.inputs == ["photos"])
        #expect(options.output == "out")
        #expect(options.size == 256)
        #expect(options.margin == 0.4)
        #expect(options.faces == .all)
        #expect(options.minFace == 48)
        #expect(options.pad == .edge)
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
        (["a", "-o", "x", "--jbos", "2"], "unknown option '--jbos'"),
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

struct ReadmeTests {
    @Test func readmeDocumentsEveryOption() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for spec in OptionTable.all {
            let label = OptionTable.label(spec).replacingOccurrences(of: "|", with: "\\|")
            #expect(readme.contains("`\(label)`"), "README is missing `\(label)`")
        }
    }
}
