import CFaceDetect
import Foundation

/// A face's head pose in degrees (see docs/quality.md for the signs): yaw > 0
/// turns towards the image's right, pitch > 0 looks up, roll > 0 is turned
/// clockwise in the image. A mirrored photo gives the opposite yaw and roll.
struct FacePose: Sendable, Equatable {
    var yaw: Double
    var pitch: Double
    var roll: Double

    init(yaw: Double, pitch: Double, roll: Double) {
        (self.yaw, self.pitch, self.roll) = (yaw, pitch, roll)
    }

    /// Five points in photo pixels -> pose, through cv::solvePnP on a generic
    /// 3D face; nil where the fit fails (points that coincide).
    init?(points: [Point2D], fromDlib: Bool, width: Int, height: Int) {
        guard points.count == 5 else { return nil }
        let flat = points.flatMap { [Float($0.x), Float($0.y)] }
        var (y, p, r) = (0.0, 0.0, 0.0)
        var message: UnsafeMutablePointer<CChar>?
        let status = flat.withUnsafeBufferPointer {
            CFaceDetect_Pose($0.baseAddress, fromDlib ? 1 : 0, Int32(width), Int32(height), &y, &p, &r, &message)
        }
        if let message { CFaceDetect_Free(message) }
        guard status == 0 else { return nil }
        func tenth(_ value: Double) -> Double {
            // -180...180, to 0.1 degree.
            var v = value.truncatingRemainder(dividingBy: 360)
            if v > 180 { v -= 360 } else if v < -180 { v += 360 }
            return (v * 10).rounded() / 10
        }
        (yaw, pitch, roll) = (tenth(y), tenth(p), tenth(r))
    }
}

/// How good one face's crop is: what is measured, and the score made of it.
/// Measured on the detection decode (exposure, pose) and the placement
/// (outside, upscaled); `sharpness` stays the face's own field.
struct FaceQuality: Sendable, Equatable {
    /// nil: no five points were found (no landmarks from the detector, and
    /// dlib's predictor not installed).
    var pose: FacePose?
    /// Eye distance in photo pixels where there is a pose, else the box's
    /// longer side.
    var facePx: Double
    /// The crop was enlarged to reach `--size`.
    var upscaled = false
    /// Mean brightness 0...1 of the box's middle; shares of clipped dark and
    /// blown-out pixels in it.
    var mean: Double
    var dark: Double
    var bright: Double
    /// Strength of JPEG blocking in the box (1: none; see CFaceDetect_Exposure).
    var blocks: Double
    /// The photo file's JPEG quality (`JPEGQuality`; nil: not a JPEG file,
    /// a video frame).
    var jpegQuality: Int?
    /// Share of the crop lying outside the photo (padding).
    var outside = 0.0
    /// The score 0...1 and the measure that weighs it down most.
    var score = 0.0
    var reason = ""

    /// The measures of the face `box` of `gray` (detection pixels), whose
    /// five points in photo pixels (nil: none) came from the detector or
    /// dlib; `full` is the photo's upright size.
    init(box: PixelRect, in gray: GrayImage, points: [Point2D]?, fromDlib: Bool, full: (width: Int, height: Int), fullBox: PixelRect) {
        pose = points.flatMap { FacePose(points: $0, fromDlib: fromDlib, width: full.width, height: full.height) }
        if let points, pose != nil {
            let (a, b) = fromDlib
                ? (Point2D((points[0].x + points[1].x) / 2, (points[0].y + points[1].y) / 2),
                   Point2D((points[2].x + points[3].x) / 2, (points[2].y + points[3].y) / 2))
                : (points[0], points[1])
            facePx = ((hypot(a.x - b.x, a.y - b.y)) * 10).rounded() / 10
        } else {
            facePx = Double(max(fullBox.width, fullBox.height))
        }
        var (m, d, b, k) = (0.0, 0.0, 0.0, 1.0)
        let status = gray.pixels.withUnsafeBufferPointer {
            CFaceDetect_Exposure(
                $0.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, Int32(box.x), Int32(box.y),
                Int32(box.width), Int32(box.height), &m, &d, &b, &k)
        }
        if status != 0 { (m, d, b, k) = (0.5, 0, 0, 1) }
        func round(_ value: Double, _ digits: Double = 1000) -> Double { (value * digits).rounded() / digits }
        (mean, dark, bright, blocks) = (round(m), round(d), round(b), round(k))
    }

