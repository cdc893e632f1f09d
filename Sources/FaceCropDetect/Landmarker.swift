import CFaceDetect
import Foundation
import Synchronization
import FaceCropCore
import FaceCropImaging

/// dlib's 5-point landmark predictor: the pose of faces whose detector gives
/// no landmarks, and the points the face descriptor's chip is made from
/// (`Embedder`). One a process: every worker's detector, and its pose and
/// descriptor, run the same one (`Detector(sharing:)`).
///
/// Sendable: dlib's predictor is only read once loaded (its `operator()` is
/// const and keeps no state; dlib documents one instance as usable from many
/// threads at once), so it needs no lock.
package final class Landmarker: @unchecked Sendable {
    /// Lent to `Embedder` for each descriptor; this object keeps it alive.
    let handle: OpaquePointer
    /// The model file, so that a detector finds the one already loaded.
    package let path: String

    package init(path: String) throws(FaceCropError) {
        self.path = path
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        guard CFaceDetect_LandmarkerNew(path, &handle, &message) == 0, let handle else {
            throw .peopleModelsUnavailable(takeMessage(message, fallback: "could not load", free: CFaceDetect_Free))
        }
        self.handle = handle
    }

    deinit { CFaceDetect_LandmarkerClose(handle) }

    /// dlib's five points (see CFaceDetect_LandmarkerFind) for `box` in
    /// `gray`'s pixels, in the same pixels.
    package func find(_ box: PixelRect, in gray: GrayImage, source: String) throws(FaceCropError) -> [Point2D] {
        var out = [Float](repeating: 0, count: 10)
        var message: UnsafeMutablePointer<CChar>?
        let status = gray.pixels.withUnsafeBufferPointer { pixels in
            out.withUnsafeMutableBufferPointer {
                CFaceDetect_LandmarkerFind(
                    handle, pixels.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, Int32(box.x),
                    Int32(box.y), Int32(box.width), Int32(box.height), $0.baseAddress, &message)
            }
        }
        guard status == 0 else {
            throw .detectionFailed(source, reason: takeMessage(message, fallback: "landmark predictor failed", free: CFaceDetect_Free))
        }
        return (0..<5).map { Point2D(Double(out[2 * $0]), Double(out[2 * $0 + 1])) }
    }

    /// dlib's five points for `box` of `gray`, a decode of a photo whose
    /// upright size is `full`, in that photo's pixels.
    package func find(_ box: PixelRect, in gray: GrayImage, full: (width: Int, height: Int), source: String) throws(FaceCropError)
        -> [Point2D]
    {
        let (sx, sy) = (Double(full.width) / Double(gray.width), Double(full.height) / Double(gray.height))
        return try find(box, in: gray, source: source).map { Point2D(($0.x + 0.5) * sx - 0.5, ($0.y + 0.5) * sy - 0.5) }
    }
}

/// dlib's 5-point predictor for the pose of faces without landmarks, loaded
/// at its first use: a network detector's faces carry five landmarks, so a
/// run with one needs it only for faces from face tags. Unloaded it is not
/// resident: peak RSS of a CenterFace run on 26 photos of 12 MP, --jobs 2,
/// 304.6 -> 290.9 MiB (docs/measurements.md, "Where CenterFace's peak
/// goes"). The cascades load it as their detector is made (`load`): every
/// face of theirs needs it.
///
/// Thread-safe: the first caller loads it under `loaded`'s lock, the
/// others wait and get the same predictor, or the same failure.
package final class PosePredictor: Sendable {
    /// The model file.
    package let path: String
    private let loaded: Mutex<Result<Landmarker, FaceCropError>?>

    /// `already`: the predictor of the same file another part loaded (the
    /// face descriptor's, with --people), used as it is.
    package init(path: String, already: Landmarker?) {
        self.path = path
        loaded = Mutex(already.map { .success($0) })
    }

    /// The predictor: loaded now if this is the first call.
    package func load() throws(FaceCropError) -> Landmarker {
        let result = loaded.withLock { state -> Result<Landmarker, FaceCropError> in
            if let state { return state }
            let made: Result<Landmarker, FaceCropError>
            do throws(FaceCropError) {
                made = .success(try Landmarker(path: path))
            } catch {
                made = .failure(error)
            }
            state = made
            return made
        }
        return try result.get()
    }

    /// The predictor if it is loaded, without loading it.
    package var ifLoaded: Landmarker? {
        loaded.withLock { state in
            if case .success(let landmarker)? = state { return landmarker }
            return nil
        }
    }
}
