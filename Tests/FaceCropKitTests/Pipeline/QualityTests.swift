import Foundation
import Testing
import FaceCropCore
import FaceCropDetect


/// The quality record (docs/quality.md) on real photos and copies of them
/// made with vips at test time (mirrored, turned, blurred, darkened, ...),
/// through the built binary with the default detector.
@Suite(.serialized)
struct QualityTests {
    /// Copies `photo` (a Fixtures path) into a new folder as `name`, through
    /// `vips` arguments with IN and OUT standing for the files (none: as it is).
    private func copy(_ photo: String, to folder: URL, as name: String, _ vips: [String] = []) throws {
        let out = folder.appendingPathComponent(name).path
        if vips.isEmpty {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(photo).path, toPath: out)
        } else {
            _ = try runTool(
                "/usr/bin/vips",
                vips.map {
                    $0 == "IN" ? fixtures.appendingPathComponent(photo).path : $0.hasPrefix("OUT") ? out + $0.dropFirst(3) : $0
                })
        }
    }

    /// Runs facecrop on `photos` and returns its face lines by source.
    private func faces(_ photos: URL, _ output: URL, _ extra: [String] = []) throws -> [String: [[String: Any]]] {
        try #require(PeopleModels.resolveLandmarks() != nil, "run scripts/fetch-dlib-models (scripts/test does)")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet"] + extra)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return linesBySource(try readManifest(output).filter { $0["face"] != nil })
    }

    private func pose(_ line: [String: Any]?) -> (yaw: Double, pitch: Double, roll: Double)? {
        guard let pose = line?["pose"] as? [String: Double], let yaw = pose["yaw"], let pitch = pose["pitch"],
            let roll = pose["roll"]
        else { return nil }
        return (yaw, pitch, roll)
    }

    @Test func aMirroredPhotoGivesTheOppositeYawAndRollAndATurnedOneItsRoll() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try copy("faces/two-people.jpg", to: photos, as: "two.jpg")
        try copy("faces/two-people.jpg", to: photos, as: "two-mirrored.jpg", ["flip", "IN", "OUT", "horizontal"])
        try copy("faces/grace_hopper.jpg", to: photos, as: "grace.jpg")
        // vips turns clockwise: the eye line too, by 15 degrees.
        try copy("faces/grace_hopper.jpg", to: photos, as: "grace-turned.jpg", ["rotate", "IN", "OUT", "15"])
        let lines = try faces(photos, work.appendingPathComponent("out"))
        let two = try #require(lines["two.jpg"]), mirrored = try #require(lines["two-mirrored.jpg"])
        #expect(two.count == 2 && mirrored.count == 2)
        for face in two {
            // The same face in the mirror: its box mirrored.
            let box = face["bbox"] as! [Int]
            let other = try #require(mirrored.first { line in
                let b = line["bbox"] as! [Int]
                return abs((1024 - b[0] - b[2]) - box[0]) < box[2] / 4
            })
            let a = try #require(pose(face)), b = try #require(pose(other))
            #expect(abs(a.yaw + b.yaw) <= 5, "\(a) \(b)")
            #expect(abs(a.roll + b.roll) <= 5, "\(a) \(b)")
            #expect(abs(a.pitch - b.pitch) <= 5, "\(a) \(b)")
            // Portraits facing the camera.
            #expect(abs(a.yaw) < 20 && abs(a.roll) < 10, "\(a)")
        }
        let upright = try #require(pose(lines["grace.jpg"]?.first)), turned = try #require(pose(lines["grace-turned.jpg"]?.first))
        #expect(abs(turned.roll - upright.roll - 15) <= 5, "\(upright) \(turned)")
    }

    @Test func eachMeasureFallsOnADegradedCopy() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let grace = "faces/grace_hopper.jpg"
        try copy(grace, to: photos, as: "grace.jpg")
        try copy(grace, to: photos, as: "blur.jpg", ["gaussblur", "IN", "OUT", "3"])
        try copy(grace, to: photos, as: "dark.jpg", ["linear", "IN", "OUT", "0.25", "0", "--uchar"])
        try copy(grace, to: photos, as: "bright.jpg", ["linear", "IN", "OUT", "2.2", "30", "--uchar"])
        // A face box of 32 px (the cascade finds it at --min-face 20).
        try copy(grace, to: photos, as: "small.jpg", ["resize", "IN", "OUT", "0.14"])
        try copy(grace, to: photos, as: "jpeg.jpg", ["copy", "IN", "OUT[Q=5]"])
        // The face near the photo's left edge: its crop reaches past it
        // under --pad edge (the default, inside, keeps it in the photo).
        try copy(grace, to: photos, as: "edge.jpg", ["crop", "IN", "OUT", "140", "0", "372", "600"])
        let lines = try faces(photos, work.appendingPathComponent("out"), ["--min-face", "20", "--pad", "edge"])
        func face(_ name: String) throws -> [String: Any] { try #require(lines[name]?.first, "\(name): no face") }
        let original = try face("grace.jpg")
        func number(_ line: [String: Any], _ key: String) -> Double { line[key] as? Double ?? .nan }
        func exposure(_ line: [String: Any], _ key: String) -> Double { (line["exposure"] as? [String: Double])?[key] ?? .nan }
        let q = number(original, "face_quality")
        // A sharp, large, frontal, well-lit portrait: nothing is wrong with it.
        #expect(q >= 0.9 && q <= 1)
        #expect(original["quality_reason"] as? String == "" && (original["quality_reasons"] as? [String])?.isEmpty == true, "\(original)")
        #expect(original["upscaled"] as? Bool == false)
        #expect(number(original, "outside") == 0)
        // Each copy scores lower, and the measure that tells it falls (or rises).
        let blur = try face("blur.jpg")
        #expect(number(blur, "sharpness") < number(original, "sharpness") / 2)
        let dark = try face("dark.jpg")
        #expect(exposure(dark, "mean") < exposure(original, "mean") / 2)
        // Softness is a ratio of the face's own steps: darkening leaves it, so the copy is dark, not blurred.
        #expect(dark["quality_reason"] as? String == "dark", "\(dark)")
        #expect(blur["quality_reason"] as? String == "blur", "\(blur)")
        let bright = try face("bright.jpg")
        #expect(exposure(bright, "bright") > exposure(original, "bright") + 0.2)
        #expect(bright["quality_reason"] as? String == "bright")
        let small = try face("small.jpg")
        #expect(number(small, "face_px") < number(original, "face_px") * 0.5)
        #expect(small["upscaled"] as? Bool == true)
        #expect(small["quality_reason"] as? String == "small", "\(small)")
        let jpeg = try face("jpeg.jpg")
        #expect(number(jpeg, "blocking") > number(original, "blocking") + 0.2)
        #expect(jpeg["quality_reason"] as? String == "jpeg", "\(jpeg)")
        let edge = try face("edge.jpg")
        #expect(number(edge, "outside") > 0.05)
        for (name, line) in [("blur", blur), ("dark", dark), ("bright", bright), ("small", small), ("jpeg", jpeg), ("edge", edge)] {
            #expect(number(line, "face_quality") < q, "\(name): \(line)")
        }
    }

    /// A face enlarged 2x and 3x by libvips (as a slideshow frame made from a
    /// small photo is): the same detail on more pixels. Its detail count
    /// does not grow, its softness does, and it never scores above its source.
    @Test func anEnlargedFaceScoresNoHigherThanItsSource() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for (photo, name) in [("faces/grace_hopper.jpg", "grace"), ("faces/astronaut.jpg", "astronaut")] {
            try copy(photo, to: photos, as: name + ".jpg")
            try copy(photo, to: photos, as: name + "-x2.jpg", ["resize", "IN", "OUT[Q=95]", "2"])
            try copy(photo, to: photos, as: name + "-x3.jpg", ["resize", "IN", "OUT[Q=95]", "3"])
        }
        let lines = try faces(photos, work.appendingPathComponent("out"))
        func number(_ line: [String: Any], _ key: String) -> Double { line[key] as? Double ?? .nan }
        for name in ["grace", "astronaut"] {
            let source = try #require(lines[name + ".jpg"]?.first)
            for copy in [name + "-x2.jpg", name + "-x3.jpg"] {
                let enlarged = try #require(lines[copy]?.first)
                #expect(number(enlarged, "face_px") > number(source, "face_px") * 1.5, "\(copy)")
                #expect(number(enlarged, "face_quality") <= number(source, "face_quality"), "\(copy): \(enlarged) against \(source)")
                #expect(number(enlarged, "detail_px") <= number(source, "detail_px") * 1.05, "\(copy): \(enlarged)")
                #expect(number(enlarged, "softness") > number(source, "softness"), "\(copy)")
            }
        }
    }

    @Test func theFiltersLeaveFacesOutWithTheirReasonAndRerunsKeepThem() throws {
        let (work, photos) = try fixturePhotos(["faces/two-people.jpg", "faces/grace_hopper.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        // The three portraits have nothing wrong (score 1): a darkened copy is the one below.
        try copy("faces/grace_hopper.jpg", to: photos, as: "grace-dark.jpg", ["linear", "IN", "OUT", "0.25", "0", "--uchar"])
        let all = try faces(photos, work.appendingPathComponent("all")).values.flatMap { $0 }
        let scores = all.map { $0["face_quality"] as! Double }.sorted()
        // stats.json's quartiles: the scores at ranks round((n - 1) p), from the counts it keeps.
        let allStats = try JSONSerialization.jsonObject(with: Data(contentsOf: work.appendingPathComponent("all/stats.json")))
        let quartiles = try #require((allStats as? [String: Any])?["face_quality"] as? [String: Double])
        for (name, p) in [("q1", 0.25), ("median", 0.5), ("q3", 0.75)] {
            #expect(quartiles[name] == scores[Int((Double(scores.count - 1) * p).rounded())], "\(name): \(quartiles)")
        }
        // A floor between the lowest and the rest: the lowest face alone is left out.
        let floor = (scores[0] + scores[1]) / 2
        let output = work.appendingPathComponent("floor")
        let arguments = ["--min-face-quality", String(floor), "--jobs", "2"]
        let lines = try faces(photos, output, arguments).values.flatMap { $0 }
        let low = lines.filter { $0["status"] as? String == "low_quality" }
        #expect(low.count == 1)
        #expect(low.first?["crop"] == nil)
        #expect((low.first?["quality_reason"] as? String).map { !$0.isEmpty } == true)
        #expect(lines.filter { $0["status"] as? String == "ok" }.count == all.count - 1)
        let crops = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".jpg") }
        #expect(crops.count == all.count - 1)
        // The same run again reuses every photo and writes the same bytes.
        let before = try Data(contentsOf: output.appendingPathComponent("manifest.jsonl"))
        let again = try runFaceCrop([photos.path, "-o", output.path] + arguments)
        #expect(again.status == 0)
        #expect(again.stderr.contains("0 processed") || again.stdout.contains("0 processed"), "\(again.stdout)\(again.stderr)")
        #expect(try Data(contentsOf: output.appendingPathComponent("manifest.jsonl")) == before)
        // At one job the bytes are the same.
        let one = work.appendingPathComponent("one")
        _ = try faces(photos, one, ["--min-face-quality", String(floor), "--jobs", "1"])
        #expect(try Data(contentsOf: one.appendingPathComponent("manifest.jsonl")) == before)
        // A changed floor is a changed setting: every photo is processed again.
        let check = try runFaceCrop([photos.path, "-o", output.path, "--check", "--max-yaw", "1"])
        #expect(check.status == 1)
        #expect((check.stdout + check.stderr).contains("settings changed: every photo would be processed again ("))
        #expect((check.stdout + check.stderr).contains("max_yaw: 180 -> 1"))
        // A dataset scored before the score had a version (its settings lack
        // quality_score): --check says that is what changed.
        try makeUnversioned(output.appendingPathComponent(".facecrop/state.jsonl"))
        let old = try runFaceCrop([photos.path, "-o", output.path, "--check"] + arguments)
        #expect(old.status == 1)
        #expect((old.stdout + old.stderr).contains("settings changed: every photo would be processed again (quality_score: none -> \(QualityScore.version))"), "\(old.stdout)")
        // --max-yaw 0 leaves out every face turned at all, as `profile`.
        let straight = try faces(photos, work.appendingPathComponent("yaw"), ["--max-yaw", "0"]).values.flatMap { $0 }
        for line in straight where line["status"] as? String == "low_quality" {
            #expect(line["quality_reason"] as? String == "profile")
        }
        #expect(straight.contains { $0["status"] as? String == "low_quality" })
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["low_quality"] as? Int == 1)
        #expect((stats["settings"] as? [String: Any])?["min_face_quality"] as? Double == floor)
    }

    /// The state file as a version without `quality_score` wrote it: the
    /// member gone from its header's settings, and another settings hash.
    private func makeUnversioned(_ state: URL) throws {
        var lines = try String(contentsOf: state, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.firstIndex { $0.contains("\"settings_hash\"") })
        var header = try #require(try JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any])
        var settings = try #require(header["settings"] as? [String: Any])
        settings["quality_score"] = nil
        header["settings"] = settings
        header["settings_hash"] = String(repeating: "0", count: 64)
        lines[index] = String(decoding: try JSONSerialization.data(withJSONObject: header), as: UTF8.self)
        try lines.joined(separator: "\n").write(to: state, atomically: true, encoding: .utf8)
    }
}