    init(
        pose: FacePose?, facePx: Double, upscaled: Bool, mean: Double, dark: Double, bright: Double, blocks: Double,
        jpegQuality: Int?, outside: Double, score: Double, reason: String
    ) {
        (self.pose, self.facePx, self.upscaled, self.mean, self.dark, self.bright, self.blocks) =
            (pose, facePx, upscaled, mean, dark, bright, blocks)
        (self.jpegQuality, self.outside, self.score, self.reason) = (jpegQuality, outside, score, reason)
    }

    /// Where the crop lies: the share of it outside the photo, and whether
    /// it was enlarged to reach `side`.
    mutating func place(_ face: AlignedFace, side: Int, full: (width: Int, height: Int)) {
        // Photo -> crop pixels: the warp, or the square scaled to `side`.
        let toCrop = face.warp ?? {
            let k = Double(side) / Double(max(face.square.side, 1))
            return Affine2D(k, 0, -k * Double(face.square.left), 0, k, -k * Double(face.square.top))
        }()
        upscaled = toCrop.scale > 1.0001
        guard let back = toCrop.inverse else { return }
        // A 32 x 32 grid of the crop's pixel centres, mapped into the photo.
        let n = 32
        var out = 0
        for i in 0..<n {
            for j in 0..<n {
                let p = back.apply(Point2D((Double(j) + 0.5) * Double(side) / Double(n), (Double(i) + 0.5) * Double(side) / Double(n)))
                if p.x < 0 || p.y < 0 || p.x >= Double(full.width) || p.y >= Double(full.height) { out += 1 }
            }
        }
        outside = (Double(out) / Double(n * n) * 1000).rounded() / 1000
    }

    /// Whether `--min-face-quality` / `--max-yaw` leave the face out; a face
    /// turned too far has reason `profile` then, whatever else is weakest.
    mutating func leftOut(minScore: Double, maxYaw: Double) -> Bool {
        if let pose, abs(pose.yaw) > maxYaw {
            reason = "profile"
            return true
        }
        return score < minScore
    }

    /// The score with its size factor taken out: how well the face's pixels
    /// show it, whatever its size. `--people` holds it against a floor
    /// (`PeopleRule.minCoreQuality`), because the grouping already weighs
    /// size by its own rule.
    var apartFromSize: Double {
        let size = QualityScore.sizeFactor(self)
        return size > 0 ? min(1, score / size) : 0
    }

    /// Sets `score` and `reason` from the measures and `sharpness`.
    mutating func rate(sharpness: Double) {
        let parts = QualityScore.parts(self, sharpness: sharpness)
        let product = parts.reduce(1.0) { $0 * $1.value }
        score = (product * 10_000).rounded() / 10_000
        reason = parts.min { $0.value < $1.value }?.name ?? ""
    }
}

/// The score: a product of one factor per measure, each 0...1 and 1 for a
/// face with nothing wrong; `quality_reason` is the lowest factor's name.
/// The constants are calibrated by scripts/eval_quality.py (docs/quality.md).
enum QualityScore {
    /// Sharpness (variance of the Laplacian at 96 px) at which the blur factor is 0.5.
    static let sharpHalf = 40.0
    /// Eye distance (photo pixels) at which the size factor is 0.5.
    static let sizeHalf = 12.0
    /// Mean brightness at which the dark factor is 0.5.
    static let darkHalf = 0.03
    /// Mean brightness (from white) at which the bright factor is 0.5.
    static let brightHalf = 0.10
    /// JPEG blocking above 1 at which the JPEG factor is 0.5.
    static let blocksHalf = 1.0
    /// File JPEG quality at which its part of the JPEG factor is half its value at 100.
    static let jpegHalf = 5.0
    /// Yaw at which the profile factor is 0.5.
    static let yawHalf = 60.0

