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

/// The two reads of a video: detection on frames ffmpeg scaled, crops from
/// the frames read again at full size, only those with faces; detection on
/// as many cores as --jobs.
extension VideoTests {
    /// `ffmpeg ARGS` (the test's own clips from Fixtures portraits).
    func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg \(arguments)")
    }

    /// One video alone (so its detection borrows the idle workers' cores)
    /// gives the same bytes at --jobs 1, 2 and 4.
    @Test func oneVideoIsByteIdenticalAtAnyJobs() throws {
        let (work, videos) = try videos(["pan.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        var prints: [[String: String]] = []
        for jobs in ["1", "2", "4"] {
            let out = work.appendingPathComponent("out" + jobs)
            let run = try runFaceCrop([videos.path, "-o", out.path, "-q", "-j", jobs, "--video-fps", "10", "--no-report", "--no-contact-sheet"])
            #expect(run.status == 0, "\(run.stderr)")
            prints.append(try fingerprint(out).filter { $0.key != "stats.json" })
        }
        #expect(prints[0].keys.filter { $0.hasSuffix(".jpg") }.count >= 20)
        #expect(prints[0] == prints[1])
        #expect(prints[0] == prints[2])
    }

    /// Only samples with a kept crop are read at full size: cut.mp4 has no
    /// face for 1.3 s, then one; with --per-track 1 one frame of each track.
    @Test func onlyFramesWithCropsAreReadAtFullSize() throws {
        let (work, videos) = try videos(["cut.mp4", "pan.mp4"])
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        #expect(try runFaceCrop([videos.path, "-o", out.path, "-q", "--video-fps", "10"]).status == 0)
        let cut = try #require(linesBySource(try readManifest(out))["cut.mp4"])
        let frames = Set(cut.compactMap { $0["frame"] as? Int })
        let samples = try #require(cut.first?["samples"] as? Int)
        #expect(cut.allSatisfy { $0["full_frames"] as? Int == frames.count })
        #expect(frames.count >= 5 && samples >= frames.count + 10, "\(frames.count) frames with faces of \(samples)")
        let best = work.appendingPathComponent("best")
        #expect(try runFaceCrop([videos.path, "-o", best.path, "-q", "--video-fps", "10", "--per-track", "1"]).status == 0)
        let pan = try #require(linesBySource(try readManifest(best))["pan.mp4"]?.filter { $0["status"] as? String == "ok" })
        #expect(pan.count >= 2)
        #expect(pan.allSatisfy { $0["full_frames"] as? Int == Set(pan.compactMap { $0["frame"] as? Int }).count })
        let kept = try FileManager.default.subpathsOfDirectory(atPath: best.path).filter { $0.hasSuffix(".jpg") && $0.contains("pan.mp4.t") }
        #expect(kept.count == pan.count)
    }

    /// Detection runs on frames scaled to --detect-size, crops come from the
    /// full-size frames: their detail (as JPEG bytes: the same quality keeps
    /// more bytes of more detail) is that of crops from a video detected at
    /// full size, and far above that of the same video made from a
    /// quarter-size copy (what a crop cut from the detection frame would be:
    /// 12.2 KB against 16.7 KB when this was written).
    @Test func cropsAreCutFromFullSizeFrames() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photo = fixtures.appendingPathComponent("faces/two-people.jpg").path
        let sharp = work.appendingPathComponent("sharp/v.mp4")
        let soft = work.appendingPathComponent("soft/v.mp4")
        for url in [sharp, soft] { try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true) }
        let x264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "12", "-pix_fmt", "yuv420p"]
        try ffmpeg(["-loop", "1", "-t", "0.4", "-i", photo, "-vf", "scale=1024:512,setsar=1,fps=5"] + x264 + [sharp.path])
        try ffmpeg(["-loop", "1", "-t", "0.4", "-i", photo, "-vf", "scale=256:128,scale=1024:512,setsar=1,fps=5"] + x264 + [soft.path])
        func crops(_ video: URL, _ side: String, _ name: String) throws -> (width: Int, bytes: Int) {
            let out = work.appendingPathComponent(name)
            #expect(try runFaceCrop([video.path, "-o", out.path, "-q", "--detect-size", side, "--size", "192", "--video-fps", "5", "--no-report", "--no-contact-sheet"]).status == 0)
            let line = try #require(try readManifest(out).first { $0["status"] as? String == "ok" })
            let box = try #require(line["bbox"] as? [Int])
            #expect(line["full_frames"] as? Int == 2)
            let crop = try #require(line["crop"] as? String)
            let size = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(crop).path)[.size] as? Int
            return (box[2], try #require(size))
        }
        let small = try crops(sharp, "256", "small")
        let full = try crops(sharp, "1024", "full")
        let blurred = try crops(soft, "256", "blurred")
        // The box is in full-frame pixels whatever the detection size.
        #expect(small.width > 100 && abs(small.width - full.width) < full.width / 5, "\(small.width) \(full.width)")
        #expect(Double(small.bytes) > 0.9 * Double(full.bytes), "\(small.bytes) \(full.bytes)")
        #expect(Double(blurred.bytes) < 0.85 * Double(small.bytes), "\(blurred.bytes) \(small.bytes)")
    }
}

