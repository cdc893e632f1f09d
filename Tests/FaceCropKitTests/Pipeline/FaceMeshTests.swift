import Foundation
import Testing
import FaceCropCore
import FaceCropDetect
import FaceCropImaging

/// The face mesh's measures of the quality record (docs/quality.md, "Eyes
/// and face"): the model scripts/fetch-face-mesh-model makes, run by the
/// built binary on Fixtures' portraits.
@Suite(.serialized)
struct FaceMeshTests {
    /// The face mesh model in models/ (scripts/test makes it).
    private func model() throws -> String {
        try #require(FaceMesh.resolve(), "run scripts/fetch-face-mesh-model (scripts/test does)")
    }

    /// Runs facecrop on `photos` and returns its face lines by source.
    private func faces(_ photos: URL, _ output: URL, _ extra: [String] = []) throws -> [String: [[String: Any]]] {
        _ = try model()
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet"] + extra)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return linesBySource(try readManifest(output).filter { $0["face"] != nil })
    }

    @Test func theModelsAreTheOnesTheConverterMakes() throws {
        let script = try String(
            contentsOf: packageRoot.appendingPathComponent("scripts/fetch-face-mesh-model"), encoding: .utf8)
        // The pins: the lines of the script's model_sha256 table.
        let table = try #require(script.components(separatedBy: "declare -A model_sha256=(").last?.components(separatedBy: ")").first)
        let face = try model()
        for path in [face, FaceMesh.irisPath(face)] {
            let name = (path as NSString).lastPathComponent
            let pinned = table.split(separator: "\n").first { $0.contains("[models/\(name)]=") }?.split(separator: "=").last
            let sum = try runTool("/usr/bin/sha256sum", [path]).split(separator: " ").first
            #expect(pinned != nil && sum == pinned, "\(name)")
        }
    }

