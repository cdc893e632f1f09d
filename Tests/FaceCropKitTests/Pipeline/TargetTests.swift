import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropKit


/// `--target catface` and `--target upperbody` on real photos of cats and of
/// people (Fixtures/SOURCES.md), through the built binary. The boxes below
/// were drawn by eye on each photo.
@Suite(.serialized)
struct TargetTests {
    struct Cat {
        var photo: String
        /// Cheek to cheek, brow to chin (ear tips left out).
        var face: PixelRect
        var leftEye: (x: Int, y: Int)
        var rightEye: (x: Int, y: Int)
        var nose: (x: Int, y: Int)
    }

    static let cats = [
        Cat(photo: "cats/tortoiseshell.jpg", face: PixelRect(x: 95, y: 140, width: 255, height: 220),
            leftEye: (160, 235), rightEye: (275, 228), nose: (222, 318)),
        Cat(photo: "cats/cat-face-day.jpg", face: PixelRect(x: 85, y: 150, width: 315, height: 235),
            leftEye: (170, 245), rightEye: (310, 245), nose: (238, 335)),
        Cat(photo: "cats/maine.jpg", face: PixelRect(x: 85, y: 130, width: 260, height: 220),
            leftEye: (145, 222), rightEye: (267, 210), nose: (203, 283)),
    ]

    /// The five men of Fixtures/people/expedition-1897.jpg, left to right:
    /// their faces, forehead (under the hat) to chin.
    static let expeditionFaces = [
        PixelRect(x: 90, y: 115, width: 22, height: 25),
        PixelRect(x: 162, y: 87, width: 23, height: 25),
        PixelRect(x: 265, y: 82, width: 22, height: 25),
        PixelRect(x: 352, y: 94, width: 23, height: 23),
        PixelRect(x: 422, y: 92, width: 23, height: 23),
    ]

    func contains(_ box: PixelRect, _ point: (x: Int, y: Int)) -> Bool {
        point.x >= box.x && point.x < box.x + box.width && point.y >= box.y && point.y < box.y + box.height
    }

    /// Width and height of a crop file, read from its header.
    func dimensions(_ crop: URL) throws -> (width: Int, height: Int) {
        try Vips.start()
        let header = try Picture.header(of: PhotoBytes(path: crop.path, source: "crop"), source: "crop")
        return (header.width, header.height)
    }

