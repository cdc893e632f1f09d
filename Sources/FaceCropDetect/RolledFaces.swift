import FaceCropCore
import FaceCropImaging

/// Heads rolled in an upright photo (a child lying down, a selfie at an
/// angle): a face rolled 45 degrees is found again on the photo turned
/// back by that much (`Roll`), where it lies upright, and mapped back.
extension TurnedFaces {
    /// The rolls the cascades try, in degrees each way: their frontal
    /// windows find a face rolled up to about 20 degrees either way, so a
    /// canvas turned 45 degrees covers heads rolled 25 to 65 degrees.
    package static let rolls = [-45.0, 45.0]

    /// The smallest face searched for on a rolled canvas, as a part of the
    /// photo's short side: a portrait rolled 45 degrees on a canvas that
    /// holds it all has its face a fifth of the short side or less (a
    /// quarter found 14 of the people dev set's 23 rolled faces).
    package static let rolledLeast = 6

    /// The least score a face found on a rolled canvas keeps: a faceless
    /// photo searched again is a second chance at a false face. The people
    /// dev set's heads rolled 45 degrees score 0.64 to 0.96 there. A cat's
    /// face in the byte-identity corpus (`scripts/compare-binaries`, made
    /// from Fixtures' chelsea.jpg) scores 0.63 and is left to the face
    /// mesh, whose face presence drops it (`DetectStage`).
    package static let rolledScore = 0.6

    /// How far from a rolled canvas's roll a face found on it may lie: its
    /// frontal windows find faces rolled up to about 20 degrees either way.
    /// A roll measured farther off is taken as a misread.
    package static let rolledReach = 25.0

    /// `first`; when it is empty, the faces (scoring `rolledScore` or more)
    /// of the canvas turned by one of `rolls` whose best face scores most,
    /// in `gray`'s pixels, each with its `rolled` degrees (and its eyes,
    /// when the canvas's search found them, mapped back, so their line gives
    /// `--align level` the face's roll). Only faces a `rolledLeast`th of
    /// `gray`'s short side or larger are searched for: the portrait of a
    /// tilted head, not a crowd's faces.
    /// `search` finds faces on a canvas, in its pixels, no smaller than the
    /// side it is given.
    package static func onRolledCanvases(
        first: [Subject], gray: GrayImage, minSide: Int,
        search: (GrayImage, Int) throws(FaceCropError) -> [Subject]
    ) throws(FaceCropError) -> [Subject] {
        guard first.isEmpty else { return first }
        let side = max(minSide, min(gray.width, gray.height) / rolledLeast)
        var best: [Subject] = []
        for degrees in rolls {
            let roll = Roll(degrees: degrees, width: gray.width, height: gray.height)
            let found = try search(gray.rolled(roll), side).filter { $0.score >= rolledScore }.map { face in
                rolledBack(face, roll, width: gray.width, height: gray.height)
            }
            if let top = found.map(\.score).max(), top > (best.map(\.score).max() ?? 0) { best = found }
        }
        return best
    }

    /// A face found on `roll`'s canvas, in the pixels of the `width` x
    /// `height` image that `roll`'s image is shrunk from by `factor`
    /// (`GrayImage.shrunk`): its box the same size about its centre mapped
    /// back (the face's own box, upright on the canvas), clipped to the
    /// image; its eyes and five points mapped back (pixel-edge eyes,
    /// pixel-centre points).
    package static func rolledBack(_ face: Subject, _ roll: Roll, factor: Int = 1, width: Int, height: Int) -> Subject {
        // A shrunk pixel's centre is its block's.
        let f = Double(factor)
        let back = roll.toImage.then(Affine2D(f, 0, (f - 1) / 2, 0, f, (f - 1) / 2))
        var face = mappedBack(face, back, factor: factor, width: width, height: height)
        face.rolled = -roll.degrees
        return face
    }

    /// A face found on a canvas whose pixel centres `back` maps into the
    /// `width` x `height` image, `factor` times smaller than it: its box the
    /// same size (times `factor`) about its centre mapped back, clipped to
    /// the image; its eyes and five points mapped back (pixel-edge eyes,
    /// pixel-centre points).
    package static func mappedBack(_ face: Subject, _ back: Affine2D, factor: Int, width: Int, height: Int) -> Subject {
        var face = face
        let b = face.box
        let centre = back.apply(
            Point2D(Double(b.x) + Double(b.width) / 2 - 0.5, Double(b.y) + Double(b.height) / 2 - 0.5))
        let (bw, bh) = (b.width * factor, b.height * factor)
        let x = Int((centre.x + 0.5 - Double(bw) / 2).rounded())
        let y = Int((centre.y + 0.5 - Double(bh) / 2).rounded())
        let (x0, y0) = (max(0, x), max(0, y))
        let (x1, y1) = (min(width, x + bw), min(height, y + bh))
        face.box = PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
        face.eyes = face.eyes.map { e in
            let (p, q) = (back.apply(Point2D(e.x1 - 0.5, e.y1 - 0.5)), back.apply(Point2D(e.x2 - 0.5, e.y2 - 0.5)))
            return EyePair(x1: p.x + 0.5, y1: p.y + 0.5, x2: q.x + 0.5, y2: q.y + 0.5)
        }
        face.five = face.five?.mapped(back)
        return face
    }
}

