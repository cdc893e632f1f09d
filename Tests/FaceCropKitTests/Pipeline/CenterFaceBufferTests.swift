import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropDetect

/// CenterFace keeps its canvas, its shrunk copy and its enlarged tile from
/// pass to pass (centerface.hpp, `Scratch`): what a larger canvas left in
/// them must not change a later, smaller pass's faces. One handle runs the
/// 1024 x 768 crowd of CrowdTests (its first pass, the large-face pass and
/// nine tiles), then Grace Hopper (a smaller canvas), then the crowd again;
/// each gives the faces a fresh handle gives.
@Suite(.serialized)
struct CenterFaceBufferTests {
    func rgb(_ path: String) throws -> RGBImage {
        try Vips.start()
        let bytes = try PhotoBytes(path: path, source: path)
        let header = try Picture.header(of: bytes, source: path)
        return try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: path)
            .rgbPixels(source: path)
    }

    func faces(_ network: CenterFace, _ image: RGBImage) throws -> [Subject] {
        try network.detectWithTiles(image, minScore: 0.56, minSide: 20, source: "photo")
    }

    @Test func keptBuffersGiveTheFacesOfAFreshHandle() throws {
        let model = DetectionTests.centerFaceModel
        try #require(FileManager.default.fileExists(atPath: model), "run scripts/make-centerface-models (scripts/test does)")
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let crowdPath = work.appendingPathComponent("crowd.jpg")
        _ = try CrowdTests().makeCrowd(at: crowdPath)
        let crowd = try rgb(crowdPath.path)
        let portrait = try rgb(fixtures.appendingPathComponent("faces/grace_hopper.jpg").path)
        #expect(portrait.width < crowd.width && portrait.height < crowd.height)

        let kept = try CenterFace(path: model)
        let crowdFirst = try faces(kept, crowd)
        let portraitAfter = try faces(kept, portrait)
        let crowdAgain = try faces(kept, crowd)
        #expect(crowdFirst.count >= 70, "\(crowdFirst.count) faces in the crowd")
        #expect(portraitAfter.count == 1)
        #expect(portraitAfter == (try faces(try CenterFace(path: model), portrait)))
        #expect(crowdAgain == crowdFirst)
        #expect(crowdFirst == (try faces(try CenterFace(path: model), crowd)))
    }

    /// A network detector's faces carry five landmarks, so dlib's pose
    /// predictor waits for its first use (`PosePredictor`): a face from a
    /// face tag. The cascades, whose faces all need it, load it at once.
    @Test func thePosePredictorWaitsForItsFirstUseWithANetwork() throws {
        try #require(PeopleModels.resolveLandmarks() != nil, "run scripts/fetch-dlib-models (scripts/test does)")
        try #require(FileManager.default.fileExists(atPath: DetectionTests.centerFaceModel))
        var options = Options()
        let cascade = try Detector(DetectorConfig.from(options))
        #expect(cascade.pose?.ifLoaded != nil)
        options.detector = .centerface
        options.model = DetectionTests.centerFaceModel
        let network = try Detector(DetectorConfig.from(options))
        let pose = try #require(network.pose)
        #expect(pose.ifLoaded == nil)
        let loaded = try pose.load()
        #expect(pose.ifLoaded === loaded)
        #expect(try Detector(DetectorConfig.from(options), sharing: network).pose === pose)
    }
}