    @Test func aFileThatIsNotTheFaceMeshStopsTheRunNamingIt() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let models = work.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let wrong = models.appendingPathComponent(FaceMesh.fileName)
        // Another network: dlib's face descriptor as ONNX, or any file.
        try Data("not a network".utf8).write(to: wrong)
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = models.path
        let result = try runFaceCrop(
            [fixtures.appendingPathComponent("faces").path, "-o", work.appendingPathComponent("out").path],
            environment: environment)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains(wrong.path), "\(result.stderr)")
    }

    @Test(arguments: ["cascade", "centerface"])
    func openEyedPortraitsAreFacesWithOpenEyes(detector: String) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let lines = try faces(fixtures.appendingPathComponent("faces"), work.appendingPathComponent("out"), ["--detector", detector])
        #expect(lines.count == 4)
        for (source, found) in lines {
            for face in found {
                let eyes = try #require(face["eyes_open"] as? [Double], "\(source)")
                let presence = try #require(face["face_presence"] as? Double, "\(source)")
                let reasons = face["quality_reasons"] as? [String] ?? []
                #expect(eyes.count == 2 && eyes.allSatisfy { $0 > 0.14 }, "\(source) \(eyes)")
                #expect(presence > 0.9, "\(source) \(presence)")
                #expect(!reasons.contains("eyes_closed") && !reasons.contains("not_a_face"), "\(source) \(reasons)")
            }
        }
    }

    /// A portrait with its eyes closed (Fixtures/eyes, made from
    /// faces/astronaut.jpg) gets `eyes_closed`, the original does not, and
    /// `--eyes open` leaves only the closed one out.
    @Test(arguments: ["cascade", "centerface"])
    func closedEyesAreNamedAndLeftOutByEyesOpen(detector: String) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for (from, to) in [("eyes/astronaut-eyes-closed.jpg", "closed.jpg"), ("faces/astronaut.jpg", "open.jpg")] {
            try FileManager.default.copyItem(
                atPath: fixtures.appendingPathComponent(from).path, toPath: photos.appendingPathComponent(to).path)
        }
        let lines = try faces(photos, work.appendingPathComponent("out"), ["--detector", detector, "--eyes", "open"])
        let closed = try #require(lines["closed.jpg"]?.first), open = try #require(lines["open.jpg"]?.first)
        let shut = try #require(closed["eyes_open"] as? [Double]), wide = try #require(open["eyes_open"] as? [Double])
        #expect(shut.reduce(0, +) / 2 < 0.12 && wide.reduce(0, +) / 2 > 0.16, "\(shut) \(wide)")
        #expect(closed["quality_reasons"] as? [String] == ["eyes_closed"], "\(closed)")
        #expect(closed["status"] as? String == "low_quality" && closed["crop"] == nil)
        #expect((open["quality_reasons"] as? [String])?.isEmpty == true && open["status"] as? String == "ok", "\(open)")
        #expect((closed["face_quality"] as? Double ?? 1) < (open["face_quality"] as? Double ?? 0))
    }

    /// Eyes too small to tell (under `FaceMeshMeasures.minEyeDistance` apart
    /// in the detection decode) get no `eyes_open` and no `eyes_closed`; the
    /// same closed eyes at about 19 px are still named. The portrait with its
    /// eyes closed at a quarter and at 0.45 of its size, on a grey canvas:
    /// YuNet finds both (9 and 19 px), and before the floor the small copy
    /// was named `eyes_closed` too.
    @Test func eyesTooSmallToTellGetNoVerdict() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let closed = fixtures.appendingPathComponent("eyes/astronaut-eyes-closed.jpg").path
        for (name, scale) in [("small", "0.25"), ("larger", "0.45")] {
            let shrunk = work.appendingPathComponent("\(name).v").path
            _ = try runTool("/usr/bin/vips", ["resize", closed, shrunk, scale])
            _ = try runTool("/usr/bin/vips", [
                "embed", shrunk, photos.appendingPathComponent("\(name).jpg").path, "20", "20", "256", "256",
                "--extend", "background", "--background", "128",
            ])
        }
        let lines = try faces(photos, work.appendingPathComponent("out"), ["--detector", "yunet", "--min-face", "8"])
        let small = try #require(lines["small.jpg"]?.first), larger = try #require(lines["larger.jpg"]?.first)
        #expect((small["face_px"] as? Double ?? 99) < FaceMeshMeasures.minEyeDistance, "\(small)")
        #expect(small["eyes_open"] is NSNull && small["face_presence"] is Double, "\(small)")
        #expect((small["quality_reasons"] as? [String])?.contains("eyes_closed") == false, "\(small)")
        #expect((larger["face_px"] as? Double ?? 0) >= FaceMeshMeasures.minEyeDistance, "\(larger)")
        #expect((larger["eyes_open"] as? [Double])?.count == 2, "\(larger)")
        #expect((larger["quality_reasons"] as? [String])?.contains("eyes_closed") == true, "\(larger)")
    }

    /// Without the eyes asked for (eyes under the floor), the iris network
    /// is not run: the face network's points and face score are the same
    /// numbers as with them, and no eye contour comes back. The portrait in
    /// grey (vips' raw bytes), its chip the image's shorter side.
    @Test func theFaceNetworkAloneGivesTheSamePointsWithoutTheEyes() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let (grey, raw) = (work.appendingPathComponent("grey.v").path, work.appendingPathComponent("grey.raw").path)
        _ = try runTool("/usr/bin/vips", ["colourspace", fixtures.appendingPathComponent("faces/astronaut.jpg").path, grey, "b-w"])
        _ = try runTool("/usr/bin/vips", ["rawsave", grey, raw])
        let side = { (field: String) throws -> Int in
            Int(try runTool("/usr/bin/vipsheader", ["-f", field, grey]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        let (width, height) = (try side("width"), try side("height"))
        let gray = GrayImage(width: width, height: height, pixels: [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
        #expect(gray.pixels.count == width * height && width > 0)
        let mesh = try FaceMesh(model: try model())
        let k = Double(min(width, height)) / 192  // the network's chip: 192 px a side
        let chip = Affine2D(k, 0, 0, 0, k, 0)
        let both = try mesh.run(gray, chipToImage: chip, source: "astronaut")
        let alone = try mesh.run(gray, chipToImage: chip, withEyes: false, source: "astronaut")
        #expect(both.eyes.count == 2 && both.eyes.allSatisfy { $0.count == 71 })
        #expect(alone.eyes.isEmpty)
        #expect(alone.points.count == 3 * 468 && alone.points == both.points && alone.presence == both.presence)
    }

    /// `pick` on a person photographed with their eyes closed and open (each
    /// twice: the photo and a recompressed copy): an open-eyed crop is the
    /// one chosen. The closed ones come first by name, so without the eye
    /// measure a tie would choose a blink.
    @Test func pickChoosesTheOpenEyedCropOfAPersonWithBlinks() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let closed = fixtures.appendingPathComponent("eyes/astronaut-eyes-closed.jpg").path
        try FileManager.default.copyItem(atPath: closed, toPath: photos.appendingPathComponent("a-closed.jpg").path)
        _ = try runTool("/usr/bin/vips", ["copy", closed, photos.appendingPathComponent("b-closed.jpg").path + "[Q=80]"])
        let open = fixtures.appendingPathComponent("faces/astronaut.jpg").path
        try FileManager.default.copyItem(atPath: open, toPath: photos.appendingPathComponent("c-open.jpg").path)
        _ = try runTool("/usr/bin/vips", ["copy", open, photos.appendingPathComponent("d-open.jpg").path + "[Q=80]"])
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = packageRoot.appendingPathComponent("models").path
        let dataset = work.appendingPathComponent("dataset")
        let made = try runFaceCrop([photos.path, "-o", dataset.path, "-q", "--people"], environment: environment)
        #expect(made.status == 0, "\(made.stderr)")
        let lines = try readManifest(dataset).filter { $0["face"] != nil }
        let person = try #require(lines.first { $0["source"] as? String == "c-open.jpg" }?["person"] as? String)
        #expect(lines.filter { $0["person"] as? String == person }.count == 4, "\(lines)")
        let out = work.appendingPathComponent("pick")
        let run = try runFaceCrop(["pick", dataset.path, out.path, "--person", person, "--count", "1"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let pick = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("pick.json"))) as? [String: Any]
        let picked = try #require(pick?["picked"] as? [[String: Any]])
        #expect(picked.count == 1 && (picked.first?["source"] as? String)?.hasSuffix("-open.jpg") == true, "\(picked)")
    }

    /// With CenterFace's five points the yaw and roll come from the face
    /// mesh (`MeshPose`): a portrait and its mirror image give opposite
    /// rolls within 1.5° (the five-point fit gave 3.2° and 3.6° apart on
    /// these two), and the pitch stays the fit's, alike in both.
    @Test func theMeshsPoseOfAMirroredPortraitMirrorsIt() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for name in ["astronaut", "grace_hopper"] {
            let from = fixtures.appendingPathComponent("faces/\(name).jpg").path
            try FileManager.default.copyItem(atPath: from, toPath: photos.appendingPathComponent("\(name).jpg").path)
            _ = try runTool("/usr/bin/vips", ["flip", from, photos.appendingPathComponent("\(name)-mirrored.jpg").path, "horizontal"])
        }
        let lines = try faces(photos, work.appendingPathComponent("out"), ["--detector", "centerface"])
        for name in ["astronaut", "grace_hopper"] {
            let face = try #require(lines["\(name).jpg"]?.first?["pose"] as? [String: Double])
            let mirrored = try #require(lines["\(name)-mirrored.jpg"]?.first?["pose"] as? [String: Double])
            let (yaw, roll, pitch) = (face["yaw"] ?? 99, face["roll"] ?? 99, face["pitch"] ?? 99)
            #expect(abs(roll + (mirrored["roll"] ?? 99)) <= 1.5, "\(name) \(face) \(mirrored)")
            #expect(abs(yaw + (mirrored["yaw"] ?? 99)) <= 6 && abs(yaw) < 10, "\(name) \(face) \(mirrored)")
            #expect(abs(pitch - (mirrored["pitch"] ?? 99)) <= 5 && abs(roll) < 10, "\(name) \(face) \(mirrored)")
        }
    }
}
