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

    /// `first` (found upright on `gray`); when it is empty and the photo is
    /// `stored` without an EXIF orientation, the faces of the turned canvas
    /// (90, 270, then 180 degrees) whose best face scores most, in `gray`'s
    /// pixels, marked with its turn. `search` finds faces on a canvas, in
    /// its pixels, no smaller than the side it is given.
    package static func onCanvases(
        first: [Subject], gray: GrayImage, minSide: Int, stored: Bool,
        search: (GrayImage, Int) throws(FaceCropError) -> [Subject]
    ) throws(FaceCropError) -> [Subject] {
        guard stored, first.isEmpty else { return first }
        let side = max(minSide, min(gray.width, gray.height) / least)
        var best: [Subject] = []
        for turn in [1, 3, 2].map(QuarterTurn.init(quarters:)) {
            let canvas = gray.turned(turn.reversed)
            let found = try search(canvas, side).map { face in
                var face = face
                face.box = turn.turn(face.box, width: canvas.width, height: canvas.height)
                // The eyes were found on the canvas; the face's turn says how it lies.
                face.eyes = nil
                face.turned = turn
                return face
            }
            if let top = found.map(\.score).max(), top > (best.map(\.score).max() ?? 0) { best = found }
        }
        return best
    }
}
