import Foundation
import Testing
import FaceCropCore
import FaceCropCurate
import FaceCropKit


/// `--align` takes a template, and stays a flag where it was one: bare
/// `--align` and `align = true` in a config file still mean `level`.
struct AlignOptionTests {
    @Test(arguments: [
        (["a", "-o", "x"], AlignMode.none, ["a"]),
        (["a", "-o", "x", "--align"], .level, ["a"]),
        (["--align", "a", "-o", "x"], .level, ["a"]),
        (["--align", "arcface", "a", "-o", "x"], .arcface, ["a"]),
        (["a", "--align", "ffhq", "-o", "x"], .ffhq, ["a"]),
        (["a", "-o", "x", "--align=none"], .none, ["a"]),
        (["a", "-o", "x", "--align", "level"], .level, ["a"]),
    ])
    func theValueIsTakenOnlyWhenItIsATemplate(arguments: [String], mode: AlignMode, inputs: [String]) throws {
        let options = try OptionTable.parse(arguments)
        #expect(options.align == mode)
        #expect(options.inputs == inputs)
    }

    @Test func aWrongTemplateIsAUsageError() {
        #expect(throws: FaceCropError.usage("'--align' must be one of none, level, arcface, ffhq, not 'ffqh'")) {
            try OptionTable.parse(["a", "-o", "x", "--align=ffqh"])
        }
        #expect(throws: FaceCropError.usage("'--pad' must be one of edge, black, reflect, inside, not 'mirror'")) {
            try OptionTable.parse(["a", "-o", "x", "--pad", "mirror"])
        }
        #expect((try? OptionTable.parse(["a", "-o", "x", "--pad", "reflect"]))?.pad == .reflect)
    }

    @Test(arguments: [
        ("align = true\n", AlignMode.level), ("align = false\n", .none), ("align = arcface\n", .arcface),
        (#"{"align": true}"#, .level), (#"{"align": "ffhq"}"#, .ffhq), (#"{"align": false}"#, .none),
    ])
    func aConfigFileSaysItAsAFlagOrATemplate(text: String, mode: AlignMode) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("facecrop.conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try OptionTable.parse(["--config", path, "a", "-o", "x"]).align == mode)
    }

    @Test func helpSaysTheValueMayBeLeftOutAndMarginDoesNotApply() {
        let help = OptionTable.help
        #expect(help.contains("--align [none|level|arcface|ffhq]"))
        #expect(help.contains("--margin does not apply to arcface and ffhq"))
        #expect(help.contains("--pad inside|edge|black|reflect"))
    }
}

/// `--dedup` is the other option whose value may be left out: its value is
/// only ever attached, so a folder after it is an input.
struct DedupOptionTests {
    @Test(arguments: [
        (["a", "-o", "x"], nil as Int?, ["a"]),
        (["a", "-o", "x", "--dedup"], Dedup.defaultThreshold, ["a"]),
        (["--dedup", "10", "-o", "x"], Dedup.defaultThreshold, ["10"]),
        (["--dedup=5", "a", "-o", "x"], 5, ["a"]),
    ])
    func theValueIsTakenOnlyWhenAttached(arguments: [String], threshold: Int?, inputs: [String]) throws {
        let options = try OptionTable.parse(arguments)
        #expect(options.dedup == threshold)
        #expect(options.inputs == inputs)
    }

    @Test(arguments: [
        ("dedup = true\n", Dedup.defaultThreshold as Int?), ("dedup = false\n", nil), ("dedup = 9\n", 9),
        (#"{"dedup": true}"#, Dedup.defaultThreshold), (#"{"dedup": "7"}"#, 7), (#"{"dedup": false}"#, nil),
    ])
    func aConfigFileSaysItAsAFlagOrANumber(text: String, threshold: Int?) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("facecrop.conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try OptionTable.parse(["--config", path, "a", "-o", "x"]).dedup == threshold)
    }

    @Test func helpShowsTheAttachedValue() {
        #expect(OptionTable.help.contains("--dedup[=N]"))
        #expect((try? OptionTable.parse(["a", "-o", "x", "--dedup=40"])) == nil)
    }
}
