import Foundation
import FaceCropCore
import FaceCropImaging

/// One way of finding the target in a photo's detection decode: chosen once,
/// when a worker's `Detector` is made.
///
/// Not thread-safe: a finder owns OpenCV objects (CenterFace's networks
/// excepted, which lock); it is used by the one task its `Detector` is lent to.
package protocol FaceFinder: AnyObject {
    /// Whether `find` needs the photo's colour pixels (the networks).
    var needsColour: Bool { get }

    /// The target in `gray` (and `rgb`, the same pixels in colour, when
    /// `needsColour`), in `gray`'s pixels. `minSide`: smallest box side of
    /// interest, in `gray`'s pixels.
    func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject]

    /// `landmarks` (in `picture`'s pixels) measured again on the face cut
    /// upright at ArcFace's scale (`Alignment.remeasured`) by a finder that
    /// can (YuNet); the others give them back as they are.
    func remeasured(_ landmarks: FaceLandmarks, in picture: Picture, source: String) throws(FaceCropError) -> FaceLandmarks

    /// How sure `face`, found by `find` on `gray`, is a face, 0...1, for a
    /// finder whose scores do not say (`SingleCascade`); nil: its score says.
    func verdict(of face: Subject, in gray: GrayImage, source: String) throws(FaceCropError) -> Double?
}

extension FaceFinder {
    package var needsColour: Bool { false }

    package func remeasured(_ landmarks: FaceLandmarks, in picture: Picture, source: String) throws(FaceCropError) -> FaceLandmarks {
        landmarks
    }

    package func verdict(of face: Subject, in gray: GrayImage, source: String) throws(FaceCropError) -> Double? { nil }
}

/// Something found in a photo, in pixels of the image searched.
package struct Subject: Sendable, Equatable {
    package var box: PixelRect
    /// 0...1 for `cascade` and `yunet`; the level weight for `haar` and the
    /// other targets.
    package var score: Double
    /// The eye centres (left in the image first), when they were found.
    package var eyes: EyePair?
    /// Five landmarks found together (YuNet, CenterFace).
    package var five: FaceLandmarks? = nil
    /// How the face lies in the image searched (`TurnedFaces`): upright,
    /// unless it was found again on a turned canvas.
    package var turned = QuarterTurn.upright
    /// Degrees the face is rolled clockwise, when it was found on a canvas
    /// turned back by that much (`TurnedFaces.onRolledCanvases`); what
    /// `--align level` turns it by where its eyes were not found there.
    package var rolled: Double? = nil

    /// The five landmarks: YuNet's, or from the eyes the cascades found
    /// (whose box centres are in pixel-edge coordinates) with nose and
    /// mouth estimated.
    package var landmarks: FaceLandmarks? {
        five ?? eyes.map { LandmarkEstimate.fromEyes(Point2D($0.x1 - 0.5, $0.y1 - 0.5), Point2D($0.x2 - 0.5, $0.y2 - 0.5)) }
    }

    package init(box: PixelRect, score: Double, eyes: EyePair? = nil, five: FaceLandmarks? = nil) {
        (self.box, self.score, self.eyes, self.five) = (box, score, eyes, five)
    }
}

package struct EyePair: Sendable, Equatable {
    package var x1: Double, y1: Double, x2: Double, y2: Double

    /// Degrees the eye line is turned clockwise from level (image y grows down).
    package var angle: Double { atan2(y2 - y1, x2 - x1) * 180 / .pi }

    package init(x1: Double, y1: Double, x2: Double, y2: Double) {
        (self.x1, self.y1, self.x2, self.y2) = (x1, y1, x2, y2)
    }
}

extension Calibration.BoxCorrection {
    /// Every face box of `found` corrected, in a `width` x `height` image.
    package func apply(_ found: [Subject], width: Int, height: Int) -> [Subject] {
        found.map { face in
            var face = face
            face.box = apply(face.box, width: width, height: height)
            return face
        }
    }
}
