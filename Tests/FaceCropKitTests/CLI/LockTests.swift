import Foundation
import Testing
import FaceCropOutput


/// One writer per dataset folder and shard (`flock(2)` on
/// `.facecrop/lock[.shard-K-of-N]`), and no dataset written into a photo
/// folder itself. Every case runs the real binary on real photos; where the
/// timing of two runs would decide the outcome, this process takes the lock
/// itself, with the same kernel call a run makes.
@Suite(.serialized)
struct LockTests {
    /// A lock on `path` held by this test process, as a run holds it.
    final class HeldLock {
        let descriptor: Int32
        init(_ path: String, shared: Bool = false) throws {
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            try #require(descriptor >= 0)
            try #require(flock(descriptor, shared ? LOCK_SH : LOCK_EX) == 0)
            if !shared {
                let text = Array("\(getpid())\n".utf8)
                _ = ftruncate(descriptor, 0)
                _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            }
        }
        deinit { close(descriptor) }
    }

    /// Every file under `folder` with its bytes and modification time.
    func snapshot(_ folder: URL) throws -> [String: String] {
        var result = try fingerprint(folder)
        for (relative, hash) in result {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(relative).path)
            result[relative] = hash + " " + String(describing: attributes[.modificationDate]!)
        }
        return result
    }

    func start(_ arguments: [String]) throws -> Process { try startFaceCrop(arguments) }

    /// Waits until the run `process` has written its pid into the lock file.
    func waitForHolder(_ process: Process, lock: String) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: lock, encoding: .utf8),
                text.trimmingCharacters(in: .whitespacesAndNewlines) == String(process.processIdentifier)
            {
                return
            }
            try #require(process.isRunning, "the run ended before it took the lock")
            usleep(20_000)
        }
        Issue.record("the run did not take the lock within 30 s")
    }

    /// Photos in a fresh folder: enough for a run at `--jobs 1` to last
    /// a few seconds where two runs must overlap, a few otherwise.
    func photosAndOutput(overlap: Bool = false) throws -> (work: URL, photos: URL, output: URL) {
        let work = try makeTemporaryFolder()
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(overlap ? ["faces", "people", "formats"] : ["faces"], into: photos)
        return (work, photos, work.appendingPathComponent("out"))
    }

    @Test func aSecondWriterStopsAtOnceAndTouchesNothing() throws {
        let (work, photos, output) = try photosAndOutput()
        defer { try? FileManager.default.removeItem(at: work) }
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let held = try HeldLock(OutputLock.path(output: output.path, suffix: ""))
        let before = try snapshot(output)
        let refused = try runFaceCrop([photos.path, "-o", output.path, "-q", "--overwrite"])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("'\(output.path)'"))
        #expect(refused.stderr.contains("another facecrop run (pid \(getpid()))"))
        #expect(try snapshot(output) == before)
        _ = held
    }

    @Test func twoRealRunsAtOnceLeaveTheDatasetOfOne() throws {
        let (work, photos, output) = try photosAndOutput(overlap: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let first = try start([photos.path, "-o", output.path, "-q", "--jobs", "1"])
        try waitForHolder(first, lock: OutputLock.path(output: output.path, suffix: ""))
        let second = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        first.waitUntilExit()
        #expect(second.status == 73)
        #expect(first.terminationStatus == 0)
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))
    }

    @Test func waitLockQueuesBehindTheHolder() throws {
        let (work, photos, output) = try photosAndOutput()
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(
            at: output.appendingPathComponent(StateStore.folderName), withIntermediateDirectories: true)
        var held: HeldLock? = try HeldLock(OutputLock.path(output: output.path, suffix: ""))
        let waiting = try start([photos.path, "-o", output.path, "-q", "--wait-lock"])
        Thread.sleep(forTimeInterval: 1.5)
        #expect(waiting.isRunning)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("manifest.jsonl").path))
        held = nil
        _ = held
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0)
        #expect(try readManifest(output).count >= 4)
    }

    @Test func aKilledHolderLeavesNoStaleLock() throws {
        let (work, photos, output) = try photosAndOutput(overlap: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let first = try start([photos.path, "-o", output.path, "-q", "--jobs", "1"])
        try waitForHolder(first, lock: OutputLock.path(output: output.path, suffix: ""))
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let next = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(next.status == 0, "\(next.stderr)")
    }

    @Test func shardsStillRunSideBySide() throws {
        let (work, photos, output) = try photosAndOutput()
        defer { try? FileManager.default.removeItem(at: work) }
        let shards = try (0..<2).map { try start([photos.path, "-o", output.path, "-q", "--jobs", "1", "--shard", "\($0)/2"]) }
        for shard in shards { shard.waitUntilExit() }
        #expect(shards.map(\.terminationStatus) == [0, 0])
        let merged = work.appendingPathComponent("merged")
        #expect(try runFaceCrop(["merge", merged.path, output.path, "-q"]).status == 0)
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(merged) == datasetBytes(clean))
    }

    @Test func readersShareTheLockAndWaitForWriters() throws {
        let (work, photos, output) = try photosAndOutput()
        defer { try? FileManager.default.removeItem(at: work) }
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let lock = OutputLock.path(output: output.path, suffix: "")
        do {
            let reader = try HeldLock(lock, shared: true)
            #expect(try runFaceCrop([photos.path, "-o", output.path, "--check"]).status == 0)
            #expect(try runFaceCrop([photos.path, "-o", output.path, "--dry-run"]).status == 0)
            #expect(try runFaceCrop([photos.path, "-o", output.path, "-q", "--overwrite"]).status == 73)
            _ = reader
        }
        do {
            let writer = try HeldLock(lock)
            let check = try runFaceCrop([photos.path, "-o", output.path, "--check"])
            #expect(check.status == 73)
            #expect(check.stdout.isEmpty)
            _ = writer
        }
    }

    @Test func mergeTakesTheShardsLocks() throws {
        let (work, photos, output) = try photosAndOutput()
        defer { try? FileManager.default.removeItem(at: work) }
        for k in 0..<2 {
            #expect(try runFaceCrop([photos.path, "-o", output.path, "-q", "--shard", "\(k)/2"]).status == 0)
        }
        let merged = work.appendingPathComponent("merged")
        do {
            let writer = try HeldLock(OutputLock.path(output: output.path, suffix: ".shard-1-of-2"))
            let refused = try runFaceCrop(["merge", merged.path, output.path, "-q"])
            #expect(refused.status == 73)
            #expect(!FileManager.default.fileExists(atPath: merged.appendingPathComponent("manifest.jsonl").path))
            _ = writer
        }
        #expect(try runFaceCrop(["merge", merged.path, output.path, "-q"]).status == 0)
    }

    @Test(arguments: ["same", "symlink", "dotdot", "slash"])
    func theOutputCannotBeAnInputFolder(_ spelling: String) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces"], into: photos)
        let before = try snapshot(photos)
        let output: String
        switch spelling {
        case "same": output = photos.path
        case "symlink":
            output = work.appendingPathComponent("link").path
            try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: photos.path)
        case "dotdot": output = photos.path + "/faces/.."
        default: output = photos.path + "/"
        }
        let result = try runFaceCrop([photos.path, "-o", output])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'\(output)'"))
        #expect(result.stderr.contains("'\(photos.path)'"))
        #expect(try snapshot(photos) == before)
    }

    @Test func anOutputInsideAnInputAndAnInputInsideTheOutputStillWork() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces"], into: photos)
        let inside = photos.appendingPathComponent("dataset")
        #expect(try runFaceCrop([photos.path, "-o", inside.path, "-q"]).status == 0)
        #expect(try readManifest(inside).allSatisfy { !($0["source"] as! String).hasPrefix("dataset/") })
        // The input photos/faces inside the output folder work/.
        #expect(try runFaceCrop([photos.appendingPathComponent("faces").path, "-o", work.path, "-q"]).status == 0)
        #expect(try readManifest(work).contains { $0["status"] as? String == "ok" })
    }
}
