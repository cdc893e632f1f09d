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
package final class YuNetFinder: FaceFinder {
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
        return Calibration.boxCorrection(.yunet).apply(found, width: gray.width, height: gray.height)
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
}