    @Test func catfaceTargetCropsEachCatsFace() throws {
        let (work, photos) = try fixturePhotos(Self.cats.map(\.photo) + ["noface/coffee.jpg", "faces/two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--target", "catface", "--size", "128"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = linesBySource(try readManifest(output))
        for cat in Self.cats {
            let name = (cat.photo as NSString).lastPathComponent
            let found = lines[name] ?? []
            // One face per cat, no second box on its ear or cheek.
            #expect(found.count == 1, "\(name): \(found)")
            let line = try #require(found.first)
            #expect(line["status"] as? String == "ok")
            #expect(line["target"] as? String == "catface")
            #expect(line["crop"] as? String == "\(name).catface0.jpg")
            let box = try #require(rect(line["bbox"]))
            #expect(intersectionOverUnion(box, cat.face) >= 0.5, "\(name): \(box)")
            #expect(contains(box, cat.leftEye) && contains(box, cat.rightEye) && contains(box, cat.nose), "\(name): \(box)")
            // Found by at least three of the six passes.
            #expect((line["score"] as? Double ?? 0) >= 0.5, "\(name): \(line)")
            let crop = output.appendingPathComponent(line["crop"] as! String)
            #expect(FileManager.default.fileExists(atPath: crop.path))
            let size = try dimensions(crop)
            #expect(size.width == 128 && size.height == 128, "\(name): \(size)")
        }
        // A cup of coffee and two people: no cat face.
        #expect(lines["coffee.jpg"]?.map { $0["status"] as? String } == ["no_face"])
        #expect(lines["two-people.jpg"]?.map { $0["status"] as? String } == ["no_face"])
        let stats = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect((stats["settings"] as! [String: Any])["target"] as? String == "catface")
    }

    @Test func catfaceFindsNoCatInPhotosWithoutCats() throws {
        let (work, photos) = try fixturePhotos([
            "faces/astronaut.jpg", "faces/grace_hopper.jpg", "faces/two-people.jpg", "noface/camera.jpg",
            "noface/coffee.jpg", "noface/rocket.jpg", "people/basketball1.png", "people/vtest-400.png",
            "people/expedition-1897.jpg",
        ])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--target", "catface"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try readManifest(output)
        #expect(lines.count == 9)
        for line in lines {
            #expect(line["status"] as? String == "no_face", "\(line)")
            #expect(line["crop"] == nil)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: output.path)
        #expect(!files.contains { $0.contains(".catface") }, "\(files)")
    }

    /// The check `--target catface` puts every cat-face box through: the
    /// human faces the cascade finds in real photos of people are confirmed
    /// as human (so a cat-face box there is dropped); the cat faces are not.
    @Test func catfaceHumanCheckConfirmsPeopleAndNotCats() throws {
        try Vips.start()
        var options = Options()
        let faces = try Detector(DetectorConfig.from(options))
        options.target = .catface
        let cats = try CatFaceVote(DetectorConfig.from(options))
        func gray(_ name: String) throws -> GrayImage {
            let path = fixtures.appendingPathComponent(name).path
            let bytes = try PhotoBytes(path: path, source: name)
            let header = try Picture.header(of: bytes, source: name)
            return try Picture.load(bytes, header: header, minScale: 1, fittingIn: 1024, 1024, source: name)
                .grayPixels(source: name)
        }
        var humans = 0
        for name in ["faces/astronaut.jpg", "faces/grace_hopper.jpg", "faces/two-people.jpg", "people/expedition-1897.jpg"] {
            let image = try gray(name)
            for face in try faces.find(in: image, rgb: nil, minSide: 24, source: name) {
                humans += 1
                #expect(try cats.isHumanFace(face.box, in: image, source: name), "\(name) \(face.box)")
            }
        }
        #expect(humans >= 4)
        for name in ["cats/cat-face-day.jpg", "cats/maine.jpg", "cats/tortoiseshell.jpg"] {
            let image = try gray(name)
            let found = try cats.find(in: image, rgb: nil, minSide: 24, source: name)
            #expect(found.count == 1, "\(name): \(found)")
        }
    }

    @Test func upperbodyTargetCropsTheMenOfAGroupPhoto() throws {
        let (work, photos) = try fixturePhotos(["people/expedition-1897.jpg", "noface/coffee.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--target", "upperbody", "--size", "96"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = linesBySource(try readManifest(output))
        let bodies = lines["expedition-1897.jpg"] ?? []
        // Five men stand in a row; the cascade finds most of them.
        #expect(bodies.count >= 3, "\(bodies)")
        var men: Set<Int> = []
        for (index, body) in bodies.enumerated() {
            #expect(body["status"] as? String == "ok")
            #expect(body["target"] as? String == "upperbody")
            #expect(body["crop"] as? String == "expedition-1897.jpg.upperbody\(index).jpg")
            let box = try #require(rect(body["bbox"]))
            // Head and shoulders of exactly one man: his face in the upper
            // two thirds of the box (the cascade's box reaches from above the
            // head to the chest), the box a few faces wide.
            let inside = Self.expeditionFaces.indices.filter { i in
                let face = Self.expeditionFaces[i]
                let centre = (x: face.x + face.width / 2, y: face.y + face.height / 2)
                return contains(box, centre) && centre.y < box.y + box.height * 2 / 3
            }
            #expect(inside.count == 1, "\(box): faces \(inside)")
            if let man = inside.first {
                men.insert(man)
                let ratio = Double(box.width) / Double(Self.expeditionFaces[man].width)
                #expect(ratio >= 2 && ratio <= 8, "\(box)")
            }
            let crop = output.appendingPathComponent(body["crop"] as! String)
            #expect(FileManager.default.fileExists(atPath: crop.path))
            let size = try dimensions(crop)
            #expect(size.width == 96 && size.height == 96)
        }
        // Each box is a different man.
        #expect(men.count == bodies.count)
        #expect(lines["coffee.jpg"]?.map { $0["status"] as? String } == ["no_face"])
    }

    @Test func aPersonCutByTheFrameStillPlacesTheFace() {
        // The HOG pass past the frame finds a man seen to the knees in a
        // 640 x 480 photo as a box reaching past the left and bottom edges.
        let person = PixelRect(x: -39, y: 46, width: 241, height: 482)
        // His 39 px face (under 1/8 of the shorter side: not a portrait) is
        // in the top third of that box: it counts.
        #expect(PersonRule.counts(PixelRect(x: 73, y: 91, width: 39, height: 39), target: .face, people: [person], width: 640, height: 480))
        // Found only past the edges, he places faces but alone does not make
        // the photo one of people (its status stays no_person without a face).
        #expect(!Detector.liesInside(person, width: 640, height: 480))
        #expect(Detector.liesInside(PixelRect(x: 400, y: 190, width: 90, height: 180), width: 640, height: 480))
        // Without the person it does not.
        #expect(!PersonRule.counts(PixelRect(x: 73, y: 91, width: 39, height: 39), target: .face, people: [], width: 640, height: 480))
        // A face at his knees, or wider than half the box, is not his.
        #expect(!PersonRule.counts(PixelRect(x: 73, y: 400, width: 39, height: 39), target: .face, people: [person], width: 640, height: 480))
        #expect(!PersonRule.counts(PixelRect(x: 0, y: 60, width: 130, height: 130), target: .face, people: [person], width: 1600, height: 1200))
    }

    @Test func personOnlyKeepsAManCutAtTheKnees() throws {
        // basketball1.png: the man on the left is seen to his shoes but the
        // one on the right is cut at the waist; the left man's 39 px face is
        // under 1/8 of the frame. Only the HOG pass past the frame finds him.
        let (work, photos) = try fixturePhotos(["people/basketball1.png", "noface/coffee.jpg", "noface/rocket.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--person-only", "--min-face", "24"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = linesBySource(try readManifest(output))
        let faces = lines["basketball1.png"] ?? []
        #expect(faces.count == 1, "\(faces)")
        #expect(faces.first?["status"] as? String == "ok")
        let box = try #require(rect(faces.first?["bbox"]))
        #expect(intersectionOverUnion(box, PixelRect(x: 73, y: 91, width: 39, height: 39)) >= 0.5, "\(box)")
        #expect(lines["coffee.jpg"]?.first?["crop"] == nil)
        #expect(lines["rocket.jpg"]?.first?["crop"] == nil)
    }
}
