import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// dlib's 5-point landmark predictor, for the pose of faces whose detector
/// gives no landmarks. Not thread-safe: owned by one `Detector`.

package final class Landmarker {
    private let handle: OpaquePointer

    package init(path: String) throws(FaceCropError) {
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
