import Foundation
import Testing
import FaceCropCore
import FaceCropDetect
import FaceCropImaging

/// `--detector yunet` on ONNX Runtime: the size-free model scripts/fetch-yunet
/// makes, found without --model (the shipped model, input fixed at 640 x 640,
/// runs when given: GivenModelTests); exit 69 without the library; one
/// session for every size, worker and remeasure.
@Suite(.serialized)
struct YuNetRuntimeTests {
    static let model = packageRoot.appendingPathComponent("models/yunet-any.onnx").path
    static let shippedModel = packageRoot.appendingPathComponent("models/face_detection_yunet_2023mar.onnx").path
    /// scripts/fetch-yunet's pin: the size-free model is the same bytes on every machine.
    static let modelSHA256 = "abcd23ed154407ef6d2aa3c791210365ce0ead873d11bc413703ba248443eda2"

    @Test func theSizeFreeModelIsFoundWithoutModel() throws {
        try #require(FileManager.default.fileExists(atPath: Self.model), "run scripts/fetch-yunet (scripts/test does)")
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.model))
        #expect(data.withUnsafeBytes { Vips.sha256($0) } == Self.modelSHA256)
        let (work, photos) = try fixturePhotos(["faces/two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        // No --model: models/yunet-any.onnx of the checkout, on ONNX Runtime from its lib/.
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_MODEL"] = nil
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", "yunet"],
                                     environment: environment, directory: packageRoot)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try readManifest(output).filter { $0["status"] as? String == "ok" }.count == 2)
        let stats = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        let settings = stats["settings"] as! [String: Any]
        #expect(settings["model_sha256"] as? String == Self.modelSHA256)
        // The runtime is part of the settings: a dataset made on cv::dnn (no such entry) is processed again.
        #expect(settings["runtime"] as? String == "onnxruntime 1.32.0")
    }

    @Test func withoutOnnxRuntimeYuNetIsExit69() throws {
        try #require(FileManager.default.fileExists(atPath: Self.model), "run scripts/fetch-yunet (scripts/test does)")
        let (work, photos) = try fixturePhotos(["faces/two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        var environment = ProcessInfo.processInfo.environment
        let absent = work.appendingPathComponent("nowhere/libonnxruntime.so.1.32.0").path
        environment["FACECROP_ONNXRUNTIME"] = absent
        let missing = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("x").path, "--detector", "yunet",
                                       "--model", Self.model], environment: environment)
        #expect(missing.status == 69)
        #expect(missing.stderr.hasPrefix("facecrop: error: cannot load ONNX Runtime, which --detector yunet, --detector centerface and --people run on: "
            + "ONNX Runtime library not found: \(absent) (looked in '\(absent)'); run scripts/fetch-onnxruntime"), "\(missing.stderr)")
    }

    /// One worker takes photos of alternating sizes (and runs the remeasure
    /// of --align arcface on each face's upright cut, another size again,
    /// on the same session): every photo's faces and landmarks are those of
    /// a fresh run on it alone. At --jobs 2 and 4 the workers share the
    /// session: the same manifest lines.
    @Test func alternatingSizesGiveAFreshRunsFaces() throws {
        try #require(FileManager.default.fileExists(atPath: Self.model), "run scripts/fetch-yunet (scripts/test does)")
        let order = ["faces/astronaut-large.jpg", "noface/coffee.jpg", "faces/two-people.jpg", "faces/grace_hopper.jpg",
                     "noface/chelsea.jpg", "faces/astronaut.jpg"]
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let together = work.appendingPathComponent("together")
        try FileManager.default.createDirectory(at: together, withIntermediateDirectories: true)
        var names: [String] = []
        for (index, name) in order.enumerated() {
            names.append("\(index)-" + (name as NSString).lastPathComponent)
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: together.appendingPathComponent(names[index]))
        }
        func faces(_ folder: URL, _ output: URL, jobs: String = "1") throws -> [String: [String]] {
            let result = try runFaceCrop([folder.path, "-o", output.path, "--quiet", "--jobs", jobs, "--detector", "yunet",
                                          "--model", Self.model, "--align", "arcface"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return linesBySource(try readManifest(output)).mapValues {
                $0.map { line in
                    let marks = (line["landmarks"] as? [String: [Double]] ?? [:]).sorted { $0.key < $1.key }
                    return "\(line["bbox"] ?? "none") \(line["score"] ?? "") \(marks) \(line["angle"] ?? "")"
                }
            }
        }
        let all = try faces(together, work.appendingPathComponent("out-1"))
        #expect(all.values.reduce(0) { $0 + $1.filter { !$0.hasPrefix("none") }.count } >= 4, "\(all)")
        #expect(try faces(together, work.appendingPathComponent("out-2"), jobs: "2") == all)
        #expect(try faces(together, work.appendingPathComponent("out-4"), jobs: "4") == all)
        for (index, named) in names.enumerated() {
            let alone = work.appendingPathComponent("alone-\(index)")
            try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: together.appendingPathComponent(named), to: alone.appendingPathComponent(named))
            let fresh = try faces(alone, work.appendingPathComponent("out-alone-\(index)"))
            #expect(all[named] == fresh[named], "\(named): \(all[named] ?? []) after other sizes, \(fresh[named] ?? []) fresh")
        }
    }
}
