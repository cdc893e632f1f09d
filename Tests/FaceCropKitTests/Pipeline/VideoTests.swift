import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropCurate
import FaceCropVideo


/// Videos made with ffmpeg from Fixtures portraits at test time
/// (scripts/make-test-videos), read by the real binary through the real
/// ffmpeg and ffprobe.
@Suite(.serialized)
struct VideoTests {
    /// The test videos, made once for the suite.
    static let made: URL = {
        let folder = try! makeTemporaryFolder()
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("scripts/make-test-videos")
        process.arguments = [folder.path]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "scripts/make-test-videos failed")
        return folder
    }()

    /// A work folder with `names` (paths under the made videos) in `videos/`.
    func videos(_ names: [String]) throws -> (work: URL, videos: URL) {
        let work = try makeTemporaryFolder()
        let videos = work.appendingPathComponent("videos")
        for name in names {
            let target = videos.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.made.appendingPathComponent(name), to: target)
        }
        return (work, videos)
    }

    /// Presentation times of a video's frames as ffprobe lists its packets, sorted.
    func frameTimes(_ video: URL) throws -> [Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", video.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }.sorted()
    }

    /// The face appears at the cut (1.3 s, into a 10 fps part after 30 fps:
    /// variable frame rate); the first crop's time is a real frame's time,
    /// within one frame of the cut, and `frame` is that frame's number.
    @Test func timesAreFramePresentationTimes() throws {
        let (work, videos) = try videos(["cut.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let run = try runFaceCrop([videos.path, "-o", out.path, "--video-fps", "10", "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try readManifest(out).filter { $0["status"] as? String == "ok" }
        let times = try frameTimes(videos.appendingPathComponent("cut.mp4"))
        let appears = try #require(times.first { $0 > 1.3 + 0.001 })
        let first = try #require(lines.first)
        let time = try #require(first["time"] as? Double)
        #expect(time >= appears - 1e-6 && time <= appears + 0.1 + 1e-6, "face at \(appears) s, first crop at \(time) s")
        let frame = try #require(first["frame"] as? Int)
        #expect(abs(times[frame] - time) < 1e-6)
        #expect(first["video"] as? Bool == true)
        #expect(first["crop"] as? String == "cut.mp4.t\(String(format: "%06d.%03d", Int(time), Int((time * 1000).rounded(.down)) % 1000)).face0.jpg")
        // Every sample is a real frame, at least 0.1 s after the one before.
        let sampled = lines.compactMap { $0["time"] as? Double }
        for (a, b) in zip(sampled, sampled.dropFirst()) { #expect(b - a >= 0.1 - 1e-6) }
        for t in sampled { #expect(times.contains { abs($0 - t) < 1e-6 }) }
        #expect(Set(lines.compactMap { $0["track"] as? Int }) == [0])
    }

    /// A phone-style rotation tag: the frames are turned by it, so the
    /// crop is upright (the detector finds the face in it again) and the
    /// manifest gives the upright size.
    @Test func rotatedVideosGiveUprightCrops() throws {
        let (work, videos) = try videos(["rot90.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let run = try runFaceCrop([videos.path, "-o", out.path, "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try readManifest(out)
        let first = try #require(lines.first)
        #expect(first["status"] as? String == "ok")
        #expect(first["width"] as? Int == 640 && first["height"] as? Int == 480)
        // The crop, run through facecrop as a photo, has an upright face.
        let crop = out.appendingPathComponent(try #require(first["crop"] as? String))
        let again = work.appendingPathComponent("again")
        let check = try runFaceCrop([crop.path, "-o", again.path, "-q", "--size", "128"])
        #expect(check.status == 0)
        #expect(try readManifest(again).first?["status"] as? String == "ok")
    }

    /// Two people with the camera panning: two tracks, each face keeping
    /// its id; --per-track 1 keeps each track's best crop and removes the rest.
    @Test func facesAreLinkedIntoTracks() throws {
        let (work, videos) = try videos(["pan.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        #expect(try runFaceCrop([videos.path, "-o", out.path, "--video-fps", "4", "-q"]).status == 0)
        let all = try readManifest(out)
        let tracks = Dictionary(grouping: all, by: { $0["track"] as? Int ?? -1 })
        #expect(tracks.keys.sorted() == [0, 1])
        // Within a track the face moves left as the camera pans right.
        for (_, lines) in tracks {
            let xs = lines.compactMap { rect($0["bbox"])?.x }
            #expect(xs.count >= 4)
            #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 >= $1 })
        }
        let best = work.appendingPathComponent("best")
        #expect(try runFaceCrop([videos.path, "-o", best.path, "--video-fps", "4", "--per-track", "1", "-q"]).status == 0)
        let kept = try readManifest(best)
        #expect(kept.count == 2)
        #expect(kept.map { $0["track_rank"] as? Int } == [1, 1])
        #expect(Set(kept.compactMap { $0["track_length"] as? Int }) == Set(tracks.values.map(\.count)))
        // Ranked by face_quality: each track's best face of the full run.
        for line in kept {
            #expect(line["quality"] == nil && line["frontality"] is Double)
            let track = tracks[line["track"] as? Int ?? -1] ?? []
            let best = track.compactMap { $0["face_quality"] as? Double }.max()
            #expect(line["face_quality"] as? Double == best, "\(line)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: best.path).filter { $0.hasPrefix("pan.mp4.") }
        #expect(files.sorted() == kept.compactMap { $0["crop"] as? String }.sorted())
    }

    /// 10-bit HLG is tone-mapped to 8-bit SDR and both faces are found.
    @Test func hdrIsToneMapped() throws {
        let (work, videos) = try videos(["hlg10.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        #expect(try runFaceCrop([videos.path, "-o", out.path, "-q"]).status == 0)
        let lines = try readManifest(out)
        #expect(lines.count == 2)
        #expect(Set(lines.compactMap { $0["track"] as? Int }) == [0, 1])
    }

    /// A truncated file and an audio-only one: an error line each, naming
    /// the file; nothing of the truncated one is left; the others go on.
    @Test func brokenVideosAreErrorLines() throws {
        let (work, videos) = try videos(["truncated.mp4", "audio-only.mp4", "rot90.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let run = try runFaceCrop([videos.path, "-o", out.path, "-q"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("'truncated.mp4': could not read video: ffmpeg stopped with status 1"))
        #expect(run.stderr.contains("'audio-only.mp4': could not read video: no video stream (only audio)"))
        let bySource = linesBySource(try readManifest(out))
        #expect(bySource["truncated.mp4"]?.first?["status"] as? String == "error")
        #expect(bySource["rot90.mp4"]?.first?["status"] as? String == "ok")
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("truncated") }
        #expect(left.isEmpty, "\(left)")
        let long = try runFaceCrop([videos.appendingPathComponent("rot90.mp4").path, "-o", work.appendingPathComponent("long").path, "-q", "--max-video-seconds", "0.5"])
        #expect(long.status == 1)
        #expect(long.stderr.contains("'rot90.mp4': refused: 1 s long, over the limit of 0.5 s (--max-video-seconds)"))
    }

    /// A Live Photo's .MOV is skipped by default and read with --live-photo-videos.
    @Test func livePhotoVideosAreSkippedByDefault() throws {
        let (work, videos) = try videos(["live/IMG_0001.HEIC", "live/IMG_0001.MOV"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        #expect(try runFaceCrop([videos.path, "-o", out.path, "-q"]).status == 0)
        #expect(Set(try readManifest(out).compactMap { $0["source"] as? String }) == ["live/IMG_0001.HEIC"])
        let both = work.appendingPathComponent("both")
        #expect(try runFaceCrop([videos.path, "-o", both.path, "-q", "--live-photo-videos"]).status == 0)
        #expect(Set(try readManifest(both).compactMap { $0["source"] as? String }) == ["live/IMG_0001.HEIC", "live/IMG_0001.MOV"])
    }

    /// The same videos give the same bytes at --jobs 1 and 2; a rerun reads
    /// nothing again and changes nothing.
    @Test func rerunsAreByteIdentical() throws {
        let (work, videos) = try videos(["pan.mp4", "rot90.mp4", "cut.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let one = work.appendingPathComponent("one")
        let two = work.appendingPathComponent("two")
        #expect(try runFaceCrop([videos.path, "-o", one.path, "-q", "-j", "1", "--no-report", "--no-contact-sheet"]).status == 0)
        #expect(try runFaceCrop([videos.path, "-o", two.path, "-q", "-j", "2", "--no-report", "--no-contact-sheet"]).status == 0)
        let first = try fingerprint(one).filter { $0.key != "stats.json" }
        #expect(first == (try fingerprint(two).filter { $0.key != "stats.json" }))
        let again = try runFaceCrop([videos.path, "-o", one.path, "-j", "2", "--no-report", "--no-contact-sheet", "--json"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("\"reused\": 3") || again.stdout.contains("\"reused\":3"), "\(again.stdout)")
        #expect(first == (try fingerprint(one).filter { $0.key != "stats.json" }))
    }
}

extension VideoTests {
    /// Ctrl-C during a video: it stops at the next frame, keeps none of its
    /// crops, says so, and the next run reads it again.
    @Test func aStoppedVideoKeepsNothingAndIsReadAgain() throws {
        let (work, videos) = try videos(["pan.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("faces/astronaut.jpg"), to: videos.appendingPathComponent("a.jpg"))
        let out = work.appendingPathComponent("out")
        let arguments = [videos.path, "-o", out.path, "--video-fps", "10", "-j", "1", "-q"]
        #expect(try interruptFaceCrop(arguments, once: out, after: 0.5, with: SIGINT) == 130)
        let lines = linesBySource(try readManifest(out))
        #expect(lines["pan.mp4"]?.first?["error"] as? String == "could not read video: stopped before its end; the next run reads it again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("pan.mp4") }.isEmpty)
        #expect(try runFaceCrop(arguments).status == 0)
        #expect(linesBySource(try readManifest(out))["pan.mp4"]?.first?["status"] as? String == "ok")
    }
}

extension VideoTests {
    /// A 0.5 s shot between two 1 fps samples (1.2-1.7 s): missed at the
    /// fps rate; --video-scenes samples its first frame (and the next
    /// shot's) on top of the fps samples, at real frame times, each new
    /// shot a new track; the same bytes at --jobs 1 and 2.
    @Test func sceneChangesAreSampled() throws {
        let (work, videos) = try videos(["shots.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let plain = work.appendingPathComponent("plain")
        let quiet = ["-q", "--no-report", "--no-contact-sheet"]
        #expect(try runFaceCrop([videos.path, "-o", plain.path] + quiet).status == 0)
        let plainTimes = try readManifest(plain).compactMap { $0["time"] as? Double }
        #expect(Set(plainTimes) == [0, 1, 2, 3])
        let one = work.appendingPathComponent("one")
        let two = work.appendingPathComponent("two")
        #expect(try runFaceCrop([videos.path, "-o", one.path, "--video-scenes", "-j", "1"] + quiet).status == 0)
        #expect(try runFaceCrop([videos.path, "-o", two.path, "--video-scenes", "-j", "2"] + quiet).status == 0)
        let lines = try readManifest(one)
        let frames = try frameTimes(videos.appendingPathComponent("shots.mp4"))
        let times = Set(lines.compactMap { $0["time"] as? Double })
        // The first frame of the short shot, and of the one after it (its
        // 0.5 s are 16 frames at 30 fps: the astronaut comes at 1.733 s).
        let firstOfShort = try #require(frames.first { $0 >= 1.2 - 1e-6 })
        let extra = times.subtracting(plainTimes).sorted()
        #expect(extra.count == 2 && extra.first == firstOfShort, "\(times.sorted())")
        let firstOfLast = try #require(extra.last)
        #expect(firstOfLast > 1.7 - 1e-6 && firstOfLast < 1.7 + 2.0 / 30 + 1e-6)
        func track(at time: Double) -> Int? {
            lines.first { abs(($0["time"] as? Double ?? -1) - time) < 1e-6 }?["track"] as? Int
        }
        #expect(track(at: firstOfLast) != nil && track(at: firstOfLast) == track(at: 2))
        for t in times { #expect(frames.contains { abs($0 - t) < 1e-6 }) }
        #expect(lines.first?["samples"] as? Int == 6)
        let short = lines.filter { abs(($0["time"] as? Double ?? -1) - firstOfShort) < 1e-6 }
        #expect(short.count == 1)
        let shortTrack = try #require(short.first?["track"] as? Int)
        #expect(lines.filter { $0["track"] as? Int == shortTrack }.count == 1)
        #expect(try fingerprint(one).filter { $0.key != "stats.json" } == (try fingerprint(two).filter { $0.key != "stats.json" }))
        let stats = try String(contentsOf: one.appendingPathComponent("stats.json"), encoding: .utf8)
        #expect(stats.contains("scenes=0.3"))
        // A threshold above every cut's score (0.56 here) takes none.
        let high = work.appendingPathComponent("high")
        #expect(try runFaceCrop([videos.path, "-o", high.path, "--video-scenes=0.9"] + quiet).status == 0)
        #expect(Set(try readManifest(high).compactMap { $0["time"] as? Double }) == Set(plainTimes))
    }

    /// The capture time from the container: QuickTime's creationdate with
    /// its offset first, else creation_time (UTC); a malformed or missing
    /// one gives no `taken` and no error; --since/--until select videos by it.
    @Test func videosHaveACaptureTime() throws {
        let (work, videos) = try videos(["taken/qt.mov", "taken/utc.mp4", "taken/bad.mov", "taken/none.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let quiet = ["-q", "--no-report", "--no-contact-sheet"]
        let run = try runFaceCrop([videos.path, "-o", out.path] + quiet)
        #expect(run.status == 0, "\(run.stderr)")
        let bySource = linesBySource(try readManifest(out))
        #expect(bySource["taken/qt.mov"]?.first?["taken"] as? String == "2021-06-05T14:03:07+02:00")
        #expect(bySource["taken/utc.mp4"]?.first?["taken"] as? String == "2020-01-02T03:04:05Z")
        #expect(bySource["taken/bad.mov"]?.first?["status"] as? String == "ok")
        #expect(bySource["taken/bad.mov"]?.first?["taken"] == nil)
        #expect(bySource["taken/none.mp4"]?.first?["taken"] == nil)
        let since = work.appendingPathComponent("since")
        #expect(try runFaceCrop([videos.path, "-o", since.path, "--since", "2021-06-05"] + quiet).status == 0)
        #expect(Set(try readManifest(since).compactMap { $0["source"] as? String }) == ["taken/qt.mov"])
        #expect(try runFaceCrop([videos.path, "-o", since.path, "--since", "2021-06-05", "--check"] + quiet).status == 0)
        // --check reads the videos' times too: with other dates, qt.mov would go and utc.mp4 come.
        let check = try runFaceCrop([videos.path, "-o", since.path, "--until", "2020-12-31", "--check"])
        #expect(check.status == 1)
        let said = check.stdout.split(separator: "\n")
        #expect(said.contains { $0.hasPrefix("left out by --since/--until: ") && $0.hasSuffix("taken/qt.mov") }, "\(check.stdout)")
        #expect(said.contains { $0.hasPrefix("new: ") && $0.hasSuffix("taken/utc.mp4") }, "\(check.stdout)")
        #expect(!check.stdout.contains("none.mp4"), "\(check.stdout)")
    }
}

extension VideoTests {
    /// `facecrop reject` on one crop of a video rejects its whole track at
    /// the next run (every sample of that face), the other track is kept,
    /// `--check` passes after it; the entry still holds at another
    /// --video-fps; an older entry without a time is read and rejects the
    /// track of the box too.
    @Test func rejectingAVideoCropRejectsItsTrack() throws {
        let (work, videos) = try videos(["pan.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let quiet = ["-q", "--no-report", "--no-contact-sheet"]
        let arguments = [videos.path, "-o", out.path, "--video-fps", "4"] + quiet
        #expect(try runFaceCrop([videos.path, "-o", out.path, "--video-fps", "4", "-q", "--no-contact-sheet"]).status == 0)
        let before = try readManifest(out)
        let tracks = Dictionary(grouping: before, by: { $0["track"] as? Int ?? -1 })
        #expect(tracks.keys.sorted() == [0, 1])
        let chosen = try #require(tracks[1]?.dropFirst(2).first)
        let crop = try #require(chosen["crop"] as? String)
        // The report's tick box holds the same line as `facecrop reject` writes.
        let report = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(report.contains(" t=\(try #require(chosen["time"] as? Double))  # pan.mp4 "))
        let reject = try runFaceCrop(["reject", out.path, crop])
        #expect(reject.status == 0, "\(reject.stderr)")
        let file = try String(contentsOf: out.appendingPathComponent("rejections.txt"), encoding: .utf8)
        #expect(file.contains(" t=\(try #require(chosen["time"] as? Double))  # pan.mp4 "), "\(file)")
        #expect(try runFaceCrop(arguments + ["--check"]).status == 1)
        let keptBefore = try fingerprint(out).filter { key, _ in (tracks[0] ?? []).contains { $0["crop"] as? String == key } }
        #expect(try runFaceCrop(arguments).status == 0)
        let after = try readManifest(out)
        #expect(after.count == before.count)
        for line in after {
            let rejected = line["track"] as? Int == 1
            #expect(line["status"] as? String == (rejected ? "rejected" : "ok"))
            #expect((line["crop"] == nil) == rejected)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("pan.mp4.") }
        #expect(Set(files) == Set(keptBefore.keys))
        #expect(try fingerprint(out).filter { keptBefore[$0.key] != nil } == keptBefore)
        #expect(try runFaceCrop(arguments + ["--check"]).status == 0)
        // At another rate the chosen sample is not taken: the faces within 1 s
        // of it are, and the same person's track is rejected.
        let rejections = out.appendingPathComponent("rejections.txt").path
        let slower = work.appendingPathComponent("slower")
        #expect(try runFaceCrop([videos.path, "-o", slower.path, "--video-fps", "3", "--rejections", rejections] + quiet).status == 0)
        let slow = try readManifest(slower)
        let chosenTime = try #require(chosen["time"] as? Double)
        #expect(!slow.contains { abs(($0["time"] as? Double ?? -1) - chosenTime) < 1e-6 })
        let slowTracks = Dictionary(grouping: slow, by: { $0["track"] as? Int ?? -1 })
        #expect(slowTracks.count == 2)
        let gone = slowTracks.values.filter { $0.allSatisfy { $0["status"] as? String == "rejected" } }
        let kept = slowTracks.values.filter { $0.allSatisfy { $0["status"] as? String == "ok" } }
        #expect(gone.count == 1 && kept.count == 1)
        let chosenBox = try #require(rect(chosen["bbox"]))
        #expect(gone.first?.contains { line in
            abs((line["time"] as? Double ?? -9) - chosenTime) <= 1 && (rect(line["bbox"])?.iou(chosenBox) ?? 0) >= 0.5
        } == true)
        // An entry as older files have it (no time) still reads, and takes the track.
        let old = work.appendingPathComponent("old.txt")
        let box = try #require(rect(chosen["bbox"]))
        try "\(try #require(chosen["sha256"] as? String)) \(box.x),\(box.y),\(box.width),\(box.height)\n"
            .write(to: old, atomically: true, encoding: .utf8)
        let older = work.appendingPathComponent("older")
        #expect(try runFaceCrop([videos.path, "-o", older.path, "--video-fps", "4"] + quiet + ["--rejections", old.path]).status == 0)
        #expect(try readManifest(older).map { $0["status"] as? String } == after.map { $0["status"] as? String })
        // A crop file deleted by hand is a rejection too: of its whole track.
        let deleted = try #require(tracks[0]?.last?["crop"] as? String)
        try FileManager.default.removeItem(at: out.appendingPathComponent(deleted))
        #expect(try runFaceCrop(arguments).status == 0)
        #expect(try readManifest(out).allSatisfy { $0["status"] as? String == "rejected" })
        #expect(try String(contentsOf: out.appendingPathComponent("rejections.txt"), encoding: .utf8).split(separator: "\n")
            .filter { $0.contains(" t=") }.count == 2)
    }
}
