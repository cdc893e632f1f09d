import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropVideo

/// Tracks end at a cut: ffmpeg's scene score of every frame between two
/// samples (scripts/make-test-videos' slideshow.mp4: one person, three
/// pictures, her face in the same place in each).
@Suite(.serialized)
struct SceneCutTests {
    /// Three pictures, three tracks; each picture's samples one track. A
    /// dataset whose video was tracked before cuts ended tracks is read
    /// again, and `--check` says why.
    @Test func aSlideshowOfThreePicturesIsThreeTracks() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let videos = work.appendingPathComponent("videos")
        try FileManager.default.createDirectory(at: videos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: VideoTests.made.appendingPathComponent("slideshow.mp4"), to: videos.appendingPathComponent("slideshow.mp4"))
        let out = work.appendingPathComponent("out")
        let quiet = ["-q", "--no-report", "--no-contact-sheet"]
        let run = try runFaceCrop([videos.path, "-o", out.path, "-q", "--no-contact-sheet"])
        #expect(run.status == 0, "\(run.stderr)")
        // The report's cards say each frame's time and track.
        let report = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(report.contains("<span class=\"time\">▶ 2.000 s, track 1</span>"))
        let lines = try readManifest(out)
        // The pictures are 0-1.7, 1.7-3.4 and 3.4-5 s; samples at 0...5 s.
        func shot(_ line: [String: Any]) -> Int { ((line["time"] as? Double ?? -1) < 1.7) ? 0 : (line["time"] as? Double ?? 0) < 3.4 ? 1 : 2 }
        let tracks = Dictionary(grouping: lines, by: shot).mapValues { Set($0.compactMap { $0["track"] as? Int }) }
        #expect(lines.count == 6)
        #expect(tracks.keys.sorted() == [0, 1, 2])
        #expect(tracks.values.allSatisfy { $0.count == 1 }, "\(tracks)")
        #expect(Set(tracks.values.flatMap { $0 }).count == 3, "\(tracks)")
        #expect(lines.allSatisfy { $0["cuts"] as? Int == 2 })

        // As a dataset made before (no `cuts`): --check names the video and why.
        let state = out.appendingPathComponent(".facecrop/state.jsonl")
        let text = try String(contentsOf: state, encoding: .utf8)
        #expect(text.contains(", \\\"cuts\\\": 2"))
        try text.replacingOccurrences(of: ", \\\"cuts\\\": 2", with: "").write(to: state, atomically: true, encoding: .utf8)
        let check = try runFaceCrop([videos.path, "-o", out.path, "--check"] + quiet)
        #expect(check.status == 1)
        #expect(check.stdout.contains("tracks not ended at cuts: slideshow.mp4"), "\(check.stdout)")
        #expect(try runFaceCrop([videos.path, "-o", out.path] + quiet).status == 0)
        #expect(try readManifest(out).allSatisfy { $0["cuts"] as? Int == 2 })
        #expect(try runFaceCrop([videos.path, "-o", out.path, "--check"] + quiet).status == 0)
    }

    /// A scene score above the threshold between two samples ends every
    /// track, however the boxes overlap; `--video-scenes=T` moves the threshold.
    @Test func aSceneScoreAboveTheThresholdEndsEveryTrack() {
        let plain = GrayImage(width: 4, height: 4, pixels: [UInt8](repeating: 128, count: 16))
        let box = PixelRect(x: 10, y: 10, width: 50, height: 50)
        var tracker = Tracker()
        #expect(tracker.assign([box], gray: plain, scene: 0) == [0])
        #expect(tracker.assign([box], gray: plain, scene: 0.29) == [0])
        #expect(tracker.assign([box], gray: plain, scene: 0.45) == [1])
        #expect(tracker.cuts == 1)
        var strict = Tracker(cutScene: 0.5)
        #expect(strict.assign([box], gray: plain, scene: 0) == [0])
        #expect(strict.assign([box], gray: plain, scene: 0.45) == [0])
        #expect(strict.cuts == 0)
    }

    /// ffmpeg's `metadata=print` line, as `ShowInfoLog` reads it.
    @Test func sceneScoreLinesAreRead() {
        #expect(ShowInfoLog.sceneScore(in: "[Parsed_metadata_1 @ 0x5642] [info] lavfi.scene_score=0.446465") == 0.446465)
        #expect(ShowInfoLog.sceneScore(in: "[Parsed_metadata_1 @ 0x5642] [info] frame:12   pts:12800   pts_time:1") == nil)
        #expect(ShowInfoLog.sceneScore(in: "[Parsed_showinfo_3 @ 0x5642] [info] n:   0 pts:      0 pts_time:0") == nil)
    }
}
