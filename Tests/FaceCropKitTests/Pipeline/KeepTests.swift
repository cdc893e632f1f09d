import Foundation
import Testing

import FaceCropCore
import FaceCropKit

/// What `--no-prune` and `--overwrite` keep: the lines of photos not found
/// (marked missing, the guard still in front of an empty root) and the
/// crops of a photo that cannot be read. The real binary on copies of
/// Fixtures; the unreadable photo as `nobody` (root reads a mode-000 file).
@Suite(.serialized)
struct KeepTests {
    func runAsNobody(_ arguments: [String]) throws -> RunResult {
        try runFaceCrop(arguments, through: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", facecropBinary])
    }

    func withPeople(_ arguments: [String]) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = packageRoot.appendingPathComponent("models").path
        return try runFaceCrop(arguments, environment: environment)
    }

    func text(_ file: URL) throws -> String { try String(contentsOf: file, encoding: .utf8) }

    /// `count` photos of one face each (astronaut.jpg with a number after
    /// its end: as many content hashes), named p00.jpg ...
    func library(_ count: Int, in work: URL) throws -> URL {
        let photos = work.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let astronaut = try Data(contentsOf: fixtures.appendingPathComponent("faces/astronaut.jpg"))
        for index in 0..<count {
            try (astronaut + Data("\(index)".utf8)).write(to: photos.appendingPathComponent(String(format: "p%02d.jpg", index)))
        }
        return photos
    }

    /// The target of issue: 20 portraits, the root emptied. `--no-prune`
    /// stops at the guard; allowed, it keeps all 20 lines (marked missing),
    /// people and crops; `--check` names them; back, a plain run gives the
    /// manifest it had.
    @Test func noPruneOverAnEmptyRootKeepsEveryLineAndCrop() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try library(20, in: work)
        let output = work.appendingPathComponent("ds")
        let arguments = [photos.path, "-o", output.path, "-q", "--people"]
        #expect(try withPeople(arguments).status == 0)
        let manifest = try text(output.appendingPathComponent("manifest.jsonl"))
        let lines = manifest.split(separator: "\n")
        #expect(lines.count == 20 && lines.allSatisfy { $0.contains("\"crop\"") && $0.contains("\"person\": \"person-") })
        let before = try fingerprint(output)

        let away = work.appendingPathComponent("away")
        try FileManager.default.moveItem(at: photos, to: away)
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let refused = try withPeople([photos.path, "-o", output.path, "--people", "--no-prune"])
        #expect(refused.status == 75)
        #expect(refused.stderr == """
            facecrop: error: this run would mark 20 of the dataset's 20 crops missing, those of the photos not found now \
            (more than half of them; all of those of the input '\(photos.path)', where no photo is found now). \
            Nothing was changed. By folder:
              '\(photos.path)': 20
            If a drive or share is not mounted, mount it and run again. If the photos are really gone, run again \
            with --allow-removals: with --no-prune their crops and manifest lines are kept, marked missing.

