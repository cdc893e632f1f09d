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
/// Measured on the detection decode (exposure, pose, softness) and the
/// placement (outside, upscaled); `sharpness` stays the face's own field.
package struct FaceQuality: Sendable, Equatable {
    /// nil: no five points were found (no landmarks from the detector, and
    /// dlib's predictor not installed).
    package var pose: FacePose?
    /// Eye distance in photo pixels where there is a pose, else the box's
    /// longer side.
    package var facePx: Double
    /// How soft the face is in the pixels the detector saw
    /// (`CFaceDetect_Softness`): about 0.5 for detail at the pixel grid's
    /// limit, m times that for a face enlarged m times.
    package var softness = 0.5
    /// The eye distance counted in detail: in the detector's pixels, at a
    /// sharp photo's softness (`QualityScore.detail`). Enlarging a photo
    /// leaves it as it was.
    package var detailPx = 0.0
    /// Softness at the scale of the photo file's 8 x 8 JPEG blocks
    /// (`CFaceDetect_BlockSoftness`; nil: the box holds too few blocks). Not
    /// written: `setJPEG(quality:)` makes it the softness of a file so
    /// compressed that its blocks hold no finer detail.
    package var blockSoftness: Double? = nil
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
    /// From the face mesh (`FaceMeshMeasures`; nil: its model is not
    /// installed, or the face has no five points): how open each eye is, the
    /// one nearer the image's left first (about 0.2 open, under 0.1 closed;
    /// nil too for eyes under `FaceMeshMeasures.minEyeDistance` apart), and
    /// the probability that the face is a face.
    package var eyesOpen: [Double]? = nil
    package var facePresence: Double? = nil
    /// From the face mesh's chip and points too (`FaceOcclusion`; nil as
    /// `eyesOpen`): how likely dark glasses cover the eyes, and a mask or a
    /// hand the nose and mouth.
    package var covered: FaceOcclusion.Covered? = nil
    /// The score 0...1; the factors below their level ("something is
    /// wrong"), worst first, and the worst of them ("": none).
    package var score = 0.0
    package var reasons: [String] = []
    package var reason: String { reasons.first ?? "" }

    package init(
        pose: FacePose?, facePx: Double, softness: Double, detailPx: Double, upscaled: Bool, mean: Double, dark: Double,
        bright: Double, blocks: Double, jpegQuality: Int?, outside: Double, score: Double, reasons: [String]
    ) {
        (self.pose, self.facePx, self.softness, self.detailPx, self.upscaled) = (pose, facePx, softness, detailPx, upscaled)
        (self.mean, self.dark, self.bright, self.blocks) = (mean, dark, bright, blocks)
        (self.jpegQuality, self.outside, self.score, self.reasons) = (jpegQuality, outside, score, reasons)
    }

    /// Sets the photo file's JPEG quality. At `QualityScore.blockQuality` or
    /// below a block keeps about one value (its mean and a step or two), so
    /// the blocks' edges are not detail: the softness is the block scale's
    /// where that is softer, and the detail follows it.
    package mutating func setJPEG(quality: Int?) {
        jpegQuality = quality
        guard let quality, quality <= QualityScore.blockQuality, let block = blockSoftness, block > softness else { return }
        let soft = (block * 100).rounded() / 100
        detailPx = (detailPx * (softness / soft) * (softness / soft) * 10).rounded() / 10
        softness = soft
    }

    /// Whether `--min-face-quality` / `--max-yaw` / `--eyes open` leave the
    /// face out; a face turned too far has reason `profile` first then,
    /// whatever else is wrong, and one left out for its eyes `eyes_closed`.
    package mutating func leftOut(minScore: Double, maxYaw: Double, eyesOpen: Bool = false) -> Bool {
        if let pose, abs(pose.yaw) > maxYaw {
            reasons = ["profile"] + reasons.filter { $0 != "profile" }
            return true
        }
        if eyesOpen, reasons.contains("eyes_closed") {
            reasons = ["eyes_closed"] + reasons.filter { $0 != "eyes_closed" }
            return true
        }
        return score < minScore
    }

    /// Sets `score` and `reasons` from the measures.
    package mutating func rate() {
        let parts = QualityScore.parts(self)
        let product = parts.reduce(1.0) { $0 * $1.value }
        score = (product * 10_000).rounded() / 10_000
        // Worst first: the lowest share of its own level; the table's order on a tie.
        reasons = parts.enumerated().filter { $0.element.value < $0.element.level }
            .sorted { ($0.element.value / $0.element.level, $0.offset) < ($1.element.value / $1.element.level, $1.offset) }
            .map(\.element.name)
    }
}
