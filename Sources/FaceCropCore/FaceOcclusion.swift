import Foundation

/// Whether a face is covered, read from the face mesh's chip (the upright
/// 192 px grey square it ran on) and its 468 points: dark glasses over the
/// eyes, a mask or a hand over the nose and mouth (docs/quality.md,
/// "Covered faces"). Grey statistics of small patches around named mesh
/// points, each region against the face's own skin, so that a dark or pale
/// face, or a dim photo, reads as itself. Two logistic models over them,
/// fitted on the calibration half of a set of faces with sunglasses, with
/// masks and uncovered; each gives a probability 0-1.
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

    /// Mesh points (MediaPipe's canonical face mesh) of each region.
    static let forehead = [10, 151, 9, 108, 337, 67, 297, 109, 338, 69, 299, 104, 333]
    static let eyes = [
        33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246,
        263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466,
    ]
    static let underEyes = [117, 118, 119, 100, 346, 347, 348, 329, 230, 231, 450, 451]
    static let cheeks = [50, 280, 205, 425, 36, 266, 187, 411, 123, 352]
    static let bridge = [6, 168, 197, 195]
    static let noseTip = [1, 4, 5, 19, 94]
    static let nostrils = [98, 327, 2, 97, 326, 64, 294]
    static let lips = [61, 291, 0, 17, 37, 267, 84, 314, 13, 14, 78, 308, 39, 269, 181, 405]
    static let innerLips = [13, 14, 78, 308, 82, 312, 87, 317]
    static let chin = [152, 175, 199, 200, 18, 171, 396]
    static let jaw = [57, 287, 202, 422, 210, 430, 135, 364, 212, 432]

    /// A patch is the (2r + 1)² chip pixels around a point (cut at the
    /// chip's edge): r = 5 of 192 px, about a tenth of the eye distance.
    static let radius = 5

    /// The grey values of the patches around `indices`.
    static func values(_ chip: [UInt8], side: Int, points: [Point2D], _ indices: [Int]) -> [Double] {
        var out: [Double] = []
        // A point off the chip by more than its side (or not a number) has no patch.
        for index in indices where index < points.count && abs(points[index].x) < 2e3 && abs(points[index].y) < 2e3 {
            let (cx, cy) = (Int(points[index].x.rounded(.toNearestOrEven)), Int(points[index].y.rounded(.toNearestOrEven)))
            let (x0, x1) = (max(0, cx - radius), min(side - 1, cx + radius))
            let (y0, y1) = (max(0, cy - radius), min(side - 1, cy + radius))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 { out.append(Double(chip[y * side + x])) }
            }
        }
        return out
    }

    /// Mean and standard deviation (of the population; 0 for none).
    static func stats(_ v: [Double]) -> (mean: Double, sd: Double) {
        guard !v.isEmpty else { return (0, 0) }
        let mean = v.reduce(0, +) / Double(v.count)
        return (mean, (v.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(v.count)).squareRoot())
    }

    /// The features: for the eyes, their brightness and contrast against
    /// the forehead, nose tip and cheeks, and the skin below them against the
    /// forehead; for the mouth, the lower face (nostrils, lips, chin, jaw)
    /// against the upper (forehead, under the eyes, the nose's bridge), the
    /// line between the lips against the chin, the nostrils against the
    /// nose tip, and the jaw against the skin under the eyes.
    static func features(_ chip: [UInt8], side: Int, points: [Point2D]) -> (eyes: [Double], mouth: [Double]) {
        func region(_ indices: [Int]...) -> (mean: Double, sd: Double) {
            stats(indices.flatMap { values(chip, side: side, points: points, $0) })
        }
        let (eye, skin) = (region(eyes), region(forehead, noseTip, cheeks))
        let (fore, under) = (region(forehead), region(underEyes))
        let (upper, lower) = (region(forehead, underEyes, bridge), region(nostrils, lips, chin, jaw))
        let (inner, chinPart, nostril, tip, jawPart) = (region(innerLips), region(chin), region(nostrils), region(noseTip), region(jaw))
        func ratio(_ a: Double, _ b: Double) -> Double { log((a + 1) / (b + 1)) }
        func contrast(_ a: Double, _ b: Double) -> Double { log((a + 4) / (b + 4)) }
        return (
            [ratio(eye.mean, skin.mean), ratio(under.mean, fore.mean), contrast(eye.sd, skin.sd)],
            [
                abs(ratio(lower.mean, upper.mean)), contrast(lower.sd, upper.sd), ratio(inner.mean, chinPart.mean),
                ratio(nostril.mean, tip.mean), ratio(jawPart.mean, under.mean),
            ]
        )
    }

    /// The logistic models' weights and bias, fitted on the calibration
    /// half (docs/quality.md). The mouth's bias is the fit's less 1.85 (its
    /// 0.5 is the fit's 0.86): at the fit's 0.73 it marked 9 % of that half's
    /// uncovered faces found by CenterFace, at this 2 %.
    static let eyesModel = (weights: [-0.861, -3.437, -0.435], bias: -2.088)
    static let mouthModel = (weights: [1.395, -2.197, 3.024, 3.947, -2.229], bias: -2.726)

    static func probability(_ x: [Double], _ model: (weights: [Double], bias: Double)) -> Double {
        let z = zip(x, model.weights).reduce(model.bias) { $0 + $1.0 * $1.1 }
        return ((1 / (1 + exp(-z))) * 1000).rounded() / 1000
    }

    /// How likely the eyes and the mouth are covered (0-1, to 0.001), from
    /// the chip (`side` x `side` grey, rows packed) and the mesh's points in
    /// its pixels.
    package static func measure(chip: [UInt8], side: Int, points: [Point2D]) -> Covered {
        let found = features(chip, side: side, points: points)
        return Covered(eyes: probability(found.eyes, eyesModel), mouth: probability(found.mouth, mouthModel))
    }
}