            """)
        #expect(try fingerprint(output) == before)

        let kept = try withPeople(arguments + ["--no-prune", "--allow-removals", "--json"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let marked = try text(output.appendingPathComponent("manifest.jsonl"))
        #expect(marked == lines.map { $0.dropLast() + ", \"missing\": true}\n" }.joined())
        #expect(try fingerprint(output).filter { $0.key.hasSuffix(".face0.jpg") } == before.filter { $0.key.hasSuffix(".face0.jpg") })
        let stats = try JSONSerialization.jsonObject(with: Data(kept.stdout.utf8)) as! [String: Any]
        #expect(stats["missing"] as? Int == 20 && stats["faces"] as? Int == 20)
        #expect(try text(output.appendingPathComponent("report.html")).contains("data-stat=\"missing\">20<"))
        // Already missing: a second run is not refused, and changes nothing.
        #expect(try withPeople(arguments + ["--no-prune"]).status == 0)
        #expect(try text(output.appendingPathComponent("manifest.jsonl")) == marked)

        let check = try withPeople(arguments + ["--no-prune", "--check"])
        #expect(check.status == 1)
        #expect(check.stdout == (0..<20).map { String(format: "missing photo: p%02d.jpg\n", $0) }.joined())

        // The photos back (renamed: the same times): found again, the manifest is what it was.
        try FileManager.default.removeItem(at: photos)
        try FileManager.default.moveItem(at: away, to: photos)
        #expect(try withPeople(arguments + ["--check"]).stdout.hasPrefix("found again: p00.jpg\nfound again: p01.jpg\n"))
        let back = try withPeople(arguments)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try text(output.appendingPathComponent("manifest.jsonl")) == manifest)
        #expect(try withPeople(arguments + ["--check"]).status == 0)
    }

    /// Missing photos give the same bytes at any --jobs, and shards merged
    /// give a single run's manifest and stats.
    @Test func missingPhotosAreTheSameBytesAtAnyJobsAndShards() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try library(12, in: work)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("noface/coffee.jpg"), to: photos.appendingPathComponent("coffee.jpg"))
        func output(_ name: String) -> String { work.appendingPathComponent(name).path }
        for jobs in ["1", "2"] { #expect(try runFaceCrop([photos.path, "-o", output("j\(jobs)"), "-q", "--jobs", jobs]).status == 0) }
        for shard in ["0/2", "1/2"] { #expect(try runFaceCrop([photos.path, "-o", output("shards"), "-q", "--shard", shard]).status == 0) }
        // 5 of 13 photos gone, the photo without a face among them.
        for name in ["p01.jpg", "p04.jpg", "p05.jpg", "p09.jpg", "coffee.jpg"] {
            try FileManager.default.removeItem(at: photos.appendingPathComponent(name))
        }
        for jobs in ["1", "2"] {
            #expect(try runFaceCrop([photos.path, "-o", output("j\(jobs)"), "-q", "--jobs", jobs, "--no-prune"]).status == 0)
        }
        for shard in ["0/2", "1/2"] {
            #expect(try runFaceCrop([photos.path, "-o", output("shards"), "-q", "--shard", shard, "--no-prune"]).status == 0)
        }
        #expect(try runFaceCrop(["merge", output("merged"), output("shards"), "-q"]).status == 0)
        let one = try text(URL(fileURLWithPath: output("j1") + "/manifest.jsonl"))
        #expect(one.split(separator: "\n").filter { $0.hasSuffix(", \"missing\": true}") }.count == 5)
        #expect(try text(URL(fileURLWithPath: output("j2") + "/manifest.jsonl")) == one)
        #expect(try text(URL(fileURLWithPath: output("merged") + "/manifest.jsonl")) == one)
        #expect(try datasetBytes(URL(fileURLWithPath: output("merged")))["stats.json (stable)"]
            == datasetBytes(URL(fileURLWithPath: output("j1")))["stats.json (stable)"])
    }

    /// `--check` names crop files no line names and lines whose crop file is gone.
    @Test func checkNamesCropsNoLineNamesAndLinesWithoutTheirCrop() throws {
        let (work, photos) = try fixturePhotos(["faces/astronaut.jpg", "faces/astronaut-large.jpg", "faces/two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("ds")
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        // A crop a run before this one left behind, named by no line (and files that are no crop).
        let crop = output.appendingPathComponent("astronaut.jpg.face0.jpg")
        try FileManager.default.createDirectory(at: output.appendingPathComponent("old"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: crop, to: output.appendingPathComponent("old/gone.jpg.face0.jpg"))
        try FileManager.default.copyItem(at: crop, to: output.appendingPathComponent("old/cover.jpg"))
        let stray = try runFaceCrop([photos.path, "-o", output.path, "--check"])
        #expect(stray.status == 1)
        #expect(stray.stdout == "unnamed crop: old/gone.jpg.face0.jpg\n")
        // A photo marked missing (2 crops of 4: not refused) whose crop was deleted too.
        try FileManager.default.removeItem(at: photos.appendingPathComponent("two-people.jpg"))
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q", "--no-prune"]).status == 0)
        try FileManager.default.removeItem(at: output.appendingPathComponent("two-people.jpg.face1.jpg"))
        let check = try runFaceCrop([photos.path, "-o", output.path, "--check", "--no-prune"])
        #expect(check.status == 1)
        #expect(check.stdout == """
            missing photo: two-people.jpg
            crop file gone: two-people.jpg.face1.jpg
            unnamed crop: old/gone.jpg.face0.jpg

            """)
    }

    /// `--overwrite` with a photo and a video it cannot read: their crops
    /// and lines are kept, each is named on stderr, stats.json, the card
    /// and report.html count them, exit 1; readable again, the dataset is what it was.
    @Test func overwriteKeepsWhatItCannotRead() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        chmod(work.path, 0o755)
        let photos = work.appendingPathComponent("lib")
        try copyFixtures(["faces"], into: photos)
        let video = photos.appendingPathComponent("clip.mp4")
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-loop", "1", "-i", fixtures.appendingPathComponent("faces/grace_hopper.jpg").path,
            "-t", "1", "-r", "5", "-vf", "scale=256:-2", "-pix_fmt", "yuv420p", video.path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        let output = work.appendingPathComponent("ds")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        chmod(output.path, 0o777)
        let arguments = [photos.path, "-o", output.path, "-q"]
        #expect(try runAsNobody(arguments).status == 0)
        let before = try datasetBytes(output)
        let crops = before.filter { $0.key.contains(".face") }
        #expect(crops.keys.contains("faces/grace_hopper.jpg.face0.jpg") && crops.keys.contains { $0.hasPrefix("clip.mp4.t") })

        let photo = photos.appendingPathComponent("faces/grace_hopper.jpg").path
        chmod(photo, 0o000)
        chmod(video.path, 0o000)
        let overwrite = try runAsNobody(arguments + ["--overwrite"])
        #expect(overwrite.status == 1)
        for name in ["clip.mp4", "faces/grace_hopper.jpg"] {
            #expect(overwrite.stderr.contains(
                "facecrop: error: '\(name)': cannot read file: Permission denied (its crops and manifest lines are kept as the last run wrote them; the next run tries it again)\n"))
        }
        let after = try datasetBytes(output)
        #expect(after.filter { $0.key.contains(".face") } == crops)
        #expect(after["manifest.jsonl"] == before["manifest.jsonl"])
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["unreadable"] as? Int == 2)
        #expect(try text(output.appendingPathComponent("report.html")).contains("data-stat=\"unreadable\">2<"))
        #expect(try text(output.appendingPathComponent("README.md")).contains("| failed to read, kept as before | 2 |"))

        chmod(photo, 0o644)
        chmod(video.path, 0o644)
        #expect(try runAsNobody(arguments).status == 0)
        #expect(try datasetBytes(output) == before)
    }
}
