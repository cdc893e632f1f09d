// Detect/: the face finders, one file each, over the CFaceDetect shim.
// May import CFaceDetect and Foundation; knows nothing of photos' files,
// only of the pixels it is handed.
import CFaceDetect
import Foundation

/// The CenterFace network of a process: one cv::dnn network per canvas size
/// in use (at most `maxNets`), because OpenCV 4.6 gives wrong results when
/// one network is run at a second input size (CFaceDetect_CenterFaceNew).
///
/// Shared by every worker, lent under a lock: the shim holds one network
/// per canvas size and the passes of all threads take turns on it (one at a
/// time, on every core through OpenCV's own threads), while decoding,
/// cropping and writing go on in parallel. That lock, inside the handle, is
/// what makes the `@unchecked Sendable` sound; the handle is closed by
/// `deinit` once no worker holds this object.
final class CenterFace: @unchecked Sendable {
    /// Networks alive at once: the detection size and the 320 px
    /// large-face pass, in landscape and in portrait. One 1024 x 768 network
    /// keeps ~178 MB of layer buffers in OpenCV 4.6; fewer than four makes
    /// a library of landscape and portrait photos make a network again at
    /// every change of orientation (docs/centerface.md, "One network per
    /// size").
    static let maxNets = 4

    private let handle: OpaquePointer

    init(path: String, maxNets: Int = CenterFace.maxNets) throws(FaceCropError) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        guard CFaceDetect_CenterFaceNew(path, Int32(maxNets), &handle, &message) == 0, let handle else {
            throw .modelUnavailable(path, reason: takeMessage(message, fallback: "could not load", free: CFaceDetect_Free))
        }
        self.handle = handle
    }

    deinit { CFaceDetect_CenterFaceClose(handle) }

    /// Networks (canvas sizes) held now.
    var netCount: Int { Int(CFaceDetect_CenterFaceNetCount(handle)) }

    /// The canvas a `width` x `height` image is padded onto.
    static func canvas(width: Int, height: Int) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        CFaceDetect_CenterFaceCanvas(Int32(width), Int32(height), &w, &h)
        return (Int(w), Int(h))
    }

    /// The faces of the whole image: its canvas, and the 320 px pass for
    /// the large ones.
    func detect(_ rgb: RGBImage, minScore: Float, source: String) throws(FaceCropError) -> [Subject] {
        guard rgb.width > 0, rgb.height > 0 else { return [] }
        var faces: UnsafeMutablePointer<CFaceDetect_YuNetFace>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = rgb.pixels.withUnsafeBufferPointer {
            CFaceDetect_CenterFaceDetect(
                handle, $0.baseAddress, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, max(minScore, 0.01), 0.3,
                &faces, &count, &message)
        }
        let found = try takeCArray(status, faces, count: count, message: message, source: source, failure: "CenterFace failed")
        return Self.subjects(found, width: rgb.width, height: rgb.height)
    }

    /// The faces of one region of the image enlarged `factor` times (a
    /// crowd tile), in the image's pixels; boxes are clipped to the region.
    func detect(_ rgb: RGBImage, region: PixelRect, factor: Double, minScore: Float, source: String)
        throws(FaceCropError) -> [Subject]
    {
        guard rgb.width > 0, rgb.height > 0 else { return [] }
        var faces: UnsafeMutablePointer<CFaceDetect_YuNetFace>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = rgb.pixels.withUnsafeBufferPointer {
            CFaceDetect_CenterFaceDetectRegion(
                handle, $0.baseAddress, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, Int32(region.x),
                Int32(region.y), Int32(region.width), Int32(region.height), factor, max(minScore, 0.01), &faces,
                &count, &message)
        }
        let found = try takeCArray(status, faces, count: count, message: message, source: source, failure: "CenterFace failed")
        return Self.subjects(found, width: rgb.width, height: rgb.height)
    }

    /// The network's faces as subjects: boxes rounded and clipped to the
    /// image, scores to four decimals, eyes from the five landmarks.
    private static func subjects(_ found: [CFaceDetect_YuNetFace], width: Int, height: Int) -> [Subject] {
        found.compactMap { face in
            guard let box = PixelRect(clipping: face, width: width, height: height) else { return nil }
            let five = FaceLandmarks(centerFace: face)
            let (a, b) = (five.points[0], five.points[1])
            let (left, right) = a.x <= b.x ? (a, b) : (b, a)
            return Subject(
                box: box,
                score: (Double(face.score) * 10_000).rounded() / 10_000,
                eyes: EyePair(x1: left.x, y1: left.y, x2: right.x, y2: right.y),
                five: five)
        }
    }

    /// The faces of the image, with the crowd tiles when `CrowdTiles`'
    /// rule fires on the first pass's faces (`minSide`: the smallest face
    /// wanted, in the image's pixels).
    func detectWithTiles(_ rgb: RGBImage, minScore: Float, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
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
