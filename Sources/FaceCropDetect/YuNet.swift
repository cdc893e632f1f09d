import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// The YuNet network of a process, on ONNX Runtime (`OnnxRuntime`): one
/// session for every worker, every input size and the remeasure pass (ONNX
/// Runtime runs any size correctly and does not plan again when the size
/// changes, so the second network cv::dnn needed for the remeasure is gone).
///
/// Shared as CenterFace's is: one pass at a time under `lock`, each pass on
/// every core through the runtime's intra-op threads. The lock is what makes
/// the `@unchecked Sendable` sound; the handle is closed by `deinit` once no
/// worker holds this object, before the runtime it keeps.
package final class YuNet: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Kept so that the runtime outlives the handle.
    private let runtime: OnnxRuntime
    private let lock = NSLock()

    package init(path: String, runtime: OnnxRuntime) throws(FaceCropError) {
        self.runtime = runtime
        var options = OnnxRuntime.sessionOptions(arena: true, pattern: false, sizeFree: true, sizedArena: true)
        handle = try openHandle({ CFaceDetect_YuNetNew(runtime.pointer, path, &options, &$0, &$1) }) {
            .modelUnavailable(path, reason: $0)
        }
    }

    /// On the process's runtime, loading it if this is the first network.
    package convenience init(path: String) throws(FaceCropError) {
        try self.init(path: path, runtime: OnnxRuntime.shared())
    }

    deinit { CFaceDetect_YuNetClose(handle) }

    package func detect(_ rgb: RGBImage, minScore: Float, source: String) throws(FaceCropError) -> [Subject] {
        lock.lock()
        defer { lock.unlock() }
        return try NetworkFaces.detect(rgb, failure: "YuNet failed", secondEyeOnTie: true, source: source) {
            pixels, faces, count, message in
            CFaceDetect_YuNetDetect(
                handle, pixels, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, minScore, 0.3, &faces, &count, &message)
        }
    }
}

/// `--detector yunet`: the process's YuNet network on the photo's colour
/// pixels, faces scoring at least --min-score, at least `minSide` long.
///
/// Not thread-safe itself (used by one `Detector`); its `YuNet` is shared by
/// every worker's finder and locks.
package final class YuNetFinder: FaceFinder, NetworkDetectorFacts {
    package let network: YuNet
    private let minScore: Double

    /// `sharing`: another worker's finder, whose network this one uses too
    /// (one per process).
    package init(path: String, minScore: Double, sharing other: YuNetFinder? = nil) throws(FaceCropError) {
        if let other {
            network = other.network
        } else {
            network = try YuNet(path: path)
        }
        self.minScore = minScore
    }

    package var needsColour: Bool { true }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        let colour = rgb ?? RGBImage(width: 0, height: 0, pixels: [])
        let found = try network.detect(colour, minScore: Float(minScore), source: source)
            .filter { max($0.box.width, $0.box.height) >= minSide }
        return Self.boxCorrection.apply(found, width: gray.width, height: gray.height)
    }

    /// The same network on the face cut upright (`Alignment.remeasured`).
    package func remeasured(_ landmarks: FaceLandmarks, in picture: Picture, source: String) throws(FaceCropError) -> FaceLandmarks {
        try Alignment.remeasured(landmarks, in: picture, source: source) { rgb throws(FaceCropError) in
            try network.detect(rgb, minScore: 0.5, source: source).compactMap(\.five)
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

    /// The size-free copy of the shipped model (whose input is fixed at
    /// 640 x 640) that scripts/fetch-yunet makes, which ONNX Runtime runs at
    /// the photo's size.
    package static let modelFile = ModelFile(
        network: "YuNet", fileName: "yunet-any.onnx", variable: "FACECROP_MODEL", fetchScript: "scripts/fetch-yunet")

    package static var runtime: String? { OnnxRuntime.settingsValue }

    /// Its pass on the photo finds few turned faces (34 of 93 held-out
    /// portraits stored turned), so a photo where it finds none is searched
    /// on the turned canvases too; and it reads many faces upside down as
    /// upright ones, so each face read upright is checked on its chip
    /// turned a half (`TurnedFaces.halfChecked`).
    package static var turnedRule: TurnedFaces.Rule? { .landmarksHalfAndCanvases }

    /// Its points read a head rolled 45 degrees as rolled some 17 degrees
    /// less (held-out portraits), and it misses some (35 of 40 found): such a face is found again on the canvas
    /// turned back by its roll (`TurnedFaces.relevelled`), and a photo with
    /// no sure face searched on canvases rolled 45 degrees each way too
    /// (`TurnedFaces.withRolledCanvases`).
    package static var rolledRule: String? { "relevel20+rolled45" }

    package static func finder(_ config: DetectorConfig, sharing other: (any FaceFinder)?) throws(FaceCropError) -> any FaceFinder {
        try YuNetFinder(path: ModelLocator.path(config, modelFile), minScore: config.minScore, sharing: other as? YuNetFinder)
    }
}
