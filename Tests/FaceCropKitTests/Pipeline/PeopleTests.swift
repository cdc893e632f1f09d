import Foundation
import Testing
import FaceCropCore
import FaceCropDetect
import FaceCropPeople


/// `--people` with the real binary, dlib and hnswlib on Fixtures/faces:
/// astronaut.jpg, astronaut-large.jpg (it upscaled 3x) and the left half of
/// two-people.jpg are one person (Eileen Collins); grace_hopper.jpg and the
/// right half of two-people.jpg (it shrunk) another. These are derived
/// variants of two portraits (Fixtures/SOURCES.md), not new photos of them;
/// the grouping's quality is measured on the people dev set (docs/people.md).
@Suite(.serialized)
struct PeopleTests {
    /// Where scripts/fetch-dlib-models put the models (scripts/test runs it).
    let models = packageRoot.appendingPathComponent("models").path

    func run(_ arguments: [String], chipLandmarks: String? = nil) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = models
        environment["FACECROP_CHIP_LANDMARKS"] = chipLandmarks
        let result = try runFaceCrop(arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    func faces(_ output: URL) throws -> [(source: String, face: Int, row: Int, person: String?)] {
        try readManifest(output).compactMap { line in
            guard let source = line["source"] as? String, let face = line["face"] as? Int, let row = line["embedding"] as? Int
            else { return nil }
            return (source, face, row, line["person"] as? String)
        }
    }

    func person(_ faces: [(source: String, face: Int, row: Int, person: String?)], _ source: String, _ face: Int = 0) -> String? {
        faces.first { $0.source == source && $0.face == face }?.person
    }

    func photos(_ names: [String]) throws -> (work: URL, photos: URL) {
        try fixturePhotos(names.map { "faces/" + $0 })
    }

    @Test func theFixturePortraitsMakeTwoPeopleWithTheirEmbeddingsInManifestOrder() throws {
        let (work, photos) = try photos(["astronaut.jpg", "astronaut-large.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        let found = try faces(output)
        #expect(found.map(\.row) == Array(0..<5))
        let collins = person(found, "astronaut.jpg")
        let hopper = person(found, "grace_hopper.jpg")
        #expect(collins != nil && hopper != nil && collins != hopper)
        #expect(person(found, "astronaut-large.jpg") == collins)
        // two-people.jpg: Collins on the left (face 0 is the larger: Hopper).
        let pair = [person(found, "two-people.jpg", 0), person(found, "two-people.jpg", 1)]
        #expect(Set(pair.compactMap { $0 }) == [collins!, hopper!])
        // embeddings.npy: a float32 (5, 128) array, rows of unit length.
        let data = try Data(contentsOf: output.appendingPathComponent("embeddings.npy"))
        #expect(data.prefix(6) == Data([0x93] + Array("NUMPY".utf8)))
        let header = String(decoding: data[10..<128], as: UTF8.self)
        #expect(header.contains("'descr': '<f4'") && header.contains("'shape': (5, 128)"))
        #expect(data.count == 128 + 5 * 128 * 4)
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["people"] as? Int == 2)
        #expect(stats["faces_grouped"] as? Int == 5)
        // metadata.jsonl (Hugging Face) has the person column.
        let metadata = try String(contentsOf: output.appendingPathComponent("metadata.jsonl"), encoding: .utf8)
        #expect(metadata.split(separator: "\n").allSatisfy { $0.contains("\"person\": \"person-000") })
    }

    /// The quality floor (`PeopleRule.minCoreQuality`): copies of the
    /// portraits blurred with vips. A blurred Hopper joins the Hopper that
    /// two sharp faces make; two blurred Collins copies, close enough to
    /// link (their descriptors within the 0.5 radius), make no person of
    /// their own, nor with the one sharp Collins (a person needs two good
    /// faces that link).
    @Test func aFaceBelowTheQualityFloorJoinsAPersonButMakesNone() throws {
        let (work, photos) = try photos(["grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        for (photo, copy, sigma) in [
            ("grace_hopper.jpg", "grace-blurred.jpg", "4"), ("astronaut.jpg", "collins-blurred-3.jpg", "3"),
            ("astronaut.jpg", "collins-blurred-4.jpg", "4"),
        ] {
            _ = try runTool(
                "/usr/bin/vips",
                ["gaussblur", fixtures.appendingPathComponent("faces/" + photo).path, photos.appendingPathComponent(copy).path, sigma])
        }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        let lines = linesBySource(try readManifest(output).filter { $0["face"] != nil })
        let floor = PeopleRule().minCoreQuality
        // What the floor reads: the line's measures through `QualityFloor`.
        func apartFromSize(_ line: [String: Any]?) throws -> Double {
            let line = try #require(line)
            let exposure = try #require(line["exposure"] as? [String: Double])
            let yaw = (line["pose"] as? [String: Double])?["yaw"]
            var quality = FaceQuality(
                pose: yaw.map { FacePose(yaw: $0, pitch: 0, roll: 0) }, facePx: 0,
                softness: try #require(line["softness"] as? Double), detailPx: 0, upscaled: false,
                mean: try #require(exposure["mean"]), dark: try #require(exposure["dark"]), bright: try #require(exposure["bright"]),
                blocks: try #require(line["blocking"] as? Double), jpegQuality: line["jpeg_quality"] as? Int,
                outside: try #require(line["outside"] as? Double), score: 0, reasons: [])
            quality.facePresence = line["face_presence"] as? Double
            return QualityFloor.value(quality)
        }
        for name in ["grace-blurred.jpg", "collins-blurred-3.jpg", "collins-blurred-4.jpg"] {
            #expect(try apartFromSize(lines[name]?.first) < floor, "\(name): \(lines[name] ?? [])")
        }
        #expect(try apartFromSize(lines["grace_hopper.jpg"]?.first) >= floor)
        let found = try faces(output)
        let hopper = person(found, "grace_hopper.jpg")
        #expect(hopper != nil && person(found, "two-people.jpg", 0) == hopper)
        #expect(person(found, "grace-blurred.jpg") == hopper)
        #expect(person(found, "collins-blurred-3.jpg") == nil && person(found, "collins-blurred-4.jpg") == nil)
        #expect(person(found, "two-people.jpg", 1) == nil)
        // Not far apart: the floor, not the distance, keeps them out.
        let rows = try [lines["collins-blurred-3.jpg"], lines["collins-blurred-4.jpg"]].map { try #require($0?.first?["embedding"] as? Int) }
        let data = try Data(contentsOf: output.appendingPathComponent("embeddings.npy"))
        let vectors = rows.map { row in
            (0..<128).map { i in data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 128 + (row * 128 + i) * 4, as: Float.self) } }
        }
        let distance = zip(vectors[0], vectors[1]).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
        #expect(distance <= PeopleRule().radius, "\(distance)")
    }

    /// Two real frames of one scene (Debian's opencv-doc): the player's
    /// face is 36 px in both, too small to be a core, but the two are close
    /// enough (0.27) to be one person; a face seen once is in no group.
    @Test func twoFramesOfOneSceneMakeOnePersonOfTheirSmallFace() throws {
        let (work, photos) = try fixturePhotos(["people/basketball1.png", "same-person/basketball2.png", "faces/astronaut.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people", "--min-face", "20"])
        let found = try faces(output)
        #expect(person(found, "basketball1.png") != nil)
        #expect(person(found, "basketball1.png") == person(found, "basketball2.png"))
        #expect(found.contains { $0.source == "astronaut.jpg" } && person(found, "astronaut.jpg") == nil)
    }

    /// FACECROP_CHIP_LANDMARKS=detector: YuNet's five points make the chip
    /// (other descriptors, the same two people); the cascade has none, so its
    /// descriptors stay the predictor's, byte for byte.
    @Test func theDetectorsPointsMakeTheChipOnlyWhenAskedAndWhereThereAreFive() throws {
        let (work, photos) = try photos(["astronaut.jpg", "astronaut-large.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let yunet = ["--detector", "yunet", "--model", packageRoot.appendingPathComponent("models/yunet-any.onnx").path]
        var descriptors: [String: Data] = [:]
        for (name, options, chip) in [
            ("cascade", [String](), nil), ("cascade-detector", [], "detector"), ("yunet", yunet, nil),
            ("yunet-detector", yunet, "detector"),
        ] as [(String, [String], String?)] {
            let output = work.appendingPathComponent(name)
            _ = try run([photos.path, "-o", output.path, "-q", "--people"] + options, chipLandmarks: chip)
            descriptors[name] = try Data(contentsOf: output.appendingPathComponent("embeddings.npy"))
            if name.hasPrefix("yunet") {
                let found = try faces(output)
                #expect(found.count == 5)
                #expect(person(found, "astronaut.jpg") != nil)
                #expect(person(found, "astronaut-large.jpg") == person(found, "astronaut.jpg"))
                #expect(person(found, "grace_hopper.jpg") != nil)
                #expect(person(found, "grace_hopper.jpg") != person(found, "astronaut.jpg"))
            }
        }
        #expect(descriptors["cascade-detector"] == descriptors["cascade"])
        #expect(descriptors["yunet-detector"] != descriptors["yunet"])
    }

    @Test func aRerunIsByteIdenticalAndIdsSurviveAddedPhotos() throws {
        let (work, photos) = try photos(["astronaut.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people", "--jobs", "1"])
        let first = try faces(output)
        let bytes = try datasetBytes(output)
        let again = try run([photos.path, "-o", output.path, "--people", "--json", "--jobs", "2"])
        #expect(try datasetBytes(output) == bytes)
        // Nothing was computed again: every photo's record (and its descriptors) was reused.
        #expect(again.stdout.contains("\"reused\": 3"))

        // A new photo of Collins, first in manifest order: she and Hopper keep their ids.
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("faces/astronaut-large.jpg"),
            to: photos.appendingPathComponent("a-astronaut-large.jpg"))
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        let added = try faces(output)
        #expect(person(added, "a-astronaut-large.jpg") == person(first, "astronaut.jpg"))
        for face in first { #expect(person(added, face.source, face.face) == face.person) }
        #expect(added.count == first.count + 1)
    }

    @Test func shardsMergedGroupAsOneRunDoes() throws {
        let (work, photos) = try photos(["astronaut.jpg", "astronaut-large.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let whole = work.appendingPathComponent("whole")
        _ = try run([photos.path, "-o", whole.path, "-q", "--people"])
        let shards = work.appendingPathComponent("shards")
        for index in 0..<2 { _ = try run([photos.path, "-o", shards.path, "-q", "--people", "--shard", "\(index)/2"]) }
        let merged = work.appendingPathComponent("merged")
        _ = try run(["merge", merged.path, shards.path, "-q"])
        let read = { (folder: URL, name: String) in try Data(contentsOf: folder.appendingPathComponent(name)) }
        #expect(try read(merged, "manifest.jsonl") == read(whole, "manifest.jsonl"))
        #expect(try read(merged, "embeddings.npy") == read(whole, "embeddings.npy"))
    }

    @Test func splitByPersonPutsEachPersonInOneSplit() throws {
        let (work, photos) = try photos(["astronaut.jpg", "astronaut-large.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people", "--split", "a=50,b=50", "--split-by", "person"])
        var splitOf: [String: Set<String>] = [:]
        for line in try readManifest(output) where line["crop"] != nil {
            let split = try #require(line["split"] as? String)
            let crop = try #require(line["crop"] as? String)
            #expect(crop.hasPrefix(split + "/"))
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
            let person = try #require(line["person"] as? String)
            splitOf[person, default: []].insert(split)
        }
        #expect(splitOf.count == 2 && splitOf.values.allSatisfy { $0.count == 1 })
        // Each split's metadata.jsonl lists its own crops, with their person.
        for split in ["a", "b"] {
            let metadata = output.appendingPathComponent(split + "/metadata.jsonl")
            guard let text = try? String(contentsOf: metadata, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                #expect(splitOf[object["person"] as! String] == [split])
            }
        }
        // A rerun moves nothing and changes nothing.
        let files = { try fingerprintWithStableReport(output).filter { !$0.key.hasPrefix(".facecrop/") && $0.key != "stats.json" } }
        let bytes = try files()
        _ = try run([photos.path, "-o", output.path, "-q", "--people", "--split", "a=50,b=50", "--split-by", "person"])
        #expect(try files() == bytes)
    }

    @Test func keepPersonKeepsOnlyThatPersonsCrops() throws {
        let (work, photos) = try photos(["astronaut.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        let collins = try #require(person(try faces(output), "astronaut.jpg"))
        _ = try run([photos.path, "-o", output.path, "-q", "--people", "--keep-person", collins])
        let lines = try readManifest(output).filter { $0["face"] != nil }
        #expect(lines.count == 4)
        for line in lines {
            let kept = line["person"] as? String == collins
            #expect(line["status"] as? String == (kept ? "ok" : "other_person"))
            #expect((line["crop"] != nil) == kept)
        }
        let crops = try FileManager.default.subpathsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".jpg") }
        #expect(crops.count == 2)
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["other_person"] as? Int == 2)
    }

    @Test func withoutTheModelsItExits69AndSaysHowToGetThem() throws {
        let (work, photos) = try photos(["astronaut.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = work.path
        let result = try runFaceCrop(
            [photos.path, "-o", work.appendingPathComponent("out").path, "--people"], environment: environment,
            directory: work)
        #expect(result.status == 69)
        #expect(result.stderr.contains("shape_predictor_5_face_landmarks.dat"))
        #expect(result.stderr.contains("scripts/fetch-dlib-models"))
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("out").path))
    }

    /// The descriptor runs on ONNX Runtime: without the library `--people`
    /// is exit 69 naming it (the cascade alone still runs), and another
    /// network in the descriptor's place is refused, naming the file.
    @Test func withoutOnnxRuntimeOrWithAnotherNetworkItExits69() throws {
        let (work, photos) = try photos(["astronaut.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = models
        let absent = work.appendingPathComponent("nowhere/libonnxruntime.so.1.32.0").path
        environment["FACECROP_ONNXRUNTIME"] = absent
        let missing = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("x").path, "--people"], environment: environment)
        #expect(missing.status == 69)
        #expect(missing.stderr.hasPrefix("facecrop: error: cannot load ONNX Runtime, which --detector yunet, --detector centerface "
            + "and --people run on: ONNX Runtime library not found: \(absent)"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("x").path))
        let cascade = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("cascade").path, "--quiet"], environment: environment)
        #expect(cascade.status == 0, "\(cascade.stderr)")

        environment["FACECROP_ONNXRUNTIME"] = nil
        let other = work.appendingPathComponent("other-models")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        for (from, to) in [("yunet-any.onnx", PeopleModels.descriptor), (PeopleModels.landmarks, PeopleModels.landmarks)] {
            try FileManager.default.copyItem(atPath: models + "/" + from, toPath: other.appendingPathComponent(to).path)
        }
        environment["FACECROP_DLIB_MODELS"] = other.path
        let wrong = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("y").path, "--people"], environment: environment)
        #expect(wrong.status == 69)
        #expect(wrong.stderr == "facecrop: error: cannot group faces into people: not dlib's face descriptor as ONNX "
            + "(1 x 3 x 150 x 150 in, 128 numbers out): \(other.path)/dlib-descriptor.onnx\n", "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("y").path))
    }
}
