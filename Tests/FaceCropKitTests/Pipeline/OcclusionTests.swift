import Foundation
import Testing
import FaceCropDetect

/// Covered faces (docs/quality.md, "Covered faces"): the face mesh's chip
/// read for dark glasses and masks, run by the built binary on Fixtures'
/// portrait and its copy with dark lenses drawn over the eyes
/// (Fixtures/eyes/astronaut-sunglasses.jpg), and its copy in a light
/// surgical mask (Fixtures/eyes/astronaut-mask.jpg).
@Suite(.serialized)
struct OcclusionTests {
    /// The portrait and its covered copy in a folder of their own.
    private func photos(in work: URL) throws -> URL {
        _ = try #require(FaceMesh.resolve(), "run scripts/fetch-face-mesh-model (scripts/test does)")
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let files = [
            ("eyes/astronaut-sunglasses.jpg", "a-sunglasses.jpg"), ("faces/astronaut.jpg", "b-open.jpg"),
            ("eyes/astronaut-mask.jpg", "c-mask.jpg"),
        ]
        for (from, to) in files {
            try FileManager.default.copyItem(
                atPath: fixtures.appendingPathComponent(from).path, toPath: photos.appendingPathComponent(to).path)
        }
        return photos
    }

    /// The manifest's face lines, by photo, of a run over `photos` with
    /// `detector`.
    private func facesBySource(detector: String) throws -> [String: [[String: Any]]] {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let result = try runFaceCrop([try photos(in: work).path, "-o", out.path, "-q", "--detector", detector])
        #expect(result.status == 0, "\(result.stderr)")
        return linesBySource(try readManifest(out).filter { $0["face"] != nil })
    }

    /// The networks find the covered copy; the default cascades do not (as
    /// on most real photos of dark glasses: 27 faces of 300).
    @Test(arguments: ["centerface", "yunet"])
    func darkGlassesAreOccludedAndTheOpenFaceIsNot(detector: String) throws {
        let lines = try facesBySource(detector: detector)
        let covered = try #require(lines["a-sunglasses.jpg"]?.first), open = try #require(lines["b-open.jpg"]?.first)
        let eyes = try #require((covered["occlusion"] as? [String: Double])?["eyes"])
        let openEyes = try #require((open["occlusion"] as? [String: Double])?["eyes"])
        #expect(eyes > 0.5 && openEyes < 0.35, "\(eyes) \(openEyes)")
        #expect((covered["quality_reasons"] as? [String])?.contains("occluded") == true, "\(covered)")
        #expect((open["quality_reasons"] as? [String])?.isEmpty == true, "\(open)")
        #expect((covered["face_quality"] as? Double ?? 1) < 0.75 * (open["face_quality"] as? Double ?? 0))
    }

    /// A light-blue mask about the grey of the skin beside it: the chip's
    /// colour tells it from skin (on the grey chip alone its mouth read
    /// 0.37 with CenterFace and 0.32 with YuNet, and it was not marked).
    @Test(arguments: ["centerface", "yunet"])
    func aLightMaskIsOccluded(detector: String) throws {
        let lines = try facesBySource(detector: detector)
        let masked = try #require(lines["c-mask.jpg"]?.first), open = try #require(lines["b-open.jpg"]?.first)
        let mouth = try #require((masked["occlusion"] as? [String: Double])?["mouth"])
        let openMouth = try #require((open["occlusion"] as? [String: Double])?["mouth"])
        #expect(mouth > 0.5 && openMouth < 0.35, "\(mouth) \(openMouth)")
        #expect(masked["quality_reasons"] as? [String] == ["occluded"], "\(masked)")
    }

    /// `pick` by photo, one crop, over the portrait in dark glasses, in a
    /// mask and uncovered, with CenterFace (the cascades do not find the covered
    /// face; `--people` does not group the covered face with its person, so
    /// `pick` is asked by photo): the uncovered crop is the one chosen. The
    /// covered one comes first by name, so a tie would choose it.
    @Test func pickChoosesTheUncoveredFace() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let dataset = work.appendingPathComponent("dataset")
        let made = try runFaceCrop([try photos(in: work).path, "-o", dataset.path, "-q", "--detector", "centerface"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try readManifest(dataset).filter { $0["crop"] != nil }.count == 3)
        let out = work.appendingPathComponent("pick")
        let run = try runFaceCrop(["pick", dataset.path, out.path, "--count", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let pick = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("pick.json"))) as? [String: Any]
        let picked = try #require(pick?["picked"] as? [[String: Any]])
        #expect(picked.count == 1 && picked.first?["source"] as? String == "b-open.jpg", "\(picked)")
    }
}
