import Foundation

/// Whether a face is covered, read from the face mesh's chip (the upright
/// 192 px square it ran on, in grey and in colour) and its 468 points: dark
/// glasses over the eyes, a mask or a hand over the nose and mouth
/// (docs/quality.md, "Covered faces"). Grey and colour statistics of small
/// patches around named mesh points (`FaceOcclusionRegions`), each region
/// against the face's own skin, so that a dark or pale face, a dim photo or
/// a colour cast reads as itself. Two logistic models over them, fitted by
/// scripts/fit-occlusion on the calibration half of a set of faces with
/// sunglasses, with masks and uncovered; each gives a probability 0-1.
package enum FaceOcclusion {
    /// The measure: how likely the eyes and the mouth are covered, 0-1.
    package struct Covered: Sendable, Equatable {
        package var eyes: Double
        package var mouth: Double

        package init(eyes: Double, mouth: Double) { (self.eyes, self.mouth) = (eyes, mouth) }

        /// The more likely of the two: what the `occluded` factor reads.
        package var either: Double { max(eyes, mouth) }
    }

    /// The eye distance, in the detection decode's pixels, below which a face
    /// is not read (no `occlusion`): the chip enlarges it more than 2.6
    /// times and the patches blur into each other. On the detection dev set
    /// (CenterFace, crowds at 416 px) 68 of the 319 faces under 20 px were
    /// marked, none of them covered; of the 49 at 20 px or more, 8, at least
    /// 5 of them in dark glasses.
    package static let minEyeDistance = 20.0

    /// The features, each region against the face's own skin: for the
    /// eyes, their brightness against the forehead, nose tip and cheeks, the
    /// cheeks and the temples; their spread against the skin's and the
    /// brows' and forehead's; the skin below them against the forehead; the
    /// mesh's face score (log); and their colour against the forehead, brows
    /// and temples (chromaticity distance and redness). For the mouth, the
    /// lower face (nostrils, lips, chin, jaw) against the upper (forehead,
    /// under the eyes, the nose's bridge) in brightness either way and in
    /// spread; the line between the lips against the chin, the nostrils
    /// against the nose tip, the jaw against the skin under the eyes; and
    /// in colour the lower face, the lips and the chin and jaw against the
    /// forehead, brows and temples. Last in each, edge energy: the eyes'
    /// against the skin's (a lens is flat glass where an eye has lids, lashes
    /// and an iris), the lips' and nostrils' against the cheeks' (a mask's
    /// cloth has no lip line or nostrils). On the calibration half's
    /// cross-validation the two raised the AUC over uncovered faces from
    /// 0.970 to 0.974 (eyes) and from 0.945 to 0.958 (mouth)
    /// (scripts/fit-occlusion computes the same).
    /// Colour only as a difference from the face's own skin: a black and
    /// white photo reads as skin-coloured throughout, and its grey features
    /// decide (with the chromaticities themselves as features, the
    /// detection dev set's black and white portrait with glasses,
    /// `2_Demonstration_Political_Rally_2_816`, read as masked).
    static func features(_ r: [String: FaceOcclusionRegions.Stats], presence: Double) -> (eyes: [Double], mouth: [Double]) {
        func region(_ names: String...) -> FaceOcclusionRegions.Stats {
            FaceOcclusionRegions.Stats.pooled(names.compactMap { r[$0] })
        }
        let (eye, skin, top) = (region("eyes"), region("forehead", "noseTip", "cheeks"), region("forehead", "brows", "temples"))
        let (fore, under, cheeks, temples) = (region("forehead"), region("underEyes"), region("cheeks"), region("temples"))
        let (upper, lower) = (region("forehead", "underEyes", "bridge"), region("nostrils", "lips", "chin", "jaw"))
        let (inner, chin, nostril, tip, jaw) = (
            region("innerLips"), region("chin"), region("nostrils"), region("noseTip"), region("jaw")
        )
        let (lips, chinJaw, mouthNose) = (region("lips"), region("chin", "jaw"), region("lips", "nostrils"))
        func ratio(_ a: Double, _ b: Double) -> Double { log((a + 1) / (b + 1)) }
        func contrast(_ a: Double, _ b: Double) -> Double { log((a + 4) / (b + 4)) }
        return (
            [
                ratio(eye.mean, skin.mean), ratio(under.mean, fore.mean), contrast(eye.sd, skin.sd),
                ratio(eye.mean, cheeks.mean), contrast(eye.sd, top.sd), log(presence + 0.01), ratio(eye.mean, temples.mean),
                eye.chromaDistance(top) / 10, (eye.redness - top.redness) / 10, contrast(eye.edge, skin.edge),
            ],
            [
                abs(ratio(lower.mean, upper.mean)), contrast(lower.sd, upper.sd), ratio(inner.mean, chin.mean),
                ratio(nostril.mean, tip.mean), ratio(jaw.mean, under.mean),
                lower.chromaDistance(top) / 10, (lower.redness - top.redness) / 10, (lips.redness - top.redness) / 10,
                chinJaw.chromaDistance(top) / 10, contrast(mouthNose.edge, cheeks.edge),
            ]
        )
    }

    /// The logistic models' weights and bias, fitted by scripts/fit-occlusion
    /// on the calibration half (even CRC-32) of the covered-face set, the
    /// faces the default cascades and CenterFace find pooled
    /// (docs/quality.md, "Covered faces"). The eyes' bias is the fit's less
    /// 0.25, the mouth's less 0.75: in five-fold cross-validation on that
    /// half (`--cv 3`) the pair that marks most of CenterFace's covered faces
    /// with at most 3 % of each detector's uncovered ones (CenterFace:
    /// sunglasses 83 %, masks 82 %, uncovered 2.8 %; the default 100, 83
    /// and 1.4 %), where both lowered by 0.5 as before gave 77, 84 and 3.5 %.
    static let eyesModel = (
        weights: [-0.264, -1.698, -0.374, -0.500, -0.250, -0.497, -0.749, 1.740, -0.745, -0.990], bias: -1.673
    )
    static let mouthModel = (
        weights: [0.484, -0.582, 0.765, 0.438, -0.746, 1.455, -0.159, -1.005, 1.359, -1.289], bias: -2.569
    )

    static func probability(_ x: [Double], _ model: (weights: [Double], bias: Double)) -> Double {
        let z = zip(x, model.weights).reduce(model.bias) { $0 + $1.0 * $1.1 }
        return ((1 / (1 + exp(-z))) * 1000).rounded() / 1000
    }

    /// How likely the eyes and the mouth are covered (0-1, to 0.001), from
    /// the chip (`side` x `side` grey, rows packed), the same chip in colour
    /// (3 bytes a pixel; empty: none), the mesh's points in its pixels and
    /// its face-presence probability.
    package static func measure(chip: [UInt8], colour: [UInt8], side: Int, points: [Point2D], presence: Double) -> Covered {
        let regions = FaceOcclusionRegions.read(chip: chip, colour: colour, side: side, points: points)
        OcclusionProbe.sink?(regions, presence)
        let found = features(regions, presence: presence)
        return Covered(eyes: probability(found.eyes, eyesModel), mouth: probability(found.mouth, mouthModel))
    }
}
