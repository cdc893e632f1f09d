import Foundation
import FaceCropCore

// Face alignment geometry: pure functions, no pixels.
//
// Coordinates are OpenCV's: x to the right, y down, the centre of an image's
// top-left pixel at (0, 0). A `transform` in the manifest can therefore be
// given to cv2.warpAffine as it is, and YuNet's landmarks need no shift.

public enum FaceTemplate {
    /// ArcFace's five points in a 112 x 112 crop (insightface's `arcface_dst`,
    /// the 112 variant; not the 128 one with an x shift), image-left first.
    public static let arcface112: [Point2D] = [
        Point2D(38.2946, 51.6963), Point2D(73.5318, 51.5014), Point2D(56.0252, 71.7366),
        Point2D(41.5493, 92.3655), Point2D(70.7299, 92.2041),
    ]

    /// The template for a `side` x `side` crop: every point times side / 112.
    public static func arcface(side: Int) -> [Point2D] {
        arcface112.map { (Double(side) / 112) * $0 }
    }
}

public enum Alignment {
    /// The rotation, uniform scale and translation (no reflection) that
    /// maps `source` onto `target` with the least sum of squared distances:
    /// Umeyama's solution, which in 2-D has a closed form. With the points
    /// as complex numbers centred on their means, `z -> s z` with
    /// `s = sum(conj(p) q) / sum(|p|^2)`; a complex factor is a rotation and
    /// a scale, never a mirror. Nil for fewer than two points or points all
    /// in one place.
    public static func similarity(from source: [Point2D], to target: [Point2D]) -> Affine2D? {
        guard source.count == target.count, source.count >= 2 else { return nil }
        let n = Double(source.count)
        let ms = (1 / n) * source.reduce(Point2D(0, 0), +)
        let mt = (1 / n) * target.reduce(Point2D(0, 0), +)
        var re = 0.0, im = 0.0, norm = 0.0
        for (p0, q0) in zip(source, target) {
            let p = p0 - ms, q = q0 - mt
            re += p.x * q.x + p.y * q.y
            im += p.x * q.y - p.y * q.x
            norm += p.x * p.x + p.y * p.y
        }
        guard norm > 1e-12 else { return nil }
        let (ca, sb) = (re / norm, im / norm)
        // [ca -sb; sb ca] p + t, with t moving the source mean onto the target mean.
        return Affine2D(ca, -sb, mt.x - (ca * ms.x - sb * ms.y), sb, ca, mt.y - (sb * ms.x + ca * ms.y))
    }

    /// Photo -> crop for `--align arcface`: the similarity fitted on the
    /// landmarks that were found (estimated ones take no part).
    public static func arcface(_ landmarks: FaceLandmarks, side: Int) -> Affine2D? {
        let template = FaceTemplate.arcface(side: side)
        let found = landmarks.found
        let indices = found.map { Name.allCases.firstIndex(of: $0.name)! }
        return similarity(from: found.map(\.point), to: indices.map { template[$0] })
    }

    private typealias Name = FaceLandmarks.Name

    /// The FFHQ square (NVlabs ffhq-dataset, `recreate_aligned_images`): its
    /// centre `c` and half-axes `x` (towards the image-right side of the face)
    /// and `y` (towards the chin), in photo pixels.
    public static func ffhqSquare(_ landmarks: FaceLandmarks) -> (centre: Point2D, x: Point2D, y: Point2D)? {
        let eyeLeft = landmarks[.leftEye], eyeRight = landmarks[.rightEye]
        let eyeAvg = 0.5 * (eyeLeft + eyeRight)
        let eyeToEye = eyeRight - eyeLeft
        let mouthAvg = 0.5 * (landmarks[.mouthLeft] + landmarks[.mouthRight])
        let eyeToMouth = mouthAvg - eyeAvg
        var x = eyeToEye - eyeToMouth.rot90
        guard x.length > 1e-9 else { return nil }
        x = (max(2.0 * eyeToEye.length, 1.8 * eyeToMouth.length) / x.length) * x
        let y = x.rot90
        let centre = eyeAvg + 0.1 * eyeToMouth
        return (centre, x, y)
    }

