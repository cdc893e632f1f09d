import Foundation
import Testing

@testable import FaceCropKit

/// Detectors, --person-only, --target, --align and --min-sharpness on real
/// photos (Fixtures/SOURCES.md), through the built binary.
@Suite(.serialized)
struct DetectionTests {
    @Test func personOnlyKeepsPortraitsAndDropsPhotosWithoutPeople() throws {
        let (work, photos) = try fixturePhotos([
            "faces/grace_hopper.jpg", "faces/astronaut.jpg", "people/vtest-400.png", "noface/chelsea.jpg",
            "noface/coffee.jpg",
        ])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--person-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = linesBySource(try readManifest(output))
        // Portraits: the face fills the frame, no body to see: kept on the face alone.
        #expect(lines["grace_hopper.jpg"]?.first?["status"] as? String == "ok")
        #expect(lines["astronaut.jpg"]?.first?["status"] as? String == "ok")
        // Pedestrians far away: people (HOG), but no face big enough: no_face, not no_person.
        #expect(lines["vtest-400.png"]?.first?["status"] as? String == "no_face")
        // A cat and a cup of coffee: no person.
        #expect(lines["chelsea.jpg"]?.first?["status"] as? String == "no_person")
        #expect(lines["coffee.jpg"]?.first?["status"] as? String == "no_person")
        #expect(lines["coffee.jpg"]?.first?["crop"] == nil)
        let stats = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect((stats["counts"] as! [String: Int])["no_person"] == 2)
        #expect((stats["settings"] as! [String: Any])["person_only"] as? String == "yes")
    }

    @Test func personRuleNeedsAPersonOrAPortraitSizedFace() {
        let person = PixelRect(x: 100, y: 100, width: 80, height: 200)
        // A small face at the top of a person counts; the same face elsewhere does not.
        #expect(PersonRule.counts(.init(x: 125, y: 110, width: 30, height: 30), target: .face, people: [person], width: 1000, height: 800))
        #expect(!PersonRule.counts(.init(x: 500, y: 110, width: 30, height: 30), target: .face, people: [person], width: 1000, height: 800))
        // A face at the person's feet does not count.
        #expect(!PersonRule.counts(.init(x: 125, y: 260, width: 30, height: 30), target: .face, people: [person], width: 1000, height: 800))
        // A portrait: 1/8 of the shorter side or more, no person needed.
        #expect(PersonRule.counts(.init(x: 500, y: 110, width: 100, height: 100), target: .face, people: [], width: 1000, height: 800))
        #expect(!PersonRule.counts(.init(x: 500, y: 110, width: 99, height: 99), target: .face, people: [], width: 1000, height: 800))
    }

    @Test func bodyTargetCropsThePedestrians() throws {
        let (work, photos) = try fixturePhotos(["people/vtest-400.png", "noface/coffee.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--target", "body"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = linesBySource(try readManifest(output))
        let bodies = lines["vtest-400.png"] ?? []
        #expect(bodies.count >= 2, "\(bodies)")
        for body in bodies {
            #expect(body["target"] as? String == "body")
            #expect((body["crop"] as? String)?.contains(".body") == true)
            let box = try #require(rect(body["bbox"]))
            // Standing people: about twice as tall as wide.
            #expect(Double(box.height) / Double(box.width) > 1.6, "\(box)")
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(body["crop"] as! String).path))
        }
        #expect(lines["coffee.jpg"]?.first?["status"] as? String == "no_face")
    }

    @Test func stockHaarAndEnsembleBothFindTheKnownFaces() throws {
        let (work, photos) = try fixturePhotos(["faces/two-people.jpg", "noface/rocket.jpg", "noface/chelsea.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        for detector in ["haar", "cascade"] {
            let output = work.appendingPathComponent("dataset-\(detector)")
            let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", detector])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = linesBySource(try readManifest(output))
            let faces = lines["two-people.jpg"] ?? []
            #expect(faces.count == 2, "\(detector): \(faces)")
            for face in faces {
                let box = try #require(rect(face["bbox"]))
                let best = expectedAnswers["faces/two-people.jpg"]!.boxes.map { intersectionOverUnion($0, box) }.max() ?? 0
                #expect(best >= 0.5, "\(detector): \(box)")
            }
            #expect(lines["rocket.jpg"]?.first?["status"] as? String == "no_face")
            #expect(lines["chelsea.jpg"]?.first?["status"] as? String == "no_face")
        }
    }

    @Test func alignLevelsTheEyesAndSharpnessIsRecorded() throws {
        let (work, photos) = try fixturePhotos(["faces/astronaut.jpg", "faces/grace_hopper.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--align"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try readManifest(output)
        #expect(lines.count == 2)
        for line in lines {
            #expect((line["sharpness"] as? Double ?? 0) > 0)
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(line["crop"] as! String).path))
            if line["aligned"] as? Bool == true {
                // Upright portraits: the turn is small.
                #expect(abs(line["angle"] as? Double ?? 99) < 10, "\(line)")
            } else {
                // Eyes not found (behind glasses): the crop is kept as it is.
                #expect(line["angle"] as? Double == 0, "\(line)")
            }
        }
        let astronaut = try #require(lines.first { $0["source"] as? String == "astronaut.jpg" })
        #expect(astronaut["aligned"] as? Bool == true)
        // --min-sharpness above every face's sharpness drops them all.
        let top = lines.map { $0["sharpness"] as! Double }.max()!
        let strict = work.appendingPathComponent("strict")
        let rerun = try runFaceCrop([photos.path, "-o", strict.path, "--quiet", "--min-sharpness", String(top + 1)])
        #expect(rerun.status == 0)
        #expect(try readManifest(strict).allSatisfy { $0["status"] as? String == "no_face" })
    }

    @Test func yunetFindsTheFacesAndAMissingModelIsAClearError() throws {
        let (work, photos) = try fixturePhotos(["faces/two-people.jpg", "noface/chelsea.jpg", "noface/coffee.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let missing = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("x").path, "--detector", "yunet", "--model", "/nonexistent.onnx"])
        #expect(missing.status == 69)
        #expect(missing.stderr.contains("cannot load model '/nonexistent.onnx': model file not found"), "\(missing.stderr)")
        let notModel = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("y").path, "--detector", "yunet", "--model", fixtures.appendingPathComponent("noface/coffee.jpg").path])
        #expect(notModel.status == 69, "\(notModel.stderr)")

        let model = packageRoot.appendingPathComponent("models/face_detection_yunet_2023mar.onnx").path
        try #require(FileManager.default.fileExists(atPath: model), "run scripts/fetch-yunet (scripts/test does)")
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", "yunet", "--model", model, "--align"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = linesBySource(try readManifest(output))
        let faces = lines["two-people.jpg"] ?? []
        #expect(faces.count == 2, "\(faces)")
        for face in faces {
            let box = try #require(rect(face["bbox"]))
            let best = expectedAnswers["faces/two-people.jpg"]!.boxes.map { intersectionOverUnion($0, box) }.max() ?? 0
            #expect(best >= 0.5, "\(box)")
            #expect((face["score"] as? Double ?? 0) >= 0.8)
            #expect(face["aligned"] as? Bool == true)
        }
        #expect(lines["chelsea.jpg"]?.first?["status"] as? String == "no_face")
        #expect(lines["coffee.jpg"]?.first?["status"] as? String == "no_face")
        let stats = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(((stats["settings"] as! [String: Any])["model_sha256"] as? String)?.count == 64)
    }
}
