import Foundation
import Testing

/// A copy saved at JPEG quality 5 never outranks its original, even a soft
/// original in a photo so large that the detector's decode shows the copy's
/// blocks as 2-pixel steps (read as detail before; docs/quality.md, "JPEG
/// blocks are not detail").
@Suite struct JPEGWreckTests {
    @Test func aCopyAtQuality5ScoresBelowItsSoftOriginalAndPickTakesTheOriginal() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        func photo(_ name: String) -> String { photos.appendingPathComponent(name).path }
        // Grace Hopper at 3440 x 4032, a phone photo's size, soft (blurred
        // by 16 px), and saved again at quality 5. The wreck comes first by
        // name, so a tie would pick it.
        let big = work.appendingPathComponent("big.v").path
        try vips(["resize", fixtures.appendingPathComponent("faces/grace_hopper.jpg").path, big, "6.72"])
        let soft = work.appendingPathComponent("soft.v").path
        try vips(["gaussblur", big, soft, "16"])
        try vips(["copy", soft, photo("b-soft.jpg") + "[Q=95]"])
        try vips(["copy", photo("b-soft.jpg"), photo("a-wreck.jpg") + "[Q=5]"])
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = packageRoot.appendingPathComponent("models").path
        let dataset = work.appendingPathComponent("dataset")
        let made = try runFaceCrop([photos.path, "-o", dataset.path, "-q"], environment: environment)
        #expect(made.status == 0, "\(made.stderr)")
        let lines = try readManifest(dataset).filter { $0["face"] != nil }
        func line(_ source: String) throws -> [String: Any] { try #require(lines.first { $0["source"] as? String == source }) }
        let (wreck, original) = (try line("a-wreck.jpg"), try line("b-soft.jpg"))
        #expect(wreck["jpeg_quality"] as? Int == 5)
        #expect((wreck["face_quality"] as? Double ?? 1) < (original["face_quality"] as? Double ?? 0), "\(wreck) \(original)")
        #expect((wreck["quality_reasons"] as? [String])?.first == "jpeg", "\(wreck)")
        // Its blocks are not detail: it is at least as soft as its original.
        #expect((wreck["softness"] as? Double ?? 0) >= 0.8 * (original["softness"] as? Double ?? 1), "\(wreck)")
        let out = work.appendingPathComponent("pick")
        // The two are one photo's near-duplicates: pick takes the better one.
        let run = try runFaceCrop(["pick", dataset.path, out.path, "--count", "1"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let pick = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("pick.json"))) as? [String: Any]
        let picked = try #require(pick?["picked"] as? [[String: Any]]).compactMap { $0["source"] as? String }
        #expect(picked == ["b-soft.jpg"], "\(picked)")
    }
}