    private static func half(_ x: Double, _ h: Double) -> Double { x <= 0 ? 0 : x / (x + h) }

    /// The `small` factor: the eye distance against `sizeHalf`.
    static func sizeFactor(_ q: FaceQuality) -> Double {
        // A box without points: its side is about 2.3 eye distances.
        half(q.pose == nil ? q.facePx / 2.3 : q.facePx, sizeHalf)
    }

    static func parts(_ q: FaceQuality, sharpness: Double) -> [(name: String, value: Double)] {
        let yaw = abs(q.pose?.yaw ?? 0)
        return [
            ("blur", half(sharpness, sharpHalf)),
            ("small", sizeFactor(q)),
            ("dark", half(q.mean, darkHalf) * (1 - q.dark)),
            ("bright", half(1 - q.mean, brightHalf) * (1 - q.bright)),
            ("jpeg", 1 / (1 + pow(max(0, q.blocks - 1) / blocksHalf, 2)) * half(Double(q.jpegQuality ?? 100), jpegHalf) / half(100, jpegHalf)),
            ("profile", 1 / (1 + pow(yaw / yawHalf, 4))),
            ("padding", 1 - q.outside),
        ]
    }
}

/// dlib's 5-point landmark predictor, for the pose of faces whose detector
/// gives no landmarks. Not thread-safe: owned by one `Detector`.
final class Landmarker {
    private let handle: OpaquePointer

    init(path: String) throws(FaceCropError) {
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
    func find(_ box: PixelRect, in gray: GrayImage, source: String) throws(FaceCropError) -> [Point2D] {
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
    func find(_ box: PixelRect, in gray: GrayImage, full: (width: Int, height: Int), source: String) throws(FaceCropError)
        -> [Point2D]
    {
        let (sx, sy) = (Double(full.width) / Double(gray.width), Double(full.height) / Double(gray.height))
        return try find(box, in: gray, source: source).map { Point2D(($0.x + 0.5) * sx - 0.5, ($0.y + 0.5) * sy - 0.5) }
    }
}

/// What the quality record costs, for `facecrop-bench quality`: the record
/// of given faces made as a run with the default detector makes it (dlib's
/// five points on the box, the measures on the photo's decode at 1024 px,
/// the score), without the detection around it. The photos are decoded
/// once, when it is made; `measure` is what the bench times.
package struct QualityCost {
    private let landmarker: Landmarker
    private let photos: [(gray: GrayImage, full: (width: Int, height: Int), boxes: [PixelRect])]

    /// `faces`: each photo's path and its boxes in upright photo pixels.
    package init(_ faces: [(path: String, boxes: [[Int]])]) throws {
        guard let model = PeopleModels.resolveLandmarks() else {
            throw FaceCropError.peopleModelsUnavailable("no \(PeopleModels.landmarks) (scripts/fetch-dlib-models)")
        }
        landmarker = try Landmarker(path: model)
        photos = try faces.map { path, boxes in
            let bytes = try PhotoBytes(path: path, source: path)
            let header = try Picture.header(of: bytes, source: path)
            let gray = try Picture.load(bytes, header: header, minScale: 0, fittingIn: 1024, 1024, source: path)
                .grayPixels(source: path)
            return (gray, (header.width, header.height), boxes.map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) })
        }
    }

    /// Every face's record made once; the number of records.
    package func measure() throws -> Int {
        var records = 0
        for (gray, full, boxes) in photos {
            for fullBox in boxes {
                let box = CropGeometry.map(fullBox, from: full, to: (gray.width, gray.height))
                let points = try landmarker.find(box, in: gray, full: full, source: "")
                var quality = FaceQuality(box: box, in: gray, points: points, fromDlib: true, full: full, fullBox: fullBox)
                quality.rate(sharpness: Detector.sharpness(of: box, in: gray))
                records += 1
            }
        }
        return records
    }
}
