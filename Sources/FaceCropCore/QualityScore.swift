import Foundation

/// The score: a product of one factor per measure. Each factor is 1 over
/// the range where nothing is wrong (its `fine` edge) and falls outside it,
/// to its `level` at the `wrong` point and on towards 0; `quality_reasons`
/// are the factors below their level. The edges are calibrated by
/// scripts/eval_quality.py (docs/quality.md).
package enum QualityScore {
    /// The score's meaning: stats.json's settings carry it, so a dataset
    /// scored by another meaning is processed again (`--check` says so).
    /// 1: saturating factors (no version in the settings); 2: factors with a
    /// range where nothing is wrong, softness and detail for blur and size;
    /// 3: the face mesh's eyes and face presence (`eyes_closed`, `not_a_face`);
    /// 4: `eyes_open` is the upper lid's height, so a smile's squint is no
    /// blink; the yaw and roll of a face whose five points the detector gave
    /// come from the face mesh (`MeshPose`); a JPEG file at
    /// `blockQuality` or below has the softness of its blocks, and the `jpeg`
    /// factor falls on past `wreck`.
    /// 5: covered faces (`occlusion`, `occluded`).
    /// 6: no `eyes_open` for eyes under `FaceMeshMeasures.minEyeDistance`
    /// apart; the more closed eye weighs more (`closedEyeWeight`).
    /// Also 6: `occlusion` reads the face mesh's chip in colour too (a mask's
    /// colour against the face's own skin), with models fitted again.
    /// 7: `occlusion`'s models read each eye alone and the lower face's edges
    /// too, fitted again, their biases chosen by cross-validation.
    package static let version = 7

    /// Where a measure stops being fine and where it is wrong; the factor is
    /// `level` at `wrong`.
    package struct Edge: Sendable {
        package var fine: Double
        package var wrong: Double

        package init(fine: Double, wrong: Double) { (self.fine, self.wrong) = (fine, wrong) }

        /// 1 on the fine side, then 1 / (1 + (d / s)^2), d the distance past
        /// `fine` and s such that the factor is `level` at `wrong`.
        package func factor(_ x: Double) -> Double {
            let past = wrong > fine ? x - fine : fine - x
            guard past > 0 else { return 1 }
            let span = abs(wrong - fine) / (1 / QualityScore.level - 1).squareRoot()
            return 1 / (1 + (past / span) * (past / span))
        }
    }

    /// Every factor's value at its `wrong` point: below it the factor is a reason.
    package static let level = 0.75
    /// Softness in the detector's pixels: the devset's faces lie at 0.7-1.15,
    /// its copies blurred by 1/250 of the photo's side at 1.6 and above,
    /// enlarged 2x at 1.1-1.7.
    package static let softness = Edge(fine: 1.0, wrong: 1.3)
    /// Detail: the eye distance in the detector's pixels at a sharp photo's
    /// softness (`detail(eyes:softness:)`). A default crop (--size 256,
    /// --margin 0.4) spans about 62 px of eye distance: fine at 40 (enlarged
    /// 1.5x), wrong at 20 (3x; a face box of about 46 px).
    package static let detail = Edge(fine: 40, wrong: 20)
    /// Mean brightness, too dark and too bright.
    package static let darkMean = Edge(fine: 0.25, wrong: 0.22)
    package static let brightMean = Edge(fine: 0.75, wrong: 0.85)
    /// Shares of clipped pixels, at 10 or less and at 245 or more.
    package static let darkClipped = Edge(fine: 0.1, wrong: 0.3)
    package static let brightClipped = Edge(fine: 0.03, wrong: 0.1)
    /// JPEG blocking and the file's JPEG quality.
    package static let blocking = Edge(fine: 1.5, wrong: 2.0)
    package static let jpegQuality = Edge(fine: 50, wrong: 25)
    /// A JPEG file's quality at which its 8 x 8 blocks keep about one value
    /// each (libjpeg's quantisation tables at 10 or below leave a block its
    /// mean and a step or two): the blocks' edges are no detail
    /// (`FaceQuality.setJPEG(quality:)`).
    package static let blockQuality = 10
    /// At `blockQuality` or below the file is a wreck whatever its pixels
    /// show: 1 from quality 11, 0.11 at 10, 0.03 at 9. Steep, because its
    /// copy's softness can still read about as sharp as a soft original's
    /// where the decode is small (blocks of 2 px for a 4032 px photo): on
    /// soft originals scoring 0.036-0.35, their copies at 5 and 10 score
    /// below them only with a factor under 0.15 (docs/quality.md).
    package static let wreck = Edge(fine: 11, wrong: 10.8)
    /// Yaw in degrees either way.
    package static let yaw = Edge(fine: 30, wrong: 45)
    /// Share of the crop outside the photo.
    package static let outside = Edge(fine: 0.02, wrong: 0.15)

    /// The two eyes' openness (the upper lid's height over the eye's width,
    /// `FaceMeshMeasures.openness`, weighed by `eyes(_:)`): on the tuning
    /// half of the eye set with CenterFace, 92.7 % of the closed-eyed faces
    /// lie below 0.12 and 1.8 % of the open ones; open eyes lie at
    /// 0.15-0.25, a broad smile's at 0.10-0.18 (docs/quality.md).
    package static let eyesOpen = Edge(fine: 0.14, wrong: 0.12)
    /// The more closed eye's share of the two eyes' openness. The iris
    /// network often reads one eye of a blink a little open (0.13-0.14, the
    /// other 0.11); a smile narrows both eyes alike. On the tuning half of
    /// the eye set, at the same edges, the mean (0.5) named 91.1 % of the
    /// closed faces with CenterFace and 95.7 % with the default detector;
    /// 0.6 names 92.7 % and 96.8 %, and no more open-eyed faces there, on
    /// the people-devset or on the detection devset's faces of 12 px or
    /// more. 0.67 names one more Wozniak laugh; the more closed eye alone
    /// (1) names it too, and 25 of those crowd faces against 13.
    package static let closedEyeWeight = 0.6

    /// What the `eyes_closed` factor reads of the two eyes' openness.
    package static func eyes(_ open: [Double]) -> Double {
        guard let low = open.min(), let high = open.max() else { return 1 }
        return closedEyeWeight * low + (1 - closedEyeWeight) * high
    }
    /// The face mesh's face-presence probability.
    package static let facePresence = Edge(fine: 0.5, wrong: 0.2)
    /// The more likely of covered eyes and a covered mouth
    /// (`FaceOcclusion`): set on the calibration half of the covered and
    /// uncovered faces (docs/quality.md).
    package static let covered = Edge(fine: 0.35, wrong: 0.5)

    /// The `small` factor.
    package static func sizeFactor(_ q: FaceQuality) -> Double { detail.factor(q.detailPx) }

    /// The `jpeg` factor: blocking, and the file's quality on both edges.
    package static func jpegFactor(_ q: FaceQuality) -> Double {
        let quality = Double(q.jpegQuality ?? 100)
        return blocking.factor(q.blocks) * jpegQuality.factor(quality) * wreck.factor(quality)
    }

    /// The `eyes_closed` factor: the two eyes' openness (`eyes(_:)`; 1
    /// without it, as for eyes too small to read).
    package static func eyesFactor(_ q: FaceQuality) -> Double {
        q.eyesOpen.map { eyesOpen.factor(eyes($0)) } ?? 1
    }

    /// Each factor: its reason's name, value and level, in the table's order.
    package static func parts(_ q: FaceQuality) -> [(name: String, value: Double, level: Double)] {
        let yaw = abs(q.pose?.yaw ?? 0)
        return [
            ("blur", softness.factor(q.softness), level),
            ("small", sizeFactor(q), level),
            ("dark", darkMean.factor(q.mean) * darkClipped.factor(q.dark), level),
            ("bright", brightMean.factor(q.mean) * brightClipped.factor(q.bright), level),
            ("jpeg", jpegFactor(q), level),
            ("profile", self.yaw.factor(yaw), level),
            ("padding", outside.factor(q.outside), level),
            ("eyes_closed", eyesFactor(q), level),
            ("not_a_face", q.facePresence.map(facePresence.factor) ?? 1, level),
            ("occluded", q.covered.map { covered.factor($0.either) } ?? 1, level),
        ]
    }

    /// The softness of a sharp photo's face in the detector's pixels (the
    /// median of the dev sets' faces is 0.85-0.9).
    package static let sharpSoftness = 0.85
    /// Softness grows as about m^0.6 when a face is enlarged m times
    /// (Lanczos; 2x gave 1.45-1.6 times the softness on people-devset and
    /// devset faces), so the detail divides by softness^2, more than the
    /// 1 / 0.6 that would only keep it level: the eye distance of a face of
    /// 10-20 px moves by up to 30 % between two sizes of one photo, and an
    /// enlarged face must still hold less detail than its source.
    package static let detailPower = 2.0

    /// The detail of a face: its eye distance `eyes` in the detector's
    /// pixels, counted at the softness of a sharp photo.
    package static func detail(eyes: Double, softness: Double) -> Double {
        eyes * pow(sharpSoftness / max(softness, 0.5), detailPower)
    }
}
