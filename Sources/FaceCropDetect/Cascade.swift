import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// A box found by a detector, in the pixels of the image it searched.
package struct Detection: Sendable, Equatable {
    package var box: PixelRect
    /// Higher is more confident (the cascade's final-stage level weight).
    package var score: Double
}

/// An OpenCV cascade classifier (Haar or LBP).
///
/// Not thread-safe: owns a cv::CascadeClassifier; lent to one task at a time
/// by the pipeline, which hands it to the next task only after the previous
/// one has finished with it. That hand-over is what makes the
/// `@unchecked Sendable` sound.
package final class Cascade: @unchecked Sendable {
    package let handle: OpaquePointer
    package let path: String
    /// The classifier's window: the smallest object it can find.
    package let windowSide: Int

    package init(path: String) throws(FaceCropError) {
        handle = try openHandle({ CFaceDetect_CascadeNew(path, &$0, &$1) }) { .cascadeUnavailable(path, reason: $0) }
        self.path = path
        var w: Int32 = 0
        var h: Int32 = 0
        CFaceDetect_CascadeWindow(handle, &w, &h)
        windowSide = Int(max(w, h))
    }

    deinit { CFaceDetect_CascadeClose(handle) }

    /// Sets OpenCV's own thread pool size (1: detection runs on the caller's thread).
    package static func setLibraryThreads(_ count: Int) {
        CFaceDetect_SetNumThreads(Int32(count))
    }

    package struct Parameters: Sendable {
        package var scaleFactor = 1.1
        package var minNeighbors = 4
        package var minSide = 0
        package var maxSide = 0
        package var equalize = true

        package init(scaleFactor: Double = 1.1, minNeighbors: Int = 4, minSide: Int = 0, maxSide: Int = 0,
            equalize: Bool = true) {
            (self.scaleFactor, self.minNeighbors, self.minSide) = (scaleFactor, minNeighbors, minSide)
            (self.maxSide, self.equalize) = (maxSide, equalize)
        }
    }

    package func detect(in image: GrayImage, _ parameters: Parameters, source: String) throws(FaceCropError) -> [Detection] {
        var params = CFaceDetect_Params(
            scale_factor: parameters.scaleFactor, min_neighbors: Int32(parameters.minNeighbors),
            min_side: Int32(clamping: max(parameters.minSide, windowSide)),
            max_side: Int32(clamping: parameters.maxSide), equalize: parameters.equalize ? 1 : 0)
        var boxes: UnsafeMutablePointer<CFaceDetect_Box>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            CFaceDetect_CascadeDetect(
                handle, pixels.baseAddress, Int32(image.width), Int32(image.height), image.width,
                &params, &boxes, &count, &message)
        }
        return try takeCArray(status, boxes, count: count, message: message, source: source).map {
            Detection(
                box: PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)),
                score: $0.score)
        }
    }
}

/// The folder of Debian's Haar cascades, from which a finder loads the
/// ones it needs by name (the LBP ones lie beside it, in `lbpcascades/`).
package struct CascadeFolder {
    /// Where Debian's opencv-data (and other common layouts) keep the cascades.
    package static let candidates = [
        "/usr/share/opencv4/haarcascades",
        "/usr/share/opencv/haarcascades",
        "/usr/local/share/opencv4/haarcascades",
    ]
    package static let defaultCascade = "haarcascade_frontalface_alt2.xml"

    /// `given` if given, else the first readable `name` in `candidates`, else
    /// where it would be in the first of them.
    package static func resolve(_ given: String?, name: String = defaultCascade) -> String {
        if let given { return given }
        for folder in candidates {
            let path = folder + "/" + name
            if access(path, R_OK) == 0 { return path }
        }
        return candidates[0] + "/" + name
    }

    package var path: String

    package func load(_ name: String) throws(FaceCropError) -> Cascade {
        try Cascade(path: (path as NSString).appendingPathComponent(name))
    }

    package func loadLBP(_ name: String) throws(FaceCropError) -> Cascade {
        let share = (path as NSString).deletingLastPathComponent as NSString
        return try Cascade(path: share.appendingPathComponent("lbpcascades/" + name))
    }
}

/// The handle a CFaceDetect constructor (`make`, given where to put the
/// handle and the message) made, or, when it made none, its message (else
/// `fallback`) thrown as `failure` makes it.
package func openHandle(
    _ make: (inout OpaquePointer?, inout UnsafeMutablePointer<CChar>?) -> Int32, fallback: String = "could not load",
    failure: (String) -> FaceCropError
) throws(FaceCropError) -> OpaquePointer {
    var handle: OpaquePointer?
    var message: UnsafeMutablePointer<CChar>?
    guard make(&handle, &message) == 0, let handle else {
        throw failure(takeMessage(message, fallback: fallback, free: CFaceDetect_Free))
    }
    return handle
}

/// The list a CFaceDetect call handed out: its items copied into Swift and
/// the shim's allocation freed, or, when `status` is not 0, the call's
/// message thrown as a detection failure.
package func takeCArray<Item>(
    _ status: Int32, _ items: UnsafeMutablePointer<Item>?, count: Int, message: UnsafeMutablePointer<CChar>?,
    source: String, failure: String = "detection failed"
) throws(FaceCropError) -> [Item] {
    defer { CFaceDetect_Free(items) }
    guard status == 0 else {
        throw .detectionFailed(source, reason: takeMessage(message, fallback: failure, free: CFaceDetect_Free))
    }
    guard let items else { return [] }
    return Array(UnsafeBufferPointer(start: items, count: count))
}
