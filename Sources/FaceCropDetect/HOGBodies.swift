import CFaceDetect
import FaceCropCore
import FaceCropImaging

/// OpenCV's HOG people detector (`getDefaultPeopleDetector`): standing
/// people's whole bodies. The finder of `--target body` (HOG finds standing
/// people far more reliably than the full-body cascade), and the bodies
/// `--person-only` places faces on (`PersonRule`).
///
/// Not thread-safe: owns a cv::HOGDescriptor; used by one `Detector`.
package final class HOGBodies: FaceFinder {
    private let handle: OpaquePointer

    package init() throws(FaceCropError) {
        handle = try openHandle({ CFaceDetect_BodiesNew(&$0, &$1) }, fallback: "failed") {
            .libraryFailed("cannot set up the HOG people detector: \($0)")
        }
    }

    deinit { CFaceDetect_BodiesClose(handle) }

    /// The bodies of the photo as it is, at least `minSide` long.
    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        try detect(gray, source: source).map { Subject(box: $0.box, score: $0.score, eyes: nil) }
            .filter { max($0.box.width, $0.box.height) >= minSide }
    }

    /// `pastFrame`: also find people cut by the frame (see CFaceDetect_BodiesDetect);
    /// their boxes may reach outside `gray`.
    package func detect(_ gray: GrayImage, pastFrame: Bool = false, source: String) throws(FaceCropError)
        -> [(box: PixelRect, score: Double)]
    {
        var boxes: UnsafeMutablePointer<CFaceDetect_Box>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = gray.pixels.withUnsafeBufferPointer {
            CFaceDetect_BodiesDetect(
                handle, $0.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, 0, pastFrame ? 1 : 0, &boxes, &count,
                &message)
        }
        return try takeCArray(
            status, boxes, count: count, message: message, source: source, failure: "people detection failed"
        ).map {
            (PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)), $0.score)
        }
    }
}
