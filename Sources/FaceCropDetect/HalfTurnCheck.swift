import FaceCropCore
import FaceCropImaging

/// Faces stored upside down that a network reads as upright (YuNet): it
/// gives such a face the five points of an upright one, eyes above the
/// mouth, and a score nearly as high as upright (0.89-0.91 against 0.93-0.95
/// on the people dev set's portraits turned a half), so neither its points
/// nor its score tell the turn. The face's own chip does: searched as it is
/// and turned a half, at the same size, a face upright there scores more
/// than the same face upside down.
extension TurnedFaces {
    /// How much more the face on the chip turned a half must score than on
    /// the chip as it is for the face to be taken as upside down. People
    /// dev set (tuned on), YuNet, chips of 2 x the face's side shrunk so
    /// that the face is 64 to 127 px: its 25 portraits upright score 0.06
    /// to 0.14 less turned a half (or are not found so); stored turned a
    /// half, the 22 faces read as upright score 0.035 to 0.13 more turned
    /// back. The detection dev set's 259 upright faces: 0.028 less or more
    /// (or found neither way); turned a half, its 21 faces read as upright
    /// 0.04 more or found only turned back.
    package static let halfMargin = 0.01

    /// `faces` (found on `gray`/`rgb`), each one read as upright (not found
    /// on a rolled canvas) replaced by the face found upright on its chip
    /// turned a half (`FaceChip`), mapped back and turned a half, where
    /// that scores `halfMargin` more than the face found upright on the
    /// chip as it is (or where that finds none). `search` finds faces on a
    /// canvas, in its pixels, no smaller than the side it is given.
    package static func halfChecked(
        _ faces: [Subject], gray: GrayImage, rgb: RGBImage?, minSide: Int,
        search: Search
    ) throws(FaceCropError) -> [Subject] {
        let half = QuarterTurn(quarters: 2)
        return try redoingUpright(faces) { face throws(FaceCropError) -> Subject? in
            guard face.five != nil else { return nil }
            let chip = FaceChip(face.box, gray: gray, rgb: rgb)
            // The half turn first: an upright face is seldom found upside down.
            guard var turned = try chip.best(turned: half, minSide: minSide, search: search), turn(of: turned) == half,
                let five = turned.five,
                turned.score >= (try chip.best(turned: .upright, minSide: minSide, search: search)?.score ?? 0) + halfMargin
            else { return nil }
            turned.eyes = EyePair(x1: five[.leftEye].x, y1: five[.leftEye].y, x2: five[.rightEye].x, y2: five[.rightEye].y)
            turned.turned = half
            return turned
        }
    }
}

/// A face's chip: twice its long side about its centre, cut from the
/// detection decode (black past it) and shrunk by a whole factor so that
/// the face's long side is `face` to twice it (a smaller face is left as
/// it is), where it can be searched again at a small cost, as it is or
/// turned, and what is found there mapped back.
package struct FaceChip {
    /// The face's long side on the chip, from this to twice it.
    package static let face = 64

    let box: PixelRect
    let width: Int, height: Int
    let factor: Int
    let gray: GrayImage, rgb: RGBImage?
    /// Chip pixel centres -> the decode's.
    let toImage: Affine2D

    package init(_ box: PixelRect, gray: GrayImage, rgb: RGBImage?) {
        let long = max(box.width, box.height)
        factor = max(1, long / Self.face)
        // A whole number of blocks, so that the shrunk chip keeps its centre.
        let side = factor * ((2 * long + factor - 1) / factor)
        let centre = Point2D(Double(box.x) + Double(box.width) / 2 - 0.5, Double(box.y) + Double(box.height) / 2 - 0.5)
        let cut = Roll(degrees: 0, about: centre, side: side, width: gray.width, height: gray.height)
        (self.box, width, height) = (box, gray.width, gray.height)
        self.gray = gray.rolled(cut).shrunk(by: factor)
        self.rgb = rgb?.rolled(cut).shrunk(by: factor)
        let f = Double(factor)
        toImage = Affine2D(f, 0, (f - 1) / 2, 0, f, (f - 1) / 2).then(cut.toImage)
    }

    /// The best face (the first found on a tie) that `search` finds upright,
    /// with five points, on the chip turned `turn` clockwise, and whose box,
    /// mapped back into the decode, overlaps the chip's face (IoU 0.3);
    /// mapped back (`TurnedFaces.mappedBack`).
    package func best(
        turned turn: QuarterTurn, minSide: Int, search: TurnedFaces.Search
    ) throws(FaceCropError) -> Subject? {
        let canvas = gray.turned(turn)
        let back = turn.reversed.turning(width: canvas.width, height: canvas.height).then(toImage)
        let found = try search(canvas, rgb?.turned(turn), max(1, minSide / factor))
            .filter { TurnedFaces.turn(of: $0).isUpright && $0.five != nil }
            .map { TurnedFaces.mappedBack($0, back, factor: factor, width: width, height: height) }
            .filter { $0.box.iou(box) >= 0.3 }
        return found.enumerated().max { x, y in
            x.element.score != y.element.score ? x.element.score < y.element.score : x.offset > y.offset
        }?.element
    }
}
