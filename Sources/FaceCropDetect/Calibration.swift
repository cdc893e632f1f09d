import CFaceDetect
import Foundation
import FaceCropCore

/// The numbers fitted on the development set (160 WIDER FACE validation
/// photos, 183 faces >= 24 px; docs/measurements.md, Measured quality): every threshold,
/// weight and box correction of the face detectors, in one place. The own
/// set of scripts/eval (eval/boxes.json) was not used to fit them: it is the
/// held-out check.
package enum Calibration {
    /// Keep faces scoring at least this unless --min-score says otherwise.
    /// `cascade` 0.55: dev precision 0.92 at recall 0.30 (0.45 gave
    /// P 0.85 / R 0.33); `yunet` 0.8: dev precision 0.97 (0.7 gives 0.92);
    /// `centerface` 0.56: P 0.955, R 0.803, F1 0.872 (0.5: P 0.927 R 0.831
    /// F1 0.876; 0.6: P 0.973 R 0.776 F1 0.863; docs/centerface.md).
    package static func defaultMinScore(_ kind: DetectorKind) -> Double {
        switch kind {
        case .cascade: 0.55
        case .haar: 0
        case .yunet: 0.8
        case .centerface: 0.56
        }
    }

    /// The ensemble's confidence in 0...1: a logistic fit on the dev set's
    /// candidates (matched at IoU 0.5 after the box correction) of the square
    /// roots of the raw-window counts of alt2 and of the confirming default
    /// cascade (each capped at 20) and the eyes found. The profile cascade's
    /// full scans were dropped: on the dev set they added no hit at any
    /// precision over 0.8 and cost 40 % of the time.
    package static func ensembleScore(_ c: CFaceDetect_Candidate) -> Double {
        let frontal = Double(min(Int(c.frontal_hits), 20)).squareRoot() / 4.5
        let confirmed = Double(min(Int(c.confirm_hits), 20)).squareRoot() / 4.5
        let eyes = Double(c.eyes) / 2
        let z = 5.97 * frontal + 0.28 * confirmed + 1.12 * eyes - 4.04
        return ((1 / (1 + exp(-z))) * 10_000).rounded() / 10_000
    }

    /// The fewest alt2 raw windows a candidate needs to reach `minScore` with
    /// the best other evidence (20 confirming windows, two eyes), at least 2:
    /// the candidate pass keeps no candidate that could not pass, so none is
    /// verified for nothing (5 at the default 0.55).
    package static func ensembleMinFrontalHits(_ minScore: Double) -> Int {
        var best = CFaceDetect_Candidate()
        best.confirm_hits = 20
        best.eyes = 2
        for hits in 2...20 {
            best.frontal_hits = Int32(hits)
            if ensembleScore(best) >= minScore { return hits }
        }
        return 20
    }

    /// A box correction relative to the box's size: the centre moves by
    /// (dx, dy) box widths/heights, the sides scale by (sx, sy).
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

    /// Maps each detector's face box onto the WIDER FACE convention (brow to
    /// chin, ear to ear). Fitted on the dev set as the median offset and
    /// size of the truth box relative to each detection it overlaps by IoU
    /// >= 0.3. The dev photos were squeezed to 416 x 416, which makes their
    /// faces 1.4x taller than wide; so only the centre and the area are taken
    /// from the fit, and the cascades' square boxes get the aspect YuNet
    /// (trained on WIDER) draws on undistorted faces, 1.25 (height / width).
    /// Mean IoU of the matched faces on the dev set: cascade 0.60 -> 0.64
    /// (67 -> 84 candidates matched at 0.5), haar 0.61 -> 0.64; YuNet's fit
    /// is the identity (centre within 0.4 %, area 0.995).
    package static func boxCorrection(_ kind: DetectorKind) -> BoxCorrection {
        switch kind {
        case .cascade: BoxCorrection(dx: -0.01, dy: 0.03, sx: 0.84, sy: 1.05)
        case .haar: BoxCorrection(dx: -0.02, dy: 0.03, sx: 0.83, sy: 1.03)
        case .yunet: BoxCorrection()
        // CenterFace's fit is the identity too (centre within 0.8 %, area 1.02).
        case .centerface: BoxCorrection()
        }
    }

    /// The long side the cascades detect at when --detect-size is not given.
    package static let cascadeDetectSize = 1024

    /// The most `detectSize` chooses for the networks: the largest side any
    /// photo is detected at without --detect-size (CenterFace's buffers are
    /// sized for it).
    package static let largestDetectSize = 1280

    /// The detection size every photo gets when --detect-size is not given:
    /// the cascades'; nil for YuNet and CenterFace, which choose it per photo.
    package static func fixedDetectSize(_ kind: DetectorKind) -> Int? { kind.usesModel ? nil : cascadeDetectSize }

    /// The long side photos are shrunk to for detection when --detect-size is
    /// not given: 1024 for the cascades; for YuNet at least 640, and more when
    /// a face of `minFace` photo pixels would otherwise shrink below
    /// `yunetReach`, up to 1280 px (about 4x the memory and time of 640).
    package static func detectSize(kind: DetectorKind, longSide: Int, minFace: Int) -> Int {
        switch kind {
        case .cascade, .haar: return cascadeDetectSize
        case .yunet:
            let needed = (Double(longSide) * yunetReach / Double(max(1, minFace))).rounded(.up)
            return min(largestDetectSize, max(640, Int(needed)))
        case .centerface:
            let needed = (Double(longSide) * centerFaceReach / Double(max(1, minFace))).rounded(.up)
            return min(largestDetectSize, max(1024, Int(needed)))
        }
    }

    /// The smallest face, in detection pixels, CenterFace finds reliably at
    /// its default --min-score (docs/centerface.md). The detection size
    /// starts at 1024, not lower: the faces stay within the network's reach
    /// at the large end too (a 1,200 px face in a 4,098 px photo is missed
    /// at full resolution and found at 1024 px, a 300 px face), and 1280
    /// caps the time (1.6x that of 1024).
    package static let centerFaceReach = 16.0

    /// The smallest face, in detection pixels, YuNet finds reliably at its
    /// default --min-score: 20 px. The network reaches 10 px, but such faces
    /// score below 0.8. Dev set tiled four photos to a 1024 px mosaic (faces
    /// >= 29.5 px), --min-face 24, recall at 0.8: 0.58 detected at 640 (JPEG
    /// reduction to 512, smallest face 15 px), 0.68 at 704, 0.71 at 768, 0.73
    /// at 854 (smallest face 24.6 px) and at 1024, as on the photos alone
    /// (0.72). On the Fixtures crowd mosaic (DetectionTests) every face was
    /// found from 19.7 px up, two of 80 missed at 18 px.
    package static let yunetReach = 20.0
}
