import FaceCropCore
import FaceCropImaging

/// Faces whichever way up they lie, for a detector without landmarks (the
/// cascades): they find no face turned a quarter or more, and nothing
/// tells them a face's turn, so the turned canvases themselves are
/// searched, and only where it can pay: a photo stored without an EXIF
/// orientation in which no face was found upright. Every faceless photo of
/// an upright library pays for it, so the turned canvases are searched
/// for large faces only (`least`), as in a scan of a print or a portrait.
extension TurnedFaces {
    /// The smallest face searched for on a turned canvas, as a part of its
    /// short side. A cascade's scan costs about the square of the detection
    /// side over the smallest window. From a sixth, the three turned passes
    /// cost the detection dev set 36 % more CPU time (23.6 -> 31.8 s); the
    /// people dev set's faces are a fifth of the short side or larger.
    package static let least = 4

    /// How sure a face found on an image is, 0...1 (`FaceFinder.verdict`).
    package typealias Verdict = (Subject, GrayImage) throws(FaceCropError) -> Double

    /// A face of a turned canvas is kept where the verdict gives it this or
    /// more: the default detector's least score
    /// (`CascadeEnsemble.defaultMinScore`). Fixtures' street scene
    /// `vtest-400.png`, with no face upright, has a 257 px "face" on its
    /// 90-degree canvas that `haar` kept before; the verdict gives it 0.
    package static let sureVerdict = 0.55

    /// A face found upright that the verdict gives this or more ends the
    /// search: the photo is taken to lie upright. Below it a turned canvas
    /// is searched, and wins only with a face the verdict gives more than
    /// every face found upright. People dev set (tuned on), `haar`: its
    /// faces upright get 0.50-0.96 (7 of 24 under 0.9), the false faces
    /// it finds on its photos stored turned 0-0.85 (5 of 14 from 0.55);
    /// ending the search from 0.55 found 64 of 69 turned faces, from 0.9
    /// 69 of 72 (all 69 upright), the upright photos' faces the same.
    package static let uprightSure = 0.9

    /// `first` (found upright on `gray`); when the photo is `stored`
    /// without an EXIF orientation and has no face, the faces of the turned
    /// canvas (90, 270, then 180 degrees) whose best face scores most, in
    /// `gray`'s pixels, marked with its turn. With a `verdict`, the same
    /// where no face of `first` is `uprightSure`, with the canvas's faces
    /// that are `sureVerdict` in place of `first` where its surest face is
    /// surer than every face of `first`. `search` finds faces on a canvas,
    /// in its pixels, no smaller than the side it is given.
    package static func onCanvases(
        first: [Subject], gray: GrayImage, minSide: Int, stored: Bool, verdict: Verdict? = nil,
        search: (GrayImage, Int) throws(FaceCropError) -> [Subject]
    ) throws(FaceCropError) -> [Subject] {
        guard stored else { return first }
        // With a verdict, the surest face found upright: a turned canvas must beat it.
        var upright = 0.0
        if let verdict {
            for face in first {
                upright = max(upright, try verdict(face, gray))
                if upright >= uprightSure { return first }
            }
        } else if !first.isEmpty {
            return first
        }
        let side = max(minSide, min(gray.width, gray.height) / least)
        var (best, top): ([Subject], Double) = ([], upright)
        for turn in [1, 3, 2].map(QuarterTurn.init(quarters:)) {
            let canvas = gray.turned(turn.reversed)
            var (found, most): ([Subject], Double) = ([], 0)
            for face in try search(canvas, side) {
                var face = face
                // With a verdict, a canvas is ranked by its surest face, else by its best score.
                var rank = face.score
                if let verdict {
                    rank = try verdict(face, canvas)
                    guard rank >= sureVerdict else { continue }
                }
                face.box = turn.turn(face.box, width: canvas.width, height: canvas.height)
                // The eyes were found on the canvas; the face's turn says how it lies.
                face.eyes = nil
                face.turned = turn
                found.append(face)
                most = max(most, rank)
            }
            if !found.isEmpty, most > top { (best, top) = (found, most) }
        }
        return best.isEmpty ? first : best
    }
}
