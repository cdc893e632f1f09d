import Foundation
import Testing
import FaceCropCore
import FaceCropDetect

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

    @Test func theModelIsTheOneTheConverterMakes() throws {
        let script = try String(
            contentsOf: packageRoot.appendingPathComponent("scripts/fetch-face-mesh-model"), encoding: .utf8)
        let pinned = try #require(
            script.split(separator: "\n").first { $0.hasPrefix("model_sha256=") }?.split(separator: "=").last)
        let sum = try runTool("/usr/bin/sha256sum", [try model()]).split(separator: " ").first
        #expect(sum == pinned)
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
                #expect(eyes.count == 2 && eyes.allSatisfy { $0 > 0.2 }, "\(source) \(eyes)")
                #expect(presence > 0.9, "\(source) \(presence)")
                #expect(!reasons.contains("eyes_closed") && !reasons.contains("not_a_face"), "\(source) \(reasons)")
            }
        }
    }
}
