import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropKit


/// YuNet on a crowd: 80 faces of 24-40 px in a 1024 x 768 photo, made from
/// the Fixtures portraits (astronaut, Grace Hopper and the two faces of
/// two-people.jpg), each cut square around its face (1.9 x the face) and
/// shrunk by ffmpeg onto a grey 10 x 8 grid. The truth boxes are
/// Fixtures/expected.json's, moved and scaled with their tiles.
@Suite(.serialized)
struct CrowdTests {
    static let width = 1024, height = 768, columns = 10, rows = 8, cell = 96

    /// Writes the mosaic to `path` and returns its faces' boxes.
    func makeCrowd(at path: URL) throws -> [PixelRect] {
        let portraits: [(name: String, face: PixelRect)] = [
            ("faces/astronaut.jpg", expectedAnswers["faces/astronaut.jpg"]!.boxes[0]),
            ("faces/grace_hopper.jpg", expectedAnswers["faces/grace_hopper.jpg"]!.boxes[0]),
            ("faces/two-people.jpg", expectedAnswers["faces/two-people.jpg"]!.boxes[0]),
            ("faces/two-people.jpg", expectedAnswers["faces/two-people.jpg"]!.boxes[1]),
        ]
        var arguments = ["-v", "error", "-y"]
        var filters = ["color=c=0x808080:s=\(Self.width)x\(Self.height)[b0]"]
        var truth: [PixelRect] = []
        let (left, top) = ((Self.width - Self.columns * Self.cell) / 2, (Self.height - Self.rows * Self.cell) / 2)
        for index in 0..<(Self.columns * Self.rows) {
            let (name, face) = portraits[index % portraits.count]
            let side = face.width * 19 / 10
            let (cutX, cutY) = (face.x + face.width / 2 - side / 2, face.y + face.height / 2 - side / 2)
            let faceSide = 24 + index * 7 % 17  // 24...40 px, mixed along the grid
            let tile = faceSide * 19 / 10
            let x = left + index % Self.columns * Self.cell + (Self.cell - tile) / 2
            let y = top + index / Self.columns * Self.cell + (Self.cell - tile) / 2
            arguments += ["-i", fixtures.appendingPathComponent(name).path]
            filters.append("[\(index)]crop=\(side):\(side):\(cutX):\(cutY),scale=\(tile):\(tile):flags=bicubic[t\(index)]")
            filters.append("[b\(index)][t\(index)]overlay=\(x):\(y)[b\(index + 1)]")
            let scale = Double(tile) / Double(side)
            truth.append(PixelRect(
                x: x + Int((Double(face.x - cutX) * scale).rounded()), y: y + Int((Double(face.y - cutY) * scale).rounded()),
                width: Int((Double(face.width) * scale).rounded()), height: Int((Double(face.height) * scale).rounded())))
        }
        arguments += ["-filter_complex", filters.joined(separator: ";"), "-map", "[b\(truth.count)]", "-frames:v", "1",
                      "-q:v", "2", path.path]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ClipTests.debianFFmpeg)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg could not make the mosaic")
        return truth
    }

    @Test func yunetFindsEveryFaceOf24PxAndMoreInA1024PxCrowd() throws {
        let model = packageRoot.appendingPathComponent("models/yunet-any.onnx").path
        try #require(FileManager.default.fileExists(atPath: model), "run scripts/fetch-yunet (scripts/test does)")
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let truth = try makeCrowd(at: photos.appendingPathComponent("crowd.jpg"))
        #expect(truth.allSatisfy { (24...40).contains($0.width) })
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", "yunet", "--model", model,
                                      "--min-face", "24"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let found = try readManifest(output).compactMap { rect($0["bbox"]) }
        let missed = truth.filter { face in !found.contains { intersectionOverUnion($0, face) >= 0.5 } }
        #expect(missed.isEmpty, "missed \(missed.count) of \(truth.count): \(missed)")
        #expect(found.count == truth.count, "\(found.count) boxes for \(truth.count) faces")
    }

    /// CenterFace on the same crowd, at --min-face 20: it draws two of the
    /// 24-25 px faces 22-23 px wide, which --min-face 24 would drop (78 of 80).
    @Test func centerFaceFindsEveryFaceOf24PxAndMoreInA1024PxCrowd() throws {
        let model = DetectionTests.centerFaceModel
        try #require(FileManager.default.fileExists(atPath: model), "run scripts/make-centerface-models (scripts/test does)")
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let truth = try makeCrowd(at: photos.appendingPathComponent("crowd.jpg"))
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet", "--detector", "centerface", "--model", model,
                                      "--min-face", "20"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let found = try readManifest(output).compactMap { rect($0["bbox"]) }
        let missed = truth.filter { face in !found.contains { intersectionOverUnion($0, face) >= 0.5 } }
        #expect(missed.isEmpty, "missed \(missed.count) of \(truth.count): \(missed)")
        #expect(found.count == truth.count, "\(found.count) boxes for \(truth.count) faces")
    }

    /// The crowd tiles' rule on real pixels: the first pass on the mosaic
    /// above finds faces near the bottom of CenterFace's reach and the tiles
    /// run; on a portrait (Grace Hopper) they do not. With the tiles, no
    /// face of the crowd is found twice.
    @Test func centerFaceTilesRunOnACrowdAndNotOnAPortrait() throws {
        let model = DetectionTests.centerFaceModel
        try #require(FileManager.default.fileExists(atPath: model), "run scripts/make-centerface-models (scripts/test does)")
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let crowdPath = work.appendingPathComponent("crowd.jpg")
        let truth = try makeCrowd(at: crowdPath)
        let network = try CenterFace(path: model)
        func plan(_ path: String, minFace: Int) throws -> (CrowdTiles.Plan?, RGBImage) {
            try Vips.start()
            let bytes = try PhotoBytes(path: path, source: path)
            let header = try Picture.header(of: bytes, source: path)
            let rgb = try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: path)
                .rgbPixels(source: path)
            let first = try network.detect(rgb, minScore: 0.56, source: path)
            let canvas = network.canvas(width: rgb.width, height: rgb.height)
            return (CrowdTiles.plan(first.map(\.box), width: rgb.width, height: rgb.height, canvas: canvas, minSide: minFace), rgb)
        }
        let (crowdPlan, crowd) = try plan(crowdPath.path, minFace: 20)
        #expect(crowdPlan?.tiles.count == 9, "\(String(describing: crowdPlan))")
        let (portraitPlan, _) = try plan(fixtures.appendingPathComponent("faces/grace_hopper.jpg").path, minFace: 20)
        #expect(portraitPlan == nil)
        let found = try network.detectWithTiles(crowd, minScore: 0.56, minSide: 20, source: "crowd").map(\.box)
        for face in truth {
            #expect(found.filter { intersectionOverUnion($0, face) >= 0.3 }.count == 1, "\(face)")
        }
    }
}
