import FaceCropCore
import FaceCropImaging

/// Faces whichever way up they lie in the photo (`QuarterTurn`), for the
/// networks with five landmarks.
///
/// A face turned a quarter or more is often found upright by CenterFace
/// (90 of 93 held-out portraits stored turned), but its box is a poor fit
/// and its landmarks are the network's guesses on a face it never saw that
/// way up. Its eye line says the turn; the canvas turned back that way is
/// searched again, where the face is upright and its box and landmarks
/// fit, and what is found there is mapped back into the photo's frame.
/// YuNet finds few turned faces upright (34 of 93), and often with the
/// landmarks of an upright face, so a photo where it finds no face it is
/// sure of is also searched on the three turned canvases (`canvases`).
package enum TurnedFaces {
    /// A search for faces on a canvas (its grey and, for the networks,
    /// colour pixels): the faces in the canvas's pixels, no smaller than the
    /// side it is given.
    package typealias Search = (GrayImage, RGBImage?, Int) throws(FaceCropError) -> [Subject]

    /// `faces`, each one read as upright (not found on a rolled canvas)
    /// replaced by what `again` gives for it, where it gives one.
    static func redoingUpright(
        _ faces: [Subject], _ again: (Subject) throws(FaceCropError) -> Subject?
    ) throws(FaceCropError) -> [Subject] {
        var result = faces
        for index in result.indices where result[index].turned.isUpright && result[index].rolled == nil {
            if let redone = try again(result[index]) { result[index] = redone }
        }
        return result
    }

    /// How a detector finds turned faces: the settings' `turned` value.
    package enum Rule: String, Sendable {
        /// The turn from the landmarks of the faces found upright.
        case landmarks
        /// That, and of a photo without an EXIF orientation, each face read
        /// as upright checked on its chip turned a half (`halfChecked`), and
        /// the turned canvases when no face is sure.
        case landmarksHalfAndCanvases = "landmarks+half+canvases"
        /// That, and of a photo with no sure face, the turned canvases
        /// searched where a glance at them shrunk finds a face (`glanced`).
        case landmarksAndGlance = "landmarks+glance"
        /// The turned canvases of a photo with no face, for faces a quarter
        /// of the short side or larger (the cascades: `onCanvases`).
        case largeOnCanvases = "canvases,quarter"
        /// The turned canvases of a photo with no face sure by the cascades'
        /// verdict, for sure faces a quarter of the short side or larger
        /// (`haar`, whose level weights say little: `onCanvases`).
        case sureOnCanvases = "canvases,quarter,verdict"
    }

    /// The faces of `first` (found upright on `gray`/`rgb`) with every face
    /// turned a quarter or more found again on its turned canvas. In a photo
    /// `stored` without an EXIF orientation, by `landmarksHalfAndCanvases`,
    /// each face read as upright is first checked on its chip turned a half
    /// (`halfChecked`); and the photo is also searched on turned canvases,
    /// and their faces that beat what the first pass found there kept: on
    /// the two sideways ones when a face said to be upright has a box lying
    /// on its side (`sideways`); when no face of the photo is sure (`sure`),
    /// by the `rule`: on all three (`landmarksHalfAndCanvases`), or on those
    /// where a glance finds a face (`landmarksAndGlance`).
    /// `search` finds faces on a canvas, in its pixels, no smaller than the
    /// side it is given (`minSide` on `gray`).
    package static func find(
        first: [Subject], gray: GrayImage, rgb: RGBImage?, minSide: Int, stored: Bool, rule: Rule,
        search: Search
    ) throws(FaceCropError) -> [Subject] {
        var result = first.map { face in
            var face = face
            face.turned = turn(of: face)
            return face
        }
        if stored, rule == .landmarksHalfAndCanvases {
            result = try halfChecked(result, gray: gray, rgb: rgb, minSide: minSide, search: search)
        }
        let turns = Set(result.map(\.turned.quarters)).subtracting([0]).sorted().map(QuarterTurn.init(quarters:))
        for turn in turns {
            let again = try upright(on: turn, gray: gray, rgb: rgb) { canvas, colour throws(FaceCropError) in
                try search(canvas, colour, minSide)
            }
            // The turned faces found again give way to their better fit;
            // one not found again keeps its first box, turned.
            result.removeAll { face in face.turned == turn && again.contains { $0.box.iou(face.box) >= 0.3 } }
            result += again.filter { face in !result.contains { $0.box.iou(face.box) >= 0.3 } }
        }
        guard stored else { return result }
        var wanted: [Int] = [], glance: [Int] = []
        let best = result.map(\.score).max() ?? 0
        if rule == .landmarksHalfAndCanvases, best < sure {
            // Three quarters before a half: sideways scans are the commoner.
            wanted = [1, 3, 2]
        } else if rule == .landmarksAndGlance, best < glanceSure {
            glance = try glanced(gray: gray, rgb: rgb, minSide: minSide, search: search)
        }
        if result.contains(where: sideways) { wanted += [1, 3].filter { !wanted.contains($0) } }
        glance.removeAll { wanted.contains($0) }
        func found(_ quarters: [Int]) throws(FaceCropError) -> [Subject] {
            var found: [Subject] = []
            for turn in quarters.map(QuarterTurn.init(quarters:)) where !turns.contains(turn) {
                found += try upright(on: turn, gray: gray, rgb: rgb) { canvas, colour throws(FaceCropError) in
                    try search(canvas, colour, minSide)
                }
            }
            return found
        }
        if !wanted.isEmpty { result = merged(result, try found(wanted), alone: best < sure ? canvasSure : sure) }
        if !glance.isEmpty { result = merged(result, try found(glance), alone: glanceSure) }
        return result
    }

    /// A face said to be upright whose box is a tenth wider than tall: a
    /// face box is taller than wide (CenterFace's and YuNet's, about 1.3
    /// times), and a face lying on its side that the network took for an
    /// upright one, with an upright face's landmarks, keeps a box lying on
    /// its side (every such miss on the people dev set turned 90 and 270).
    private static func sideways(_ face: Subject) -> Bool {
        face.turned.isUpright && face.five != nil && Double(face.box.width) > 1.1 * Double(face.box.height)
    }

    /// A score YuNet gives a face upright (0.93-0.94 on the fixtures'
    /// portraits) and not the same face a quarter turned, which it often
    /// finds with landmarks of an upright face (0.81-0.84): a photo with no
    /// face this sure is searched on the turned canvases (a face found
    /// only there is kept from `canvasSure`); a face found only on the
    /// sideways canvases of a photo with a sure face, from this score on.
    package static let sure = 0.9

    /// A face found on the turned canvases of a photo with no `sure` face
    /// is kept from this score where it overlaps no face of the first pass.
    /// Tuned on the eye set's and the covered faces' even halves (110
    /// photos stored turned 90, 180 and 270 degrees, 330 copies): the best
    /// face of a copy found only on the turned canvases lies on the right
    /// one in 189 of 190 copies, 61 of them under `sure` (52 from 0.85,
    /// most behind a mask or dark glasses, or with closed eyes). Their
    /// upright copies, the people dev set's and Fixtures' portraits give
    /// no face on a turned canvas; the detection dev set's 160 upright
    /// photos one, at 0.84.
    package static let canvasSure = 0.85

    /// How much more a turned canvas's face must score than the faces of
    /// the first pass it overlaps to take their place (as much as a
    /// `sideways` one is enough).
    package static let margin = 0.05

    /// `result` with each face of `found` (best first) that overlaps none of
    /// it and scores `alone` or more, or beats every face it overlaps (by
    /// `margin`).
    static func merged(_ first: [Subject], _ found: [Subject], alone: Double) -> [Subject] {
        var result = first
        let ranked = found.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }
        for face in ranked.map(\.element) {
            let rivals = result.filter { $0.box.iou(face.box) >= 0.3 }
            let wins = rivals.isEmpty ? face.score >= alone : rivals.allSatisfy { face.score >= $0.score + (sideways($0) ? 0 : margin) }
            guard wins else { continue }
            result.removeAll { $0.box.iou(face.box) >= 0.3 }
            result.append(face)
        }
        return result
    }

    /// The glance's canvas: the detection decode shrunk by a whole factor
    /// to this long side or less (a tenth of the pixels of a 1024 px pass
    /// or fewer; a portrait's face is 40 px or more there).
    package static let glanceSide = 320

    /// A photo whose best face scores less is glanced at (`glanced`), and
    /// a face found on a canvas the glance chose is kept from this score
    /// where the first pass found none: CenterFace gives the faces of the
    /// people dev set's portraits 0.78 to 0.94 upright (9 of 25 under
    /// `sure`). Glancing at every photo with no face scoring `sure` cost
    /// the 12 MP benchmark's upright crowds 45 % more CPU time (32.3 s
    /// against 22.2 s): most have no face that sure.
    package static let glanceSure = 0.7

    /// The turns a glance looks at (sideways scans are the commoner).
    /// CenterFace finds most faces lying on their side on the photo as it
    /// is, but misses most of those upside down; and a face on its side
    /// that it takes for an upright one scoring less than `sure` is beaten
    /// by the one found upright on its canvas. People dev set, glancing at
    /// the half turn only: found 69 of 75 turned faces, 62 of them upright;
    /// at all three: 72 of 75, 71 upright (`glanceSure` 0.9).
    package static let glanceTurns = [1, 3, 2]

    /// The turns of `glanceTurns` whose canvas, shrunk (`glanceSide`), holds
    /// a face upright there: what a photo with no sure face costs is three
    /// passes of a tenth of the pixels.
    private static func glanced(
        gray: GrayImage, rgb: RGBImage?, minSide: Int,
        search: Search
    ) throws(FaceCropError) -> [Int] {
        let factor = max(1, (max(gray.width, gray.height) + glanceSide - 1) / glanceSide)
        let (small, colour) = (gray.shrunk(by: factor), rgb?.shrunk(by: factor))
        var turns: [Int] = []
        for quarters in glanceTurns {
            let back = QuarterTurn(quarters: quarters).reversed
            let found = try search(small.turned(back), colour?.turned(back), max(1, minSide / factor))
            if found.contains(where: { Self.turn(of: $0).isUpright && $0.five != nil }) { turns.append(quarters) }
        }
        return turns
    }

    /// The quarter turn of a face found with five landmarks (upright without).
    package static func turn(of face: Subject) -> QuarterTurn {
        guard let five = face.five, let roll = QuarterTurn.roll(of: five) else { return .upright }
        return QuarterTurn.nearest(roll: roll)
    }

    /// The faces upright on the canvas turned back by `turn` (those lying
    /// within a tilt of upright there), in `gray`'s pixels, marked `turn`.
    private static func upright(
        on turn: QuarterTurn, gray: GrayImage, rgb: RGBImage?,
        search: (GrayImage, RGBImage?) throws(FaceCropError) -> [Subject]
    ) throws(FaceCropError) -> [Subject] {
        let back = turn.reversed
        let canvas = gray.turned(back)
        let found = try search(canvas, rgb?.turned(back))
        let toPhoto = turn.turning(width: canvas.width, height: canvas.height)
        return found.filter { Self.turn(of: $0).isUpright && $0.five != nil }.map { face in
            var face = face
            face.box = turn.turn(face.box, width: canvas.width, height: canvas.height)
            face.five = face.five?.mapped(toPhoto)
            face.eyes = face.five.map { five in
                let (a, b) = (five[.leftEye], five[.rightEye])
                return EyePair(x1: a.x, y1: a.y, x2: b.x, y2: b.y)
            }
            face.turned = turn
            return face
        }
    }
}
