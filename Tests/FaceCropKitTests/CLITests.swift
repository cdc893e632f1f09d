import Foundation
import Testing

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
            Error: unknown option '--jbos'
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
        FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8))
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
}
