import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropCurate
import FaceCropVideo


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
