import Foundation
import Testing
import FaceCropCore
import FaceCropKit


/// Reruns, interruptions, --check and shards, with the real binary.
@Suite(.serialized)
struct DatasetTests {
    /// A photo folder of real fixtures, `copies` times over under different names.
    func makeLibrary(in work: URL, copies: Int = 1) throws -> URL {
        let photos = work.appendingPathComponent("photos")
        for copy in 0..<copies {
            let folder = photos.appendingPathComponent("set\(copy)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try copyFixtures(["faces", "noface", "rotated"], into: folder)
        }
        return photos
    }

    func summary(_ result: RunResult) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
    }

    @Test func aRerunKeepsUnchangedPhotosAndFollowsChanges() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        let first = try runFaceCrop([photos.path, "-o", output.path, "-q", "--json"])
        #expect(first.status == 0)

        // Unchanged rerun: nothing processed.
        let again = try summary(try runFaceCrop([photos.path, "-o", output.path, "-q", "--json"]))
        #expect((again["run"] as! [String: Any])["reused"] as? Int == 17)
        #expect((again["run"] as! [String: Any])["processed"] as? Int == 0)

        // Touch one, replace one by the same bytes, change one, remove one, add one.
        let set0 = photos.appendingPathComponent("set0")
        let touched = set0.appendingPathComponent("faces/astronaut.jpg").path
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: touched)
        try FileManager.default.removeItem(at: set0.appendingPathComponent("faces/grace_hopper.jpg"))
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("faces/grace_hopper.jpg"), to: set0.appendingPathComponent("faces/grace_hopper.jpg"))
        try FileManager.default.removeItem(at: set0.appendingPathComponent("faces/two-people.jpg"))
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("formats/astronaut.webp"), to: set0.appendingPathComponent("new.webp"))
        try Data(contentsOf: fixtures.appendingPathComponent("noface/coffee.jpg")).write(to: set0.appendingPathComponent("rotated/astronaut-orient-3.jpg"))

        let check = try runFaceCrop([photos.path, "-o", output.path, "--check"])
        #expect(check.status == 1)
        // grace_hopper.jpg was replaced by the same bytes: not a change.
        #expect(check.stdout == """
            new: set0/new.webp
            changed: set0/rotated/astronaut-orient-3.jpg
            removed: set0/faces/two-people.jpg

            """)

        let rerun = try runFaceCrop([photos.path, "-o", output.path, "-q", "--json"])
        #expect(rerun.status == 0)
        let run = try summary(rerun)["run"] as! [String: Any]
        #expect(run["removed_crops"] as? Int == 3)  // two-people's two crops and the coffee photo's old face
        #expect(run["processed"] as? Int == 4)  // touched (hashed, kept), changed x2, new
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("set0/faces/two-people.jpg.face0.jpg").path))

        // The result is exactly what a clean run over the new photos gives.
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))
        #expect(try runFaceCrop([photos.path, "-o", output.path, "--check", "-q"]).status == 0)
    }

    @Test func newSettingsRedoEverythingAndRemoveCropsTheyNoLongerMake() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("set0/faces/two-people.jpg.face1.jpg").path))

        let check = try runFaceCrop([photos.path, "-o", output.path, "--check", "--faces", "largest"])
        #expect(check.status == 1)
        #expect(check.stdout.hasPrefix("settings changed: every photo would be processed again (faces: all -> largest)\n"), "\(check.stdout)")

        let result = try runFaceCrop([photos.path, "-o", output.path, "--faces", "largest", "--size", "96", "-q", "--json"])
        #expect(result.status == 0)
        #expect((try summary(result)["run"] as! [String: Any])["reused"] as? Int == 0)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("set0/faces/two-people.jpg.face1.jpg").path))
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "--faces", "largest", "--size", "96", "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))

        let overwrite = try summary(try runFaceCrop([photos.path, "-o", output.path, "--faces", "largest", "--size", "96", "--overwrite", "-q", "--json"]))
        #expect((overwrite["run"] as! [String: Any])["processed"] as? Int == 17)
    }

    @Test func dryRunListsAndChangesNothing() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        let dry = try runFaceCrop([photos.path, "-o", output.path, "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.stdout.split(separator: "\n").count == 17)
        #expect(dry.stdout.hasPrefix("new: set0/faces/astronaut-large.jpg\n"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// `facecrop --dry-run | head`: the reader of stdout is gone before the
    /// report is written (EPIPE). The report is dropped, the command ends
    /// as it would have, and a real run's dataset does not depend on it.
    @Test func aClosedStdoutEndsTheCommandNormally() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        for arguments in [[photos.path, "-o", output.path, "--dry-run"], [photos.path, "-o", output.path, "-q", "--json"], ["--help"]] {
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()
            let process = try startFaceCrop(arguments, stdout: pipe.fileHandleForWriting)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit, "\(arguments)")
            #expect(process.terminationStatus == 0, "\(arguments)")
        }
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))
    }

    @Test(arguments: [0.15, 0.4, 0.8, 1.3, 2.0])
    func aRunKilledAtAnyMomentResumesToTheCleanResult(after seconds: Double) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work, copies: 3)
        let output = work.appendingPathComponent("out")

        #expect(try interruptFaceCrop([photos.path, "-o", output.path, "-q"], after: seconds, with: SIGKILL) == 128 + SIGKILL)

        let resumed = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))
        // No temporary file anywhere.
        let leftovers = try fingerprint(output).keys.filter { $0.hasSuffix(".tmp") || $0.hasPrefix(".facecrop/tmp/") }
        #expect(leftovers.isEmpty)
    }

    @Test func ctrlCStopsCleanlyAndTheNextRunFinishes() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work, copies: 3)
        let output = work.appendingPathComponent("out")
        #expect(try interruptFaceCrop([photos.path, "-o", output.path, "-q"], once: output, after: 0.1, with: SIGINT) == 130)
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["complete"] as? Bool == false)
        let partial = try readManifest(output)
        #expect(partial.count > 0 && partial.count < 48)

        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))
    }

    @Test func aSecondCtrlCQuitsAtOnceLeavingNoPartialFile() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work, copies: 3)
        let output = work.appendingPathComponent("out")
        let status = try interruptFaceCrop([photos.path, "-o", output.path, "-q"], after: 0.6, with: SIGINT, again: 0.01)
        #expect(status == 130)
        // No temporary file, and no manifest half-written under its real name.
        let files = try fingerprint(output).keys
        #expect(!files.contains { $0.hasPrefix(".facecrop/tmp/") || $0.hasSuffix(".tmp") })
        if files.contains("manifest.jsonl") { _ = try readManifest(output) }
        // The next run finishes the job.
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))
    }

    @Test func shardsRunAtOnceAndMergeToTheSingleRunBytes() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work, copies: 2)
        let single = work.appendingPathComponent("single")
        #expect(try runFaceCrop([photos.path, "-o", single.path, "-q"]).status == 0)

        // Three processes at once: two into a shared folder, one into its own.
        let shared = work.appendingPathComponent("shared")
        let own = work.appendingPathComponent("own")
        let statuses = try runAtOnce(
            [(0, shared), (1, own), (2, shared)].map { index, folder in
                ([photos.path, "-o", folder.path, "--shard", "auto/3", "-q", "--jobs", "1"], index)
            })
        #expect(statuses == [0, 0, 0])
        let missing = try runFaceCrop(["merge", work.appendingPathComponent("m1").path, shared.path])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("missing shard(s) 1 of 3"))

        let merged = work.appendingPathComponent("merged")
        let result = try runFaceCrop(["merge", merged.path, shared.path, own.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try datasetBytes(merged) == datasetBytes(single))
        // The merged folder is a normal dataset: up to date for --check.
        #expect(try runFaceCrop([photos.path, "-o", merged.path, "--check", "-q"]).status == 0)
    }

    @Test(arguments: [("0/4", 0, 4), ("3/4", 3, 4)])
    func shardArguments(text: String, index: Int, count: Int) throws {
        #expect(try OptionTable.shard(text) == Shard(index: index, count: count))
    }

    @Test func shardAutoReadsTheSchedulersIndex() throws {
        #expect(try OptionTable.shard("auto/8", environment: ["SLURM_ARRAY_TASK_ID": "5"]) == Shard(index: 5, count: 8))
        #expect(try OptionTable.shard("auto/8", environment: ["JOB_COMPLETION_INDEX": "7"]) == Shard(index: 7, count: 8))
        #expect(throws: FaceCropError.self) { try OptionTable.shard("auto/8", environment: [:]) }
        #expect(throws: FaceCropError.self) { try OptionTable.shard("8/8") }
    }

    @Test func everyPhotoBelongsToExactlyOneShard() {
        let sources = (0..<500).map { "folder\($0 % 7)/IMG_\($0).jpg" }
        var owners = [Int](repeating: 0, count: 4)
        for source in sources {
            let owning = (0..<4).filter { Shard(index: $0, count: 4).owns(label: "", source: source) }
            #expect(owning.count == 1)
            owners[owning[0]] += 1
        }
        #expect(owners.allSatisfy { $0 > 80 })  // roughly even
    }
}
