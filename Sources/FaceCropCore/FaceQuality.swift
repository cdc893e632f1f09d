import Foundation

/// A face's head pose in degrees (see docs/quality.md for the signs): yaw > 0
/// turns towards the image's right, pitch > 0 looks up, roll > 0 is turned
/// clockwise in the image. A mirrored photo gives the opposite yaw and roll.
package struct FacePose: Sendable, Equatable {
    package var yaw: Double
    package var pitch: Double
    package var roll: Double

    package init(yaw: Double, pitch: Double, roll: Double) {
        (self.yaw, self.pitch, self.roll) = (yaw, pitch, roll)
    }

}

/// How good one face's crop is: what is measured, and the score made of it.
/// Measured on the detection decode (exposure, pose) and the placement
/// (outside, upscaled); `sharpness` stays the face's own field.
package struct FaceQuality: Sendable, Equatable {
    /// nil: no five points were found (no landmarks from the detector, and
    /// dlib's predictor not installed).
    package var pose: FacePose?
    /// Eye distance in photo pixels where there is a pose, else the box's
    /// longer side.
    package var facePx: Double
    /// The crop was enlarged to reach `--size`.
    package var upscaled = false
    /// Mean brightness 0...1 of the box's middle; shares of clipped dark and
    /// blown-out pixels in it.
    package var mean: Double
    package var dark: Double
    package var bright: Double
    /// Strength of JPEG blocking in the box (1: none; see CFaceDetect_Exposure).
    package var blocks: Double
    /// The photo file's JPEG quality (`JPEGQuality`; nil: not a JPEG file,
    /// a video frame).
    package var jpegQuality: Int?
    /// Share of the crop lying outside the photo (padding).
    package var outside = 0.0
    /// The score 0...1 and the measure that weighs it down most.
    package var score = 0.0
    package var reason = ""

    package init(
        pose: FacePose?, facePx: Double, upscaled: Bool, mean: Double, dark: Double, bright: Double, blocks: Double,
        jpegQuality: Int?, outside: Double, score: Double, reason: String
    ) {
        (self.pose, self.facePx, self.upscaled, self.mean, self.dark, self.bright, self.blocks) =
            (pose, facePx, upscaled, mean, dark, bright, blocks)
        (self.jpegQuality, self.outside, self.score, self.reason) = (jpegQuality, outside, score, reason)
    }

    /// Whether `--min-face-quality` / `--max-yaw` leave the face out; a face
    /// turned too far has reason `profile` then, whatever else is weakest.
    package mutating func leftOut(minScore: Double, maxYaw: Double) -> Bool {
        if let pose, abs(pose.yaw) > maxYaw {
            reason = "profile"
            return true
        }
        return score < minScore
    }

    /// The score with its size factor taken out: how well the face's pixels
    /// show it, whatever its size. `--people` holds it against a floor
    /// (`PeopleRule.minCoreQuality`), because the grouping already weighs
    /// size by its own rule.
    package var apartFromSize: Double {
        let size = QualityScore.sizeFactor(self)
        return size > 0 ? min(1, score / size) : 0
    }

    /// Sets `score` and `reason` from the measures and `sharpness`.
    package mutating func rate(sharpness: Double) {
        let parts = QualityScore.parts(self, sharpness: sharpness)
        let product = parts.reduce(1.0) { $0 * $1.value }
        score = (product * 10_000).rounded() / 10_000
        reason = parts.min { $0.value < $1.value }?.name ?? ""
    }
}

/// The score: a product of one factor per measure, each 0...1 and 1 for a
/// face with nothing wrong; `quality_reason` is the lowest factor's name.
/// The constants are calibrated by scripts/eval_quality.py (docs/quality.md).
package enum QualityScore {
    /// Sharpness (variance of the Laplacian at 96 px) at which the blur factor is 0.5.
    package static let sharpHalf = 40.0
    /// Eye distance (photo pixels) at which the size factor is 0.5.
    package static let sizeHalf = 12.0
    /// Mean brightness at which the dark factor is 0.5.
    package static let darkHalf = 0.03
    /// Mean brightness (from white) at which the bright factor is 0.5.
    package static let brightHalf = 0.10
    /// JPEG blocking above 1 at which the JPEG factor is 0.5.
    package static let blocksHalf = 1.0
    /// File JPEG quality at which its part of the JPEG factor is half its value at 100.
    package static let jpegHalf = 5.0
    /// Yaw at which the profile factor is 0.5.
    package static let yawHalf = 60.0

    private static func half(_ x: Double, _ h: Double) -> Double { x <= 0 ? 0 : x / (x + h) }

    /// The `small` factor: the eye distance against `sizeHalf`.
    package static func sizeFactor(_ q: FaceQuality) -> Double {
        // A box without points: its side is about 2.3 eye distances.
        half(q.pose == nil ? q.facePx / 2.3 : q.facePx, sizeHalf)
    }

    package static func parts(_ q: FaceQuality, sharpness: Double) -> [(name: String, value: Double)] {
        let yaw = abs(q.pose?.yaw ?? 0)
        return [
            ("blur", half(sharpness, sharpHalf)),
            ("small", sizeFactor(q)),
            ("dark", half(q.mean, darkHalf) * (1 - q.dark)),
            ("bright", half(1 - q.mean, brightHalf) * (1 - q.bright)),
            ("jpeg", 1 / (1 + pow(max(0, q.blocks - 1) / blocksHalf, 2)) * half(Double(q.jpegQuality ?? 100), jpegHalf) / half(100, jpegHalf)),
            ("profile", 1 / (1 + pow(yaw / yawHalf, 4))),
            ("padding", 1 - q.outside),
        ]
    }
}
