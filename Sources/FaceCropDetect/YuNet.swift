import CFaceDetect
import FaceCropCore
import FaceCropImaging

/// A YuNet face detection network. Not thread-safe: owned by one `YuNetFinder`.
package final class YuNet {
    private let handle: OpaquePointer

    package init(path: String) throws(FaceCropError) {
        handle = try openHandle({ CFaceDetect_YuNetNew(path, &$0, &$1) }) { .modelUnavailable(path, reason: $0) }
    }

    deinit { CFaceDetect_YuNetClose(handle) }

    package func detect(_ rgb: RGBImage, minScore: Float, source: String) throws(FaceCropError) -> [Subject] {
        try NetworkFaces.detect(rgb, failure: "YuNet failed", secondEyeOnTie: true, source: source) {
            pixels, faces, count, message in
            CFaceDetect_YuNetDetect(
                handle, pixels, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, minScore, 0.3, &faces, &count, &message)
        }
    }
}

/// `--detector yunet`: the YuNet network on the photo's colour pixels, faces
/// scoring at least --min-score, at least `minSide` long.
///
/// Not thread-safe: owns its networks; used by one `Detector`.
package final class YuNetFinder: FaceFinder, NetworkDetectorFacts {
    private let path: String
    private let network: YuNet
    private let minScore: Double
    /// A second network for `remeasured`, made on first use. OpenCV's DNN
    /// re-plans a network whenever its input size changes; one network kept
    /// at the remeasure's canvas and one at the detection size spare both
    /// that (it was most of the remeasure's cost).
    private var remeasureNet: YuNet?

    package init(path: String, minScore: Double) throws(FaceCropError) {
        self.path = path
        network = try YuNet(path: path)
        self.minScore = minScore
    }

    package var needsColour: Bool { true }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        let colour = rgb ?? RGBImage(width: 0, height: 0, pixels: [])
        let found = try network.detect(colour, minScore: Float(minScore), source: source)
            .filter { max($0.box.width, $0.box.height) >= minSide }
        return Self.boxCorrection.apply(found, width: gray.width, height: gray.height)
    }

    package func remeasured(_ landmarks: FaceLandmarks, in picture: Picture, source: String) throws(FaceCropError) -> FaceLandmarks {
        let net: YuNet
        if let made = remeasureNet {
            net = made
        } else {
            net = try YuNet(path: path)
            remeasureNet = net
        }
        return try Alignment.remeasured(landmarks, in: picture, source: source) { rgb throws(FaceCropError) in
            try net.detect(rgb, minScore: 0.5, source: source).compactMap(\.five)
        }
    }

    /// 0.8: dev-set precision 0.97 (0.7 gives 0.92). Its box fit is the
    /// identity (centre within 0.4 %, area 0.995): `DetectorFacts`' default
    /// correction.
    package static let defaultMinScore = 0.8

    /// The smallest face, in detection pixels, YuNet finds reliably at its
    /// default --min-score: 20 px. The network reaches 10 px, but such faces
    /// score below 0.8. Dev set tiled four photos to a 1024 px mosaic (faces
    /// >= 29.5 px), --min-face 24, recall at 0.8: 0.58 detected at 640 (JPEG
    /// reduction to 512, smallest face 15 px), 0.68 at 704, 0.71 at 768, 0.73
    /// at 854 (smallest face 24.6 px) and at 1024, as on the photos alone
    /// (0.72). On the Fixtures crowd mosaic (DetectionTests) every face was
    /// found from 19.7 px up, two of 80 missed at 18 px.
    package static let reach = 20.0
    /// From 640 up to 1280 px (about 4x the memory and time of 640).
    package static let leastDetectSize = 640

    package static let modelFile = ModelFile(
        network: "YuNet", fileName: "face_detection_yunet_2023mar.onnx", variable: "FACECROP_MODEL",
        fetchScript: "scripts/fetch-yunet")

    package static func finder(_ config: DetectorConfig, sharing other: (any FaceFinder)?) throws(FaceCropError) -> any FaceFinder {
        try YuNetFinder(path: ModelLocator.path(config, modelFile), minScore: config.minScore)
    }
}