/// The Live Photo rule and the crop-name times: pure.
struct VideoUnitTests {
    @Test(arguments: [
        ("IMG_0001.MOV", ["IMG_0001.HEIC", "IMG_0001.MOV"], true),
        ("img_0001.mov", ["IMG_0001.JPG"], true),
        ("IMG_0001.MOV", ["IMG_0001.jpeg"], true),
        ("IMG_0001.MOV", ["IMG_0002.HEIC"], false),
        ("IMG_0001.MP4", ["IMG_0001.HEIC"], false),
        ("IMG_0001.MOV", ["IMG_0001.PNG"], false),
        ("clip.mov", ["clip.mov"], false),
    ])
    func livePhotoRule(name: String, folder: [String], skipped: Bool) {
        #expect(LivePhoto.isMotion(name, stills: LivePhoto.stillStems(folder)) == skipped)
    }

    /// The video's detection size is the one libvips' thumbnail gives a photo.
    @Test(arguments: [(1920, 1080, 1024), (1366, 768, 1024), (1080, 1920, 1024), (1001, 777, 640), (1023, 1025, 1024),
                      (2000, 1125, 1024), (640, 360, 1024), (3840, 2160, 1280)])
    func detectionSizeIsThePhotosOne(width: Int, height: Int, side: Int) throws {
        let frame = [UInt8](repeating: 128, count: width * height * 3)
        let picture = try frame.withUnsafeBytes { try Picture.frame(rgb: $0, width: width, height: height, source: "t") }
        let gray = try picture.fitting(side, side, source: "t").grayPixels(source: "t")
        let size = VideoStage.detectionSize((width, height), side: side)
        #expect(size.width == gray.width && size.height == gray.height)
    }

    @Test func exactSelectFindsEveryWantedPTS() {
        #expect(FrameReader.exactSelect([]) == "0")
        #expect(FrameReader.exactSelect([7]) == "eq(pts\\,7)")
        #expect(FrameReader.exactSelect([1, 5, 9]) == "if(lt(pts\\,5)\\,eq(pts\\,1)\\,if(lt(pts\\,9)\\,eq(pts\\,5)\\,eq(pts\\,9)))")
    }

    @Test func timeTagsAreMillisecondsRoundedDown() {
        let probe = VideoProbe(
            stream: 0, storedWidth: 2, storedHeight: 2, rotation: 0, timeBase: (1, 90_000), duration: nil, transfer: "",
            pixelFormat: "")
        #expect(VideoStage.timeTag(1_111_111, probe: probe) == "t000012.345")
        #expect(VideoStage.timeTag(0, probe: probe) == "t000000.000")
        #expect(VideoStage.time(1_111_111, probe: probe) == 12.345678)
        #expect(VideoStage.frameNumber(30, packets: [0, 10, 20, 30, 40]) == 3)
    }

    @Test func containerTimes() {
        #expect(CaptureTime(iso8601: "2021-06-05T14:03:07+0200")?.description == "2021-06-05T14:03:07+02:00")
        #expect(CaptureTime(iso8601: "2020-01-02T03:04:05.000000Z")?.description == "2020-01-02T03:04:05Z")
        #expect(CaptureTime(iso8601: "2020-01-02T03:04:05-05:00")?.description == "2020-01-02T03:04:05-05:00")
        #expect(CaptureTime(iso8601: "2020-01-02T03:04:05")?.description == "2020-01-02T03:04:05")
        for bad in ["garbage", "", "2020-13-02T03:04:05Z", "2020-01-02T03:04:05+02", "2020-01-02T03:04:05Zjunk",
            "1970-01-01T00:00:00.000000Z", "1904-01-01T00:00:00Z"]
        {
            #expect(CaptureTime(iso8601: bad) == nil, "\(bad)")
        }
        let tags: [String: Any] = ["com.apple.quicktime.creationdate": "garbage", "creation_time": "2020-01-02T03:04:05Z"]
        #expect(VideoTaken.capture(format: tags, stream: nil)?.description == "2020-01-02T03:04:05Z")
        #expect(VideoTaken.capture(format: nil, stream: ["creation_time": "2019-01-01T00:00:01.5Z"])?.description == "2019-01-01T00:00:01Z")
        #expect(VideoTaken.capture(format: [:], stream: [:]) == nil)
    }

