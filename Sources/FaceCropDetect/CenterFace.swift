import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// The CenterFace network of a process: one cv::dnn network per canvas size
/// in use (at most `maxNets`), because OpenCV 4.6 gives wrong results when
/// one network is run at a second input size (CFaceDetect_CenterFaceNew).
///
/// Shared by every worker, lent under a lock: the shim runs one pass at a
/// time, on every core through OpenCV's own threads, while the other
/// workers decode, crop and write. That lock, inside the handle, is what
/// makes the `@unchecked Sendable` sound; the handle is closed by `deinit`
/// once no worker holds this object.
package final class CenterFace: @unchecked Sendable {
    /// The canvas pixels of networks kept: one at the largest detection
    /// size (`largestSide` long, 3:4) and the large-face pass's 320 px ones.
    /// OpenCV 4.6 keeps ~178 MB of layer buffers for one 1024 x 768 network:
    /// keeping a landscape and a portrait one was 525-538 MiB on 12 MP
    /// photos, one at a time 366-371 MiB (docs/centerface.md, "One network,
    /// shared by the workers").
    package static func budget(largestSide: Int) -> Int {
        let big = canvas(width: largestSide, height: largestSide * 3 / 4)
        let small = canvas(width: 320, height: 240)
        return big.width * big.height + 3 * small.width * small.height
    }

    private let handle: OpaquePointer

    package init(path: String, budget: Int = CenterFace.budget(largestSide: Calibration.largestDetectSize)) throws(FaceCropError) {
        handle = try openHandle({ CFaceDetect_CenterFaceNew(path, budget, &$0, &$1) }) {
            .modelUnavailable(path, reason: $0)
        }
    }

    deinit { CFaceDetect_CenterFaceClose(handle) }

    /// Networks (canvas sizes) held now.
    package var netCount: Int { Int(CFaceDetect_CenterFaceNetCount(handle)) }

    /// The canvas a `width` x `height` image is padded onto.
    package static func canvas(width: Int, height: Int) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        CFaceDetect_CenterFaceCanvas(Int32(width), Int32(height), &w, &h)
        return (Int(w), Int(h))
    }

    /// The faces of the whole image: its canvas, and the 320 px pass for
    /// the large ones.
    package func detect(_ rgb: RGBImage, minScore: Float, source: String) throws(FaceCropError) -> [Subject] {
        try NetworkFaces.detect(rgb, failure: "CenterFace failed", secondEyeOnTie: false, source: source) {
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
        try NetworkFaces.detect(rgb, failure: "CenterFace failed", secondEyeOnTie: false, source: source) {
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
        let canvas = Self.canvas(width: rgb.width, height: rgb.height)
        guard let plan = CrowdTiles.plan(first.map(\.box), width: rgb.width, height: rgb.height, canvas: canvas, minSide: minSide)
        else { return first }
        var tiled: [(tile: PixelRect, faces: [Subject])] = []
        for tile in plan.tiles {
            let found = try detect(rgb, region: tile, factor: plan.factor, minScore: minScore, source: source)
            tiled.append((tile, found))
        }
        return CrowdTiles.merge(first, tiled: tiled, width: rgb.width, height: rgb.height)
    }
}

/// `--detector centerface`: the process's CenterFace networks on the photo's
/// colour pixels, with the crowd tiles when a photo is a crowd; faces scoring
/// at least --min-score, at least `minSide` long.
///
/// Not thread-safe itself (used by one `Detector`); its `CenterFace` is shared
/// by every worker's finder and locks.
package final class CenterFaceFinder: FaceFinder {
    package let network: CenterFace
    private let minScore: Double

    /// `sharing`: another worker's finder, whose networks this one uses too
    /// (one set per process).
    package init(path: String, minScore: Double, largestSide: Int, sharing other: CenterFaceFinder?) throws(FaceCropError) {
        if let other {
            network = other.network
        } else {
            network = try CenterFace(path: path, budget: CenterFace.budget(largestSide: largestSide))
        }
        self.minScore = minScore
    }

    package var needsColour: Bool { true }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        let colour = rgb ?? RGBImage(width: 0, height: 0, pixels: [])
        let found = try network.detectWithTiles(colour, minScore: Float(minScore), minSide: minSide, source: source)
            .filter { max($0.box.width, $0.box.height) >= minSide }
        return Calibration.boxCorrection(.centerface).apply(found, width: gray.width, height: gray.height)
    }
}
