import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// MediaPipe's Face Mesh network (468 points of the face, and a
/// face-presence score) on ONNX Runtime: the quality record's eye and face
/// measures (docs/quality.md). One for the process, shared by the workers
/// like the face descriptor (`Embedder`); its session is thread-safe and the
/// handle is only read once made, which makes the `@unchecked Sendable` sound.
package final class FaceMesh: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Kept so that the runtime outlives the session.
    private let runtime: OnnxRuntime
    package let path: String

    /// The models' file names, made by scripts/fetch-face-mesh-model: the
    /// face network, and beside it the iris network.
    package static let fileName = "face-mesh.onnx"
    package static let irisFileName = "face-mesh-iris.onnx"

    /// The iris network beside the face network at `path`.
    package static func irisPath(_ path: String) -> String {
        (path as NSString).deletingLastPathComponent + "/" + irisFileName
    }

    /// The first of the model folders (`PeopleModels.folders`: where the
    /// other models are found) holding the face model, where ONNX Runtime loads
    /// too; nil: either is missing, and faces get no eye or face measures
    /// (the default cascades run without ONNX Runtime, as before).
    package static func resolve() -> String? {
        guard let path = PeopleModels.folders().map({ $0 + "/" + fileName }).first(where: {
            FileManager.default.isReadableFile(atPath: $0)
        }) else { return nil }
        return (try? OnnxRuntime.shared()) == nil ? nil : path
    }

    /// Loads the networks from `model` and the iris network beside it (exit
    /// 69 naming the file that is missing or not the network). One thread a pass, as the descriptor: the workers are the
    /// parallelism. The runtime's memory arena on: without it every face's
    /// pass took its buffers (one planned block of several MB) fresh from
    /// the kernel, a quarter of a 12 MP CenterFace run's page faults once
    /// the canvas no longer did (docs/measurements.md, "CenterFace's passes
    /// without fresh pages").
    package init(model: String) throws(FaceCropError) {
        let runtime = try OnnxRuntime.shared()
        var options = OnnxRuntime.sessionOptions(arena: true)
        options.intra_op_threads = 1
        handle = try openHandle({ CFaceDetect_FaceMeshNew(runtime.pointer, model, Self.irisPath(model), &options, &$0, &$1) }) {
            .modelUnavailable(model, reason: $0)
        }
        self.runtime = runtime
        path = model
    }

    deinit { CFaceDetect_FaceMeshClose(handle) }

    /// The mesh's points (x, y, z triples in chip pixels), each eye's contour
    /// (the chip's left eye first; chip pixels; none without `withEyes`: the
    /// iris network is not run) and the face-presence probability, on the
    /// chip `chipToImage` maps out of `gray`.
    package func run(_ gray: GrayImage, chipToImage: Affine2D, withEyes: Bool = true, source: String) throws(FaceCropError)
        -> (points: [Double], eyes: [[Point2D]], presence: Double)
    {
        let (count, eye) = (Int(CFaceDetect_FaceMeshPoints), Int(CFaceDetect_EyeContourPoints))
        var out = [Float](repeating: 0, count: 3 * count)
        var eyes = [Float](repeating: 0, count: withEyes ? 4 * eye : 0)
        var presence: Float = 0
        var message: UnsafeMutablePointer<CChar>?
        let m = [chipToImage.a, chipToImage.b, chipToImage.c, chipToImage.d, chipToImage.e, chipToImage.f]
        let status = gray.pixels.withUnsafeBufferPointer { pixels in
            out.withUnsafeMutableBufferPointer { values in
                eyes.withUnsafeMutableBufferPointer { contour in
                    CFaceDetect_FaceMeshRun(
                        handle, pixels.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, m,
                        values.baseAddress, &presence, withEyes ? contour.baseAddress : nil, &message)
                }
            }
        }
        guard status == 0 else {
            throw .detectionFailed(source, reason: takeMessage(message, fallback: "face mesh failed", free: CFaceDetect_Free))
        }
        let points = out.map(Double.init)
        let contours = (0..<(withEyes ? 2 : 0)).map { e in
            (0..<eye).map { Point2D(Double(eyes[2 * (e * eye + $0)]), Double(eyes[2 * (e * eye + $0) + 1])) }
        }
        return (points, contours, Double(presence))
    }

    /// The eye and face measures of a face whose five points `points` (in
    /// `gray`'s pixels: the detector's, or dlib's with `fromDlib`) place its
    /// chip, and the head's yaw and roll from the mesh (`MeshPose`); nil
    /// where they make none. `rgb` (the same picture in colour; nil: none)
    /// gives the covered-face measure its colours. Eyes closer than
    /// `FaceMeshMeasures.minEyeDistance` get no openness, and closer than
    /// `FaceOcclusion.minEyeDistance` no occlusion.
    package func measure(_ gray: GrayImage, rgb: RGBImage?, points: [Point2D], fromDlib: Bool, source: String)
        throws(FaceCropError)
        -> (eyesOpen: [Double]?, presence: Double, angles: (yaw: Double, roll: Double)?, covered: FaceOcclusion.Covered?)?
    {
        guard points.count == 5 else { return nil }
        func mean(_ p: Point2D, _ q: Point2D) -> Point2D { Point2D((p.x + q.x) / 2, (p.y + q.y) / 2) }
        // dlib: two corners of each eye, then the base of the nose; the
        // detectors: the eye centres, the nose tip, the mouth's corners.
        let (a, b, below) = fromDlib
            ? (mean(points[0], points[1]), mean(points[2], points[3]), points[4])
            : (points[0], points[1], mean(points[3], points[4]))
        let side = Int(CFaceDetect_FaceMeshSide)
        guard let chip = FaceMeshMeasures.chip(eyeA: a, eyeB: b, below: below, side: side) else { return nil }
        let distance = hypot(b.x - a.x, b.y - a.y)
        // Eyes under the floor are not read: their two iris passes are saved.
        let readEyes = distance >= FaceMeshMeasures.minEyeDistance
        let found = try run(gray, chipToImage: chip, withEyes: readEyes, source: source)
        let eyes = found.eyes.compactMap(FaceMeshMeasures.openness)
        guard eyes.count == (readEyes ? 2 : 0) else { return nil }
        let covered = distance < FaceOcclusion.minEyeDistance
            ? nil
            : FaceOcclusion.measure(
                chip: Self.cut(gray.pixels, width: gray.width, height: gray.height, channels: 1, chip, side: side),
                colour: rgb.map { Self.cut($0.pixels, width: $0.width, height: $0.height, channels: 3, chip, side: side) } ?? [],
                side: side, points: (0..<found.points.count / 3).map { Point2D(found.points[3 * $0], found.points[3 * $0 + 1]) },
                presence: found.presence)
        return (
            readEyes ? eyes : nil, (found.presence * 1000).rounded() / 1000,
            MeshPose.angles(found.points, chipToImage: chip), covered
        )
    }

    /// The `side` px square `chipToImage` maps out of `pixels` (`width` x
    /// `height`, `channels` bytes a pixel, rows packed), the network's chip
    /// cut again (bilinear, edges repeated): what `FaceOcclusion` reads.
    /// About 37,000 samples a face and channel, against the two networks' passes.
    static func cut(_ pixels: [UInt8], width: Int, height: Int, channels: Int, _ chipToImage: Affine2D, side: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: side * side * channels)
        func pixel(_ x: Int, _ y: Int, _ c: Int) -> Double {
            Double(pixels[(min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)) * channels + c])
        }
        for y in 0..<side {
            for x in 0..<side {
                let p = chipToImage.apply(Point2D(Double(x), Double(y)))
                let (x0, y0) = (Int(p.x.rounded(.down)), Int(p.y.rounded(.down)))
                let (fx, fy) = (p.x - Double(x0), p.y - Double(y0))
                for c in 0..<channels {
                    let v = pixel(x0, y0, c) * (1 - fx) * (1 - fy) + pixel(x0 + 1, y0, c) * fx * (1 - fy)
                        + pixel(x0, y0 + 1, c) * (1 - fx) * fy + pixel(x0 + 1, y0 + 1, c) * fx * fy
                    bytes[(y * side + x) * channels + c] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        return bytes
    }
}