    /// Photo -> crop for `--align ffhq`: the square `c ± x ± y` onto the
    /// `side` x `side` crop. As the recipe hands the square's corners plus
    /// half a pixel to PIL's QUAD transform, crop pixel (i, j) shows the photo
    /// at `c - x - y + (2x (i + 0.5) + 2y (j + 0.5)) / side`.
    public static func ffhq(_ landmarks: FaceLandmarks, side: Int) -> Affine2D? {
        guard let (c, x, y) = ffhqSquare(landmarks) else { return nil }
        let s = Double(side)
        let corner = c - x - y
        // crop -> photo: p = corner + (i + 0.5) 2x/s + (j + 0.5) 2y/s
        let ux = (2 / s) * x, uy = (2 / s) * y
        let origin = corner + 0.5 * (ux + uy)
        return Affine2D(ux.x, uy.x, origin.x, ux.y, uy.y, origin.y).inverse
    }

    /// Photo -> crop for a plain crop: the square `square` (in pixels of a
    /// picture) resized to `side` by libvips (vips_resize). Shrinking, it
    /// maps centre to centre: photo pixel edge `left` goes to crop edge 0 and
    /// `left + square.side` to `side`. Enlarging, it puts every pixel half a
    /// crop pixel further right and down than that (measured: the shift is
    /// 0.5 at 1.15x, 2x and 4x; WarpTests.aCutCropsTransformDescribesIt).
    public static func squareCrop(_ square: PixelSquare, side: Int) -> Affine2D {
        let k = Double(side) / Double(square.side)
        let shift = k > 1 ? 0.5 : 0
        return .scaling(
            k, tx: (0.5 - Double(square.left)) * k - 0.5 + shift, ty: (0.5 - Double(square.top)) * k - 0.5 + shift)
    }

    /// Photo -> crop for `--align level`: `square` turned `angle` degrees
    /// anticlockwise about its centre, resized to `side`.
    public static func levelCrop(_ square: PixelSquare, angle: Double, side: Int) -> Affine2D {
        let k = Double(side) / Double(square.side)
        let centre = Point2D(Double(square.left) + Double(square.side) / 2 - 0.5, Double(square.top) + Double(square.side) / 2 - 0.5)
        let r = angle * .pi / 180
        // Anticlockwise on screen (y down) is a negative angle in the usual formula.
        let (cs, sn) = (cos(r), sin(r))
        let turn = Affine2D(cs, sn, 0, -sn, cs, 0)
        let toOrigin = Affine2D(1, 0, -centre.x, 0, 1, -centre.y)
        let half = Double(side) / 2 - 0.5
        return toOrigin.then(turn).then(.scaling(k, tx: half, ty: half))
    }
}

/// The nose and mouth of a face whose eyes alone were found (the cascade
/// path), placed where they lie on an average face relative to the eyes.
///
/// In the frame of the eyes (origin midway between them, `u` the vector from
/// the image-left eye to the image-right one, `v` = `u` turned towards the
/// chin), each point is `mid + pu u + pv v`. The constants are the mean
/// over the six faces YuNet finds in Fixtures/faces and Fixtures/people,
/// made symmetric (scripts/fit-landmarks). (ArcFace's template has the mouth
/// lower: pv 1.15; these faces' mouths, as YuNet places them, are at 0.96.)
public enum LandmarkEstimate {
    /// (pu, pv) for nose, mouth left, mouth right.
    package static let nose = (0.0, 0.54)
    package static let mouthLeft = (-0.41, 0.96)
    package static let mouthRight = (0.41, 0.96)

    /// Five landmarks from the two eyes (image-left first); nose and mouth
    /// are marked estimated.
    public static func fromEyes(_ left: Point2D, _ right: Point2D) -> FaceLandmarks {
        let mid = 0.5 * (left + right)
        let u = right - left
        let v = u.rot90
        func place(_ k: (Double, Double)) -> Point2D { mid + k.0 * u + k.1 * v }
        return FaceLandmarks(
            [left, right, place(nose), place(mouthLeft), place(mouthRight)], estimated: [.nose, .mouthLeft, .mouthRight])
    }
}
