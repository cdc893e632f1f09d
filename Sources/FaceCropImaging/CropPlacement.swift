import Foundation
import FaceCropCore

/// Where one crop comes from: the mapping from upright full-resolution photo
/// pixels to the crop's, and what the decode must cover for it. Pure.
package struct CropPlacement: Sendable, Equatable {
    /// Photo -> crop, for a `side` x `side` crop (see Alignment.swift for
    /// the pixel convention).
    package var transform: Affine2D
    /// The axis-aligned square of photo pixels the crop covers: what the
    /// decode must hold, and how many photo pixels the crop spans across.
    package var bounds: PixelSquare
    /// Whether the crop reaches past the photo's edge.
    package var padded: Bool
}

extension Alignment {
    /// Upright photo pixels -> pixels of a decode of the photo at scale
    /// `sx`, `sy`, of which only the part from `origin` on is held.
    /// libvips scales centre to centre.
    package static func photoToDecode(sx: Double, sy: Double, origin: (x: Int, y: Int) = (0, 0)) -> Affine2D {
        Affine2D(sx, 0, 0.5 * sx - 0.5 - Double(origin.x), 0, sy, 0.5 * sy - 0.5 - Double(origin.y))
    }

    /// Landmarks found in a `from`-sized decode of a `to`-sized photo, in the photo's pixels.
    package static func landmarks(
        _ landmarks: FaceLandmarks, from: (width: Int, height: Int), to: (width: Int, height: Int)
    ) -> FaceLandmarks {
        let toPhoto = photoToDecode(sx: Double(from.width) / Double(to.width), sy: Double(from.height) / Double(to.height)).inverse!
        return landmarks.mapped(toPhoto)
    }

    /// The placement of a template crop (`arcface`, `ffhq`) of `side`
    /// pixels in a `width` x `height` photo; nil when the landmarks give no
    /// usable transform or a turn no face has (over 60 degrees: a wrong eye
    /// or mouth; of a `turned` face: over 60 degrees from its turn).
    /// `landmarks` are in photo pixels.
    package static func templatePlacement(
        _ mode: AlignMode, landmarks: FaceLandmarks, side: Int, width: Int, height: Int, turned: QuarterTurn = .upright
    ) -> CropPlacement? {
        let fitted: Affine2D?
        switch mode {
        case .arcface: fitted = arcface(landmarks, side: side)
        case .ffhq: fitted = ffhq(landmarks, side: side)
        case .none, .level: fitted = nil
        }
        guard let transform = fitted, transform.scale > 1e-6, abs(turned.residual(transform.angle)) <= 60,
            let inverse = transform.inverse
        else { return nil }
        // The crop's outer pixel edges, in the photo.
        let s = Double(side) - 0.5
        let corners = [Point2D(-0.5, -0.5), Point2D(s, -0.5), Point2D(-0.5, s), Point2D(s, s)].map(inverse.apply)
        let xs = corners.map(\.x), ys = corners.map(\.y)
        // Back to pixel edges: the photo spans -0.5 ... width - 0.5.
        let left = xs.min()! + 0.5, right = xs.max()! + 0.5, top = ys.min()! + 0.5, bottom = ys.max()! + 0.5
        let padded = left < -1e-6 || top < -1e-6 || right > Double(width) + 1e-6 || bottom > Double(height) + 1e-6
        let l = Int(left.rounded(.down)), t = Int(top.rounded(.down))
        let extent = max(Int(right.rounded(.up)) - l, Int(bottom.rounded(.up)) - t, 1)
        return CropPlacement(transform: transform, bounds: PixelSquare(left: l, top: t, side: extent), padded: padded)
    }
}

/// How one face is cropped under `--align`: decided from its box and
/// landmarks alone. Pure; everything in upright full-resolution pixels.
package struct AlignedFace: Sendable, Equatable {
    /// The square the crop is cut from (`none`, `level`), or the square the
    /// template crop covers (what the decode must hold).
    package var square: PixelSquare
    /// Photo -> crop for a turned crop (`level`, `arcface`, `ffhq`); nil: cut `square`.
    package var warp: Affine2D?
    /// `level`: degrees to turn `square` anticlockwise; nil: not turned.
    package var angle: Double?
    package var padded: Bool
    /// `inside` (`--pad inside`): the margin the square gives the face (4
    /// decimals); nil for the other fills and for template crops.
    package var marginUsed: Double? = nil

    package var aligned: Bool { warp != nil }

    /// The turn recorded in the manifest's `angle`, to 0.01 degree.
    package var recordedAngle: Double { angle ?? ((warp?.angle ?? 0) * 100).rounded() / 100 }
}

extension Alignment {
    /// The crop of a face found at `box` with `landmarks` (photo pixels, or
    /// nil), whose eye line is turned `eyeAngle` degrees (nil: eyes not found);
    /// `inside` (`--pad inside`) keeps a plain or levelled square in the photo.
    /// A `turned` face's crop is turned upright in every mode; `levelLimit`:
    /// the largest turn `level` makes of an upright face.
    package static func place(
        box: PixelRect, landmarks: FaceLandmarks?, eyeAngle: Double?, mode: AlignMode, size: Int, margin: Double,
        width: Int, height: Int, inside: Bool = false, turned: QuarterTurn = .upright, levelLimit: Double = 45
    ) -> AlignedFace {
        if mode.isTemplate, let landmarks,
            let placement = templatePlacement(
                mode, landmarks: landmarks, side: size, width: width, height: height, turned: turned)
        {
            return AlignedFace(square: placement.bounds, warp: placement.transform, angle: nil, padded: placement.padded)
        }
        // `--pad inside`: the square is kept inside the photo (a template
        // crop above keeps its template's geometry and fill).
        let square = CropGeometry.cropSquare(around: box, margin: margin, imageWidth: width, imageHeight: height, inside: inside)
        // level: unless the eyes were not found or the turn is implausibly
        // large for a face (then kept as it is).
        // The turned square is warped like a template crop, so that its
        // transform is exact (vips_rotate's output puts it half a pixel
        // off, depending on the parity of the turned image's size).
        // A turned face: its turn, and in `level` what its eye line adds
        // to it (within 45 degrees: the nearest quarter was taken).
        let limit = turned.isUpright ? levelLimit : 45
        let levelled = mode == .level ? eyeAngle.flatMap { abs(turned.residual($0)) <= limit ? $0 : nil } : nil
        let angle = levelled ?? (turned.isUpright ? nil : Double(turned.degrees))
        let marginUsed = inside ? (CropGeometry.marginUsed(side: square.side, face: box, asked: margin) * 10_000).rounded() / 10_000 : nil
        return AlignedFace(
            square: square, warp: angle.map { levelCrop(square, angle: $0, side: size) }, angle: angle,
            padded: square.reachesOutside(width: width, height: height), marginUsed: marginUsed)
    }

    /// How far the decoded part reaches past the crops' squares (as a share
    /// of their side): a turned square's corners (`level`), the reach of the
    /// template warp's filters.
    package static func coverGrow(_ mode: AlignMode, size: Int) -> Double {
        switch mode {
        case .none: 0
        case .level: 0.25
        case .arcface, .ffhq: 0.02 + 6 / Double(max(size, 1))
        }
    }

    /// Photo -> crop of a crop cut from a decode: `square` (in the decode's
    /// pixels) resized to `side`, after `toDecode` (photo -> decode pixels).
    package static func cutTransform(_ square: PixelSquare, side: Int, toDecode: Affine2D) -> Affine2D {
        toDecode.then(squareCrop(square, side: side))
    }
}
