import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropVideo

/// Tracks end at a cut: a frame between two samples whose change stands
/// out against its neighbours' (scripts/make-test-videos' slideshow.mp4:
/// one person, three pictures, her face in the same place in each; and
/// scripts/make-cut-videos' letterboxed and pillarboxed slideshows, a
/// flash and a cross-fade, made at test time).
@Suite(.serialized)
struct SceneCutTests {
    /// The clips of scripts/make-cut-videos, made once for the suite.
    static let made: URL = {
        let folder = try! makeTemporaryFolder()
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("scripts/make-cut-videos")
        process.arguments = [folder.path]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "scripts/make-cut-videos failed")
        return folder
    }()

    /// Each of `names` (from `made`) its tracks and its `cuts`, from one run over them.
    func tracks(_ names: [String]) throws -> [String: (tracks: [Set<Int>], cuts: Set<Int>)] {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let videos = work.appendingPathComponent("videos")
        try FileManager.default.createDirectory(at: videos, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(at: Self.made.appendingPathComponent(name), to: videos.appendingPathComponent(name))
        }
        let out = work.appendingPathComponent("out")
        let run = try runFaceCrop([videos.path, "-o", out.path, "-q", "--no-report", "--no-contact-sheet"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try readManifest(out)
        return Dictionary(grouping: lines) { $0["source"] as? String ?? "" }.mapValues { lines in
            // Each picture's (1.2 s) tracks, in order.
            let faces = lines.filter { $0["track"] is Int }
            let pictures = Dictionary(grouping: faces) { Int(($0["time"] as? Double ?? 0) / 1.2) }
            let tracks = pictures.keys.sorted().map { Set(pictures[$0]!.map { $0["track"] as! Int }) }
            return (tracks, Set(lines.compactMap { $0["cuts"] as? Int }))
        }
    }

    /// Three similar pictures of one person between black bars (the cuts
    /// change the frame little: bars and framing stay): three tracks, one
    /// a picture, letterboxed and pillarboxed.
    @Test func similarPicturesBetweenBarsAreThreeTracks() throws {
        let found = try tracks(["letterbox.mp4", "pillarbox.mp4"])
        for name in ["letterbox.mp4", "pillarbox.mp4"] {
            let video = try #require(found[name])
            #expect(video.tracks.count == 3, "\(name): \(video.tracks)")
            #expect(video.tracks.allSatisfy { $0.count == 1 }, "\(name): \(video.tracks)")
            #expect(Set(video.tracks.flatMap { $0 }).count == 3, "\(name): \(video.tracks)")
            #expect(video.cuts == [2], "\(name)")
        }
    }

    /// A camera flash (two white frames) is no cut: the shot's face is one
    /// track; a cross-fade between two pictures is at most one cut.
    @Test func aFlashIsNoCutAndACrossFadeAtMostOne() throws {
        let found = try tracks(["flash.mp4", "fade.mp4"])
        let flash = try #require(found["flash.mp4"])
        #expect(Set(flash.tracks.flatMap { $0 }) == [0], "\(flash.tracks)")
        #expect(flash.cuts == [0])
        let fade = try #require(found["fade.mp4"])
        #expect(Set(fade.tracks.flatMap { $0 }).count <= 2, "\(fade.tracks)")
        #expect((fade.cuts.first ?? 9) <= 1)
    }

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
        #expect(try readManifest(out).allSatisfy { $0["cuts"] as? Int == 2 && $0["cuts_by"] as? String == "contrast" })
        #expect(try runFaceCrop([videos.path, "-o", out.path, "--check"] + quiet).status == 0)

        // As a dataset whose cuts were found by a level (no `cuts_by`).
        let found = try String(contentsOf: state, encoding: .utf8)
        #expect(found.contains(", \\\"cuts_by\\\": \\\"contrast\\\""))
        try found.replacingOccurrences(of: ", \\\"cuts_by\\\": \\\"contrast\\\"", with: "").write(
            to: state, atomically: true, encoding: .utf8)
        let again = try runFaceCrop([videos.path, "-o", out.path, "--check"] + quiet)
        #expect(again.status == 1)
        #expect(again.stdout.contains("cuts not found by contrast: slideshow.mp4"), "\(again.stdout)")
    }

    /// A cut between two samples ends every track, however the boxes overlap.
    @Test func aCutEndsEveryTrack() {
        let plain = GrayImage(width: 4, height: 4, pixels: [UInt8](repeating: 128, count: 16))
        let box = PixelRect(x: 10, y: 10, width: 50, height: 50)
        var tracker = Tracker()
        #expect(tracker.assign([box], gray: plain, cut: false) == [0])
        #expect(tracker.assign([box], gray: plain, cut: false) == [0])
        #expect(tracker.assign([box], gray: plain, cut: true) == [1])
        #expect(tracker.cuts == 1)
    }

    /// Which frames are cuts, by their changes from the frame before: a
    /// change at least 2, 3 times the mean of 4 frames each side and 1.5
    /// times the largest of them.
    @Test(arguments: [
        ([0, 0.01, 0.02, 0.01, 4.2, 0.01, 0.02, 0.01, 0.01], [4]),  // a cut between similar pictures
        ([0, 0.01, 0.02, 0.01, 0.6, 0.01, 0.02, 0.01, 0.01], []),  // under the least change
        ([0, 2, 2.5, 2, 2.4, 20, 2.2, 2.6, 2, 2.3], [5]),  // a cut in a pan
        ([0, 2, 2.5, 2, 2.4, 5, 2.2, 2.6, 2, 2.3], []),  // a jolt in a pan
        ([0, 0, 0, 0, 81, 81, 0, 0, 0, 0], []),  // one white frame and back
        ([0, 0, 0, 0, 81, 0, 81, 0, 0, 0], []),  // two white frames
        ([0, 0.3, 3.2, 0.3, 0.2, 3.1, 0.3, 0.3, 0.2, 3.0, 0.3], []),  // encoded noise in bursts
        ([0, 0.3, 3.2, 0.3, 0.2, 17.5, 0.3, 0.3, 0.2, 3.0, 0.3], [5]),  // a cut in that noise
        ([0, 0.3, 0.2, 0.3, 0.3, 1.2, 0.3, 0.2, 0.3, 0.3], []),  // a slow zoom's pixel step
        ([0, 0, 0, 2, 2, 2, 2, 2, 0, 0], []),  // a cross-fade
        ([0, 30, 0, 0, 0, 0], [1]),  // a cut at the second frame
        ([9, 0, 0, 0], []),  // the first frame is never a cut
    ] as [([Double], [Int])])
    func cutsStandOutAgainstTheirNeighbours(changes: [Double], expected: [Int]) {
        #expect(CutFinder.cuts(changes).indices.filter { CutFinder.cuts(changes)[$0] } == expected)
    }

    /// ffmpeg's `metadata=print` line, as `ShowInfoLog` reads it.
    @Test func frameChangeLinesAreRead() {
        #expect(ShowInfoLog.frameChange(in: "[Parsed_metadata_1 @ 0x5642] [info] lavfi.scd.mafd=4.156") == 4.156)
        #expect(ShowInfoLog.frameChange(in: "[Parsed_metadata_1 @ 0x5642] [info] frame:12   pts:12800   pts_time:1") == nil)
        #expect(ShowInfoLog.frameChange(in: "[Parsed_showinfo_3 @ 0x5642] [info] n:   0 pts:      0 pts_time:0") == nil)
    }
}
