import CFaceDetect
import FaceCropCore
import FaceCropImaging

/// What YuNet and CenterFace share on this side of the shim: both hand out
/// `CFaceDetect_YuNetFace`s, which become subjects here, once.
package enum NetworkFaces {
    /// A shim call on `rgb`'s pixels (3 bytes a pixel, `rgb.width * 3` a
    /// row) that hands out faces, their count and, on failure, a message.
    package typealias Call = (
        _ pixels: UnsafePointer<UInt8>?, _ faces: inout UnsafeMutablePointer<CFaceDetect_YuNetFace>?, _ count: inout Int,
        _ message: inout UnsafeMutablePointer<CChar>?
    ) -> Int32

    /// The faces `call` finds on `rgb`, as subjects: boxes rounded and
    /// clipped to the image (dropped when nothing is left), scores to four
    /// decimals, the five landmarks in the network's order, the eyes left in
    /// the image first. `secondEyeOnTie`: which eye comes first when both lie
    /// in one column (YuNet has always put the second, CenterFace the first).
    /// No faces on an empty image; a failed call throws `failure` with its
    /// message.
    package static func detect(
        _ rgb: RGBImage, failure: String, secondEyeOnTie: Bool, source: String, _ call: Call
    ) throws(FaceCropError) -> [Subject] {
        guard rgb.width > 0, rgb.height > 0 else { return [] }
        var faces: UnsafeMutablePointer<CFaceDetect_YuNetFace>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = rgb.pixels.withUnsafeBufferPointer { call($0.baseAddress, &faces, &count, &message) }
        let found = try takeCArray(status, faces, count: count, message: message, source: source, failure: failure)
        return found.compactMap { face in
            guard let box = PixelRect(clipping: face, width: rgb.width, height: rgb.height) else { return nil }
            let five = FaceLandmarks(network: face)
            let (a, b) = (five.points[0], five.points[1])
            let firstIsLeft = secondEyeOnTie ? a.x < b.x : a.x <= b.x
            let (left, right) = firstIsLeft ? (a, b) : (b, a)
            return Subject(
                box: box,
                score: (Double(face.score) * 10_000).rounded() / 10_000,
                eyes: EyePair(x1: left.x, y1: left.y, x2: right.x, y2: right.y),
                five: five)
        }
    }
}

extension FaceLandmarks {
    /// A network's five points, in the order it gives them. YuNet's: the
    /// person's right eye, left eye, nose tip, right and left mouth corner;
    /// CenterFace's (trained on WIDER FACE's RetinaFace annotation): the eye
    /// on the image's left, the other eye, nose tip, then the mouth corner on
    /// the image's left and the other one (checked on
    /// Fixtures/faces/portrait.jpg by DetectionTests). In an upright face both
    /// are image-left first, the order of `Name` and of ArcFace's template;
    /// they are kept in the network's order (not sorted by x), so that a
    /// turned face keeps its eyes and mouth corners paired the right way round.
    package init(network face: CFaceDetect_YuNetFace) {
        let l = face.landmarks
        let pairs = [(l.0, l.1), (l.2, l.3), (l.4, l.5), (l.6, l.7), (l.8, l.9)]
        self.init(pairs.map { Point2D(Double($0.0), Double($0.1)) })
    }
}

extension PixelRect {
    /// A network's face box (YuNet, CenterFace) rounded to whole pixels and
    /// clipped to the `width` x `height` image searched; nil when nothing of
    /// it is left.
    package init?(clipping face: CFaceDetect_YuNetFace, width: Int, height: Int) {
        let x0 = max(0, Int(face.x.rounded())), y0 = max(0, Int(face.y.rounded()))
        let x1 = min(width, Int((face.x + face.width).rounded()))
        let y1 = min(height, Int((face.y + face.height).rounded()))
        guard x1 > x0, y1 > y0 else { return nil }
        self.init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