    /// A video entry's line: `t=` after the box; older lines without it still read.
    @Test func videoRejectionLines() throws {
        let hash = String(repeating: "ab", count: 32)
        let text = "\(hash) 10,20,30,40\n\(hash) 10,20,30,40 t=1.733333  # clip.mp4 1.733333 s track 2 face 0\n"
        let file = try RejectionsFile.parse(text, file: "r.txt")
        #expect(file.entries.map(\.time) == [nil, 1.733333])
        #expect(file.text == text)
        #expect(Rejection(sha256: hash, box: PixelRect(x: 1, y: 2, width: 3, height: 4), time: 0.25).description == "\(hash) 1,2,3,4 t=0.25")
        for bad in ["\(hash) 10,20,30,40 1.5", "\(hash) 10,20,30,40 t=-1", "\(hash) 10,20,30,40 t=x"] {
            #expect(throws: RejectionsError.self) { try RejectionsFile.parse(bad, file: "r.txt") }
        }
        // Faces of two tracks: the entry at 1.733333 names track 2 (at its sample) and all of it goes.
        func face(_ x: Int, _ time: Double, _ track: Int) -> FaceRecord {
            var face = FaceRecord(index: 0, box: PixelRect(x: x, y: 20, width: 30, height: 40), score: 1)
            face.video = VideoFace(time: time, frame: 0, track: track)
            return face
        }
        let timed = try RejectionsFile.parse("\(hash) 10,20,30,40 t=1.733333\n", file: "r.txt")
        let faces = [face(10, 1.5, 2), face(200, 1.5, 3), face(12, 1.733333, 2), face(10, 9, 4), face(300, 20, 2)]
        #expect(timed.rejectedTracks(faces, sha256: hash) == [true, false, true, false, true])
        // No sample at its time: the overlapping faces within 1 s.
        let other = [face(10, 1.0, 5), face(10, 3.0, 6), face(100, 1.6, 7)]
        #expect(timed.rejectedTracks(other, sha256: hash) == [true, false, false])
        // Without a time: every track whose face the box overlaps.
        let untimed = try RejectionsFile.parse("\(hash) 10,20,30,40\n", file: "r.txt")
        #expect(untimed.rejectedTracks(faces, sha256: hash) == [true, false, true, true, true])
    }

    @Test func sceneSelection() {
        var settings = VideoSettings.defaults
        #expect(VideoSampling.select(settings) == "select='if(gte(t\\,ld(0))\\,st(0\\,(floor(t*1.0+1e-6)+1)/1.0)\\,0)'")
        settings.sceneThreshold = 0.3
        #expect(VideoSampling.select(settings).contains("gt(scene\\,0.3)*gte(t\\,ld(1))\\,st(1\\,t+0.5)"))
        #expect(settings.description.hasSuffix(" scenes=0.3"))
        #expect(!VideoSettings.defaults.description.contains("scenes"))
    }
}

/// The tracker: pure, on boxes and gray frames made here.
struct TrackerTests {
    let plain = GrayImage(width: 8, height: 8, pixels: [UInt8](repeating: 100, count: 64))
    let other = GrayImage(width: 8, height: 8, pixels: [UInt8](repeating: 250, count: 64))
    func box(_ x: Int) -> PixelRect { PixelRect(x: x, y: 10, width: 100, height: 100) }

    @Test func movingFacesKeepTheirTracksAndNewOnesGetTheNextID() {
        var tracker = Tracker()
        #expect(tracker.assign([box(0), box(400)], gray: plain) == [0, 1])
        // Both moved 20 px; listed the other way round.
        #expect(tracker.assign([box(420), box(20)], gray: plain) == [1, 0])
        #expect(tracker.assign([box(40), box(800)], gray: plain) == [0, 2])
    }

    @Test func aShortMissIsAllowedALongOneIsNot() {
        var tracker = Tracker()
        #expect(tracker.assign([box(0)], gray: plain) == [0])
        #expect(tracker.assign([], gray: plain) == [])
        #expect(tracker.assign([], gray: plain) == [])
        #expect(tracker.assign([box(0)], gray: plain) == [0])
        for _ in 0..<3 { _ = tracker.assign([], gray: plain) }
        #expect(tracker.assign([box(0)], gray: plain) == [1])
    }

    @Test func aCutEndsEveryTrack() {
        var tracker = Tracker()
        #expect(tracker.assign([box(0)], gray: plain) == [0])
        #expect(tracker.assign([box(0)], gray: other) == [1])
        #expect(tracker.assign([box(0)], gray: other) == [1])
    }

    @Test func frontality() {
        let frontal = FaceLandmarks([Point2D(30, 40), Point2D(70, 40), Point2D(50, 60), Point2D(35, 80), Point2D(65, 80)])
        let turned = FaceLandmarks([Point2D(30, 40), Point2D(70, 40), Point2D(62, 60), Point2D(35, 80), Point2D(65, 80)])
        let past = FaceLandmarks([Point2D(30, 40), Point2D(70, 40), Point2D(75, 60), Point2D(35, 80), Point2D(65, 80)])
        #expect(TrackQuality.frontality(frontal) == 1)
        #expect(TrackQuality.frontality(turned) == 0.181)  // (8/32 + 3/27) / 2
        #expect(TrackQuality.frontality(past) == 0)
    }
}
