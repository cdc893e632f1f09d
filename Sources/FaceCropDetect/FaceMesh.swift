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

    /// The model's file name, made by scripts/fetch-face-mesh-model.
    package static let fileName = "face-mesh.onnx"

    /// The first of the model folders (`PeopleModels.folders`: where the
    /// other models are found) holding the model; nil: none does, and faces
    /// get no eye or face measures.
    package static func resolve() -> String? {
        PeopleModels.folders().map { $0 + "/" + fileName }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Loads the network from `model` (exit 69 naming it when it is not the
    /// face mesh). One thread a pass, as the descriptor: the workers are the
    /// parallelism.
    package init(model: String) throws(FaceCropError) {
        let runtime = try OnnxRuntime.shared()
        var options = OnnxRuntime.sessionOptions()
        options.intra_op_threads = 1
        handle = try openHandle({ CFaceDetect_FaceMeshNew(runtime.pointer, model, &options, &$0, &$1) }) {
            .modelUnavailable(model, reason: $0)
        }
        self.runtime = runtime
        path = model
    }

    deinit { CFaceDetect_FaceMeshClose(handle) }

    /// The mesh's points (chip pixels) and the face-presence probability, on
    /// the chip `chipToImage` maps out of `gray`.
    package func run(_ gray: GrayImage, chipToImage: Affine2D, source: String) throws(FaceCropError)
        -> (points: [Point2D], presence: Double)
    {
        let count = Int(CFaceDetect_FaceMeshPoints)
        var out = [Float](repeating: 0, count: 3 * count)
        var presence: Float = 0
        var message: UnsafeMutablePointer<CChar>?
        let m = [chipToImage.a, chipToImage.b, chipToImage.c, chipToImage.d, chipToImage.e, chipToImage.f]
        let status = gray.pixels.withUnsafeBufferPointer { pixels in
            out.withUnsafeMutableBufferPointer { values in
                CFaceDetect_FaceMeshRun(
                    handle, pixels.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, m, values.baseAddress,
                    &presence, &message)
            }
        }
        guard status == 0 else {
            throw .detectionFailed(source, reason: takeMessage(message, fallback: "face mesh failed", free: CFaceDetect_Free))
        }
        return ((0..<count).map { Point2D(Double(out[3 * $0]), Double(out[3 * $0 + 1])) }, Double(presence))
    }

    /// The eye and face measures of a face whose five points `points` (in
    /// `gray`'s pixels: the detector's, or dlib's with `fromDlib`) place its
    /// chip; nil where they make none.
    package func measure(_ gray: GrayImage, points: [Point2D], fromDlib: Bool, source: String) throws(FaceCropError)
        -> (eyesOpen: [Double], presence: Double)?
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
        let (found, presence) = try run(gray, chipToImage: chip, source: source)
        guard let eyes = FaceMeshMeasures.eyesOpen(found) else { return nil }
        return (eyes, (presence * 1000).rounded() / 1000)
    }
}