/// Heads rolled in an upright photo, for the networks with five landmarks
/// (YuNet): the roll read from the points of a face rolled 45 degrees falls
/// short (by some 17 degrees on held-out portraits), so the face is found
/// again on its chip turned back by what was read, where it lies nearly
/// upright and its points fit; and a photo with no sure face is also
/// searched on canvases rolled 45 degrees each way, as on the turned ones.
extension TurnedFaces {
    /// A face read as rolled this much or more is found again on its chip
    /// turned back by its roll (`relevelled`): none of Fixtures' upright
    /// faces is (`scripts/compare-binaries`' YuNet runs keep their bytes).
    package static let relevelFrom = 20.0

    /// `faces` (found on `gray`/`rgb`), each upright one (not found on a
    /// rolled canvas already) read as rolled `relevelFrom` or more given the
    /// five points of the face found on its chip turned back by that roll,
    /// mapped back (its box and score stay). `search` finds faces on a canvas, in its pixels, no smaller
    /// than the side it is given.
    package static func relevelled(
        _ faces: [Subject], gray: GrayImage, rgb: RGBImage?, minSide: Int,
        search: Search
    ) throws(FaceCropError) -> [Subject] {
        try redoingUpright(faces) { face throws(FaceCropError) -> Subject? in
            guard let five = face.five, let read = QuarterTurn.roll(of: five), abs(read) >= relevelFrom else { return nil }
            // The face's chip, three times its side (a face fills a third of it).
            let b = face.box
            let centre = Point2D(Double(b.x) + Double(b.width) / 2 - 0.5, Double(b.y) + Double(b.height) / 2 - 0.5)
            let roll = Roll(degrees: -read, about: centre, side: 3 * max(b.width, b.height), width: gray.width, height: gray.height)
            let again = try search(gray.rolled(roll), rgb?.rolled(roll), minSide)
                .filter { turn(of: $0).isUpright && $0.five != nil }
                .map { rolledBack($0, roll, width: gray.width, height: gray.height) }
            guard let found = again.max(by: { $0.box.iou(face.box) < $1.box.iou(face.box) }),
                found.box.iou(face.box) >= 0.3, let points = found.five
            else { return nil }
            var levelled = face
            levelled.five = points
            levelled.eyes = EyePair(
                x1: points[.leftEye].x, y1: points[.leftEye].y, x2: points[.rightEye].x, y2: points[.rightEye].y)
            return levelled
        }
    }

    /// `faces`; when none scores `sure`, with the faces found upright on the
    /// canvases rolled by `rolls` merged in as the turned canvases' are
    /// (`merged`): kept from `sure` where they overlap none, or where they
    /// beat every face they overlap by `margin`. Only faces a `rolledLeast`th
    /// of the short side or larger are looked for, on canvases shrunk by a
    /// whole factor so that such a face is `rolledSide` pixels or more.
    package static func withRolledCanvases(
        _ faces: [Subject], gray: GrayImage, rgb: RGBImage?, minSide: Int,
        search: Search
    ) throws(FaceCropError) -> [Subject] {
        guard (faces.map(\.score).max() ?? 0) < sure else { return faces }
        let side = max(minSide, min(gray.width, gray.height) / rolledLeast)
        let factor = max(1, side / rolledSide)
        let (small, colour) = (gray.shrunk(by: factor), rgb?.shrunk(by: factor))
        var found: [Subject] = []
        for degrees in rolls {
            let roll = Roll(degrees: degrees, width: small.width, height: small.height)
            found += try search(small.rolled(roll), colour?.rolled(roll), max(1, side / factor))
                .filter { turn(of: $0).isUpright && $0.five != nil }
                .map { face in
                    // A face stored turned may lie within 60 degrees of upright
                    // on a rolled canvas: its turn in the photo is its points'.
                    var face = rolledBack(face, roll, factor: factor, width: gray.width, height: gray.height)
                    face.turned = turn(of: face)
                    return face
                }
        }
        return merged(faces, found, alone: sure)
    }

    /// The side a face sought on a shrunk rolled canvas keeps: YuNet finds
    /// faces from 20 px (`YuNetFinder.reach`); twice that keeps its points
    /// good to level by.
    package static let rolledSide = 40
}
