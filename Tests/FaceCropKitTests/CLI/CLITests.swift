import Foundation
import Testing
import FaceCropCore
import FaceCropPick

/// The command-line contract: wording, streams and exit statuses.
struct CLITests {
    @Test func helpGoesToStdoutAndExitsZero() throws {
        let result = try runFaceCrop(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: facecrop <photos>... -o <dir> [options]"))
        #expect(result.stdout.contains("--min-face PX"))
        #expect(result.stderr.isEmpty)
    }

    @Test func versionPrintsTheVersion() throws {
        let result = try runFaceCrop(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "facecrop 0.1.0\n")
    }

    @Test func aUsageErrorSaysWhatAndHowToGetHelp() throws {
        let result = try runFaceCrop(["photos", "-o", "out", "--jbos", "2"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            Error: unknown option '--jbos'; did you mean '--jobs'?
            Usage: facecrop <photos>... -o <dir> [options]
            See 'facecrop --help' for more information.

            """)
    }

    @Test func aMissingInputExits66() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try runFaceCrop(["/no/such/photos", "-o", work.path])
        #expect(result.status == 66)
        #expect(result.stderr == "facecrop: error: cannot read input '/no/such/photos': No such file or directory\n")
    }

    @Test func aMissingCascadeExits69() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try runFaceCrop([fixtures.appendingPathComponent("faces").path, "-o", work.path, "--cascade", "/no/cascade.xml"])
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("facecrop: error: cannot load cascade '/no/cascade.xml': cascade file not found"))
    }

    @Test func anOutputThatIsAFileExits73() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("file")
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8))
        let result = try runFaceCrop([fixtures.appendingPathComponent("faces").path, "-o", file.path])
        #expect(result.status == 73)
        #expect(result.stderr.hasPrefix("facecrop: error: cannot use output folder '\(file.path)'"))
    }

    @Test func summaryOnStderrJsonOnStdout() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try runFaceCrop([fixtures.appendingPathComponent("faces").path, "-o", work.path, "--json"])
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("facecrop: 4 photos, 5 faces (4 with faces, 0 without, 0 failed) in "))
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(summary["photos"] as? Int == 4)
        #expect(summary["faces"] as? Int == 5)
        #expect(result.stdout.hasSuffix("}\n") && result.stdout.split(separator: "\n").count == 1)
    }

    @Test func quietPrintsNothingForACleanRun() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try runFaceCrop([fixtures.appendingPathComponent("noface").path, "-o", work.path, "-q"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty && result.stdout.isEmpty)
    }

    /// `merge` reads its options through the same machinery as a run, from
    /// its own table; its usage line and messages are its own.
    @Test func mergeHelpAndUsageErrors() throws {
        let usage = "Usage: facecrop merge <out> <shard-dir>... [--quiet] [--json] [--people-file FILE]"
        let help = try runFaceCrop(["merge", "--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        #expect(help.stdout == """
            \(usage)

            Combines the output folders of 'facecrop --shard K/N' runs (or one shared
            output folder) into one dataset in <out>.

            Options:
              -q, --quiet         No summary line; errors are still printed.
              --json              Print the summary as one JSON object on stdout.
              --people-file FILE  With shards run with --people: the people file the merged grouping honours (default: <out>/people.txt).
              -h, --help          Show this help.

            """)
        #expect(try runFaceCrop(["merge", "-h"]).stdout == help.stdout)
        let unknown = try runFaceCrop(["merge", "out", "--jsno", "a"])
        #expect(unknown.status == 64 && unknown.stdout.isEmpty)
        #expect(unknown.stderr == "Error: unknown option '--jsno'; did you mean '--json'?\n\(usage)\nSee 'facecrop --help' for more information.\n")
        let valued = try runFaceCrop(["merge", "out", "a", "--json=yes"])
        #expect(valued.status == 64 && valued.stderr.hasPrefix("Error: option '--json' takes no value\n\(usage)\n"))
        for arguments in [["merge"], ["merge", "out", "-q", "--json"]] {
            let short = try runFaceCrop(arguments)
            #expect(short.status == 64)
            #expect(short.stderr == """
                Error: merge needs an output folder and at least one shard folder
                \(usage)
                See 'facecrop --help' for more information.

                """)
        }
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try runFaceCrop(["merge", "out", "/no/such/shard", "--quiet"], directory: folder)
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("facecrop: error: cannot read input '/no/such/shard': no facecrop shard output here"))
        // Nothing is made for a merge that cannot start.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
    }

    /// A misspelt subcommand or option is offered the nearest one of the
    /// tables; a word that is an existing folder is always a photo folder.
    @Test func aMisspeltCommandOrOptionIsOfferedTheNearest() throws {
        let see = "See 'facecrop --help' for more information.\n"
        let command = try runFaceCrop(["peple", "faces"])
        #expect(command.status == 64 && command.stdout.isEmpty)
        #expect(command.stderr == """
            Error: 'peple' is neither a photo folder nor a command; did you mean 'facecrop people'?
            Usage: facecrop <photos>... -o <dir> [options]
            \(see)
            """)
        let option = try runFaceCrop(["photos", "-o", "out", "--detecter", "yunet"])
        #expect(option.status == 64)
        #expect(option.stderr.hasPrefix("Error: unknown option '--detecter'; did you mean '--detector'?\nUsage: facecrop <photos>"))
        let pick = try runFaceCrop(["pick", "ds", "out", "--persn", "a"])
        #expect(pick.status == 64)
        #expect(pick.stderr.hasPrefix("Error: unknown option '--persn'; did you mean '--person'?\nUsage: facecrop pick "))
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work.appendingPathComponent("pics"), withIntermediateDirectories: true)
        let folder = try runFaceCrop(["pics"], directory: work)
        #expect(folder.status == 64)
        #expect(folder.stderr.hasPrefix("Error: missing '--output <dir>'\n"))
    }
}
