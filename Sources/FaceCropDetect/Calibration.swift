import Foundation
import FaceCropCore

/// What the detectors' fitted numbers share. Each detector's own numbers
/// (its default minimum score, box correction, reach and scores) are
/// declared in its finder's file (`DetectorFacts`), fitted on the
/// development set (160 WIDER FACE validation photos, 183 faces >= 24 px;
/// docs/measurements.md, Measured quality). The own set of scripts/eval
/// (eval/boxes.json) was not used to fit them: it is the held-out check.
package enum Calibration {
    /// A box correction relative to the box's size: the centre moves by
    /// (dx, dy) box widths/heights, the sides scale by (sx, sy).
    ///
    /// Each detector's maps its face box onto the WIDER FACE convention
    /// (brow to chin, ear to ear). Fitted on the dev set as the median
    /// offset and size of the truth box relative to each detection it
    /// overlaps by IoU >= 0.3. The dev photos were squeezed to 416 x 416,
    /// which makes their faces 1.4x taller than wide; so only the centre and
    /// the area are taken from the fit, and the cascades' square boxes get
    /// the aspect YuNet (trained on WIDER) draws on undistorted faces, 1.25
    /// (height / width). The networks' fits are the identity.
    package struct BoxCorrection: Sendable, Equatable {
        package var dx = 0.0, dy = 0.0, sx = 1.0, sy = 1.0

        package func apply(_ box: PixelRect, width: Int, height: Int) -> PixelRect {
            guard self != BoxCorrection() else { return box }
            let w = Double(box.width), h = Double(box.height)
            let cx = Double(box.x) + w / 2 + dx * w, cy = Double(box.y) + h / 2 + dy * h
            let x0 = max(0, Int((cx - sx * w / 2).rounded())), y0 = max(0, Int((cy - sy * h / 2).rounded()))
            let x1 = min(width, Int((cx + sx * w / 2).rounded())), y1 = min(height, Int((cy + sy * h / 2).rounded()))
            return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : box
        }
    }

    /// The long side the cascades detect at when --detect-size is not given.
    package static let cascadeDetectSize = 1024

    /// The most a network's `detectSize` chooses: the largest side any photo
    /// is detected at without --detect-size (CenterFace's buffers are sized
    /// for it).
    package static let largestDetectSize = 1280
}
