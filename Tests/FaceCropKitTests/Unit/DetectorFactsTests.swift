import Foundation
import Testing
import FaceCropCore
import FaceCropDetect
import FaceCropOutput
import FaceCropFinish

/// Each detector's facts as the rest of facecrop reads them: the options'
/// defaults, the settings' members and the dataset card's line, for every
/// `DetectorKind` (a detector added without its facts does not compile).
struct DetectorFactsTests {
    static func settings(_ kind: DetectorKind, target: Target = .face) -> JSON {
        var options = Options()
        options.detector = kind
        options.target = target
        return Stats.settingsJSON(CropSettings(options), cascadePath: "/nonexistent/cascade.xml", modelPath: "/nonexistent/model.onnx")
    }

    @Test(arguments: DetectorKind.allCases)
    func theSettingsNameWhatRanAndOnlyThat(kind: DetectorKind) {
        let settings = Self.settings(kind)
        #expect((settings["runtime"] != nil) == (kind == .centerface || kind == .yunet), "\(kind)")
        #expect((settings["crowd_tiles"] != nil) == (kind == .centerface), "\(kind)")
        #expect((settings["model_sha256"]?.text ?? "") == "", "no model file here: \(kind)")
        // Another target finds no faces with the detector: no runtime, no tiles.
        let bodies = Self.settings(kind, target: .upperbody)
        #expect(bodies["runtime"] == nil && bodies["crowd_tiles"] == nil, "\(kind)")
    }

    @Test func theCardNamesTheDetectorThatRan() {
        let centerface = DatasetCard.detectorLine(Self.settings(.centerface))
        #expect(centerface.hasPrefix("`centerface` (CenterFace on onnxruntime 1.32.0, model SHA-256"), "\(centerface)")
        #expect(centerface.contains("scoring at least 0.56"), "\(centerface)")
        let yunet = DatasetCard.detectorLine(Self.settings(.yunet))
        #expect(yunet.hasPrefix("`yunet` (YuNet on onnxruntime 1.32.0, model SHA-256"), "\(yunet)")
        let haar = DatasetCard.detectorLine(Self.settings(.haar))
        #expect(haar.hasPrefix("`haar` (OpenCV's cascade `cascade.xml`") && !haar.contains("scoring"), "\(haar)")
        let cascade = DatasetCard.detectorLine(Self.settings(.cascade))
        #expect(cascade.hasPrefix("`cascade` (OpenCV cascades, the frontal one `cascade.xml`"), "\(cascade)")
    }

    /// The networks choose a detection size per photo within their reach;
    /// the cascades detect every photo at one size.
    @Test func detectionSizes() {
        #expect(DetectorKind.cascade.facts.fixedDetectSize == 1024 && DetectorKind.haar.facts.fixedDetectSize == 1024)
        #expect(DetectorKind.centerface.facts.detectSize(longSide: 4000, minFace: 48) == 1280)
        #expect(DetectorKind.centerface.facts.detectSize(longSide: 1000, minFace: 48) == 1024)
        #expect(DetectorKind.yunet.facts.detectSize(longSide: 1000, minFace: 48) == 640)
        #expect(DetectorKind.yunet.facts.detectSize(longSide: 3000, minFace: 60) == 1000)
    }
}
