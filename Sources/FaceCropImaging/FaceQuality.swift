import CFaceDetect
import Foundation
import FaceCropCore

// The quality record measured on the image: exposure, pose, where the crop lies.
extension FaceQuality {
    /// The measures of the face `box` of `gray` (detection pixels), whose
    /// five points in photo pixels (nil: none) came from the detector or
    /// dlib; `full` is the photo's upright size.
    package init(box: PixelRect, in gray: GrayImage, points: [Point2D]?, fromDlib: Bool, full: (width: Int, height: Int), fullBox: PixelRect) {
        let pose = points.flatMap { FacePose(points: $0, fromDlib: fromDlib, width: full.width, height: full.height) }
        let facePx: Double
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
        let soft = gray.pixels.withUnsafeBufferPointer {
            CFaceDetect_Softness(
                $0.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, Int32(box.x), Int32(box.y),
                Int32(box.width), Int32(box.height))
        }
        let softness = round(max(soft, 0.5), 100)
        // A JPEG block's side in these pixels (the decode's scale of the photo's 8).
        let period = 8 * Double(gray.width) / Double(max(full.width, 1))
        let block = gray.pixels.withUnsafeBufferPointer {
            CFaceDetect_BlockSoftness(
                $0.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, Int32(box.x), Int32(box.y),
                Int32(box.width), Int32(box.height), period)
        }
        // The eye distance in the detector's pixels (a box without points: its side is about 2.3 eye distances).
        let eyes = (pose == nil ? facePx / 2.3 : facePx) * Double(gray.width) / Double(max(full.width, 1))
        self.init(
            pose: pose, facePx: facePx, softness: softness,
            detailPx: round(QualityScore.detail(eyes: eyes, softness: softness), 10), upscaled: false, mean: round(m),
            dark: round(d), bright: round(b), blocks: round(k), jpegQuality: nil, outside: 0, score: 0, reasons: [])
        blockSoftness = block > 0 ? block : nil
    }

    /// Where the crop lies: the share of it outside the photo, and whether
    /// it was enlarged to reach `side`.
    package mutating func place(_ face: AlignedFace, side: Int, full: (width: Int, height: Int)) {
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
}

extension FacePose {
    /// Five points in photo pixels -> pose, through cv::solvePnP on a generic
    /// 3D face; nil where the fit fails (points that coincide).
    package init?(points: [Point2D], fromDlib: Bool, width: Int, height: Int) {
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
        self.init(yaw: tenth(y), pitch: tenth(p), roll: tenth(r))
    }
}
