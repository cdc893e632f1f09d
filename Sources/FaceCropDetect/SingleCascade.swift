/// One cascade alone: `--detector haar` (faces, `--cascade`, default alt2:
/// the stock detector) and `--target upperbody`. Scores are the cascade's
/// level weights. With `--align` on faces, the eyes are looked for inside
/// each box to level the crop; nothing is dropped for lack of them.
///
/// Not thread-safe: owns cascades; used by one `Detector`.
import FaceCropCore
import FaceCropImaging

package final class SingleCascade: FaceFinder, DetectorFacts {
    private let cascade: Cascade
    private let minNeighbors: Int
    /// Faces with --align: the eyes' search.
    private let eyeSearch: EnsembleSearch?
    /// Faces: onto the other detectors' box convention.
    private let correction: Calibration.BoxCorrection?
    /// Faces: the default detector's evidence around a face (`verdict`).
    private let evidence: EnsembleSearch?

    package init(_ config: DetectorConfig) throws(FaceCropError) {
        let faces = config.target == .face
        cascade = try Cascade(path: config.cascadePath)
        minNeighbors = config.minNeighbors
        if faces && config.needsEyes {
            eyeSearch = try EnsembleSearch(frontal: cascade, confirm: nil, folder: CascadeFolder(path: config.cascadeFolder))
        } else {
            eyeSearch = nil
        }
        correction = faces ? Self.boxCorrection : nil
        let folder = CascadeFolder(path: config.cascadeFolder)
        evidence = faces
            ? try EnsembleSearch(frontal: cascade, confirm: folder.load("haarcascade_frontalface_default.xml"), folder: folder)
            : nil
    }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        var parameters = Cascade.Parameters()
        parameters.minNeighbors = minNeighbors
        parameters.minSide = minSide
        var found = try cascade.detect(in: gray, parameters, source: source).map {
            Subject(box: $0.box, score: $0.score, eyes: nil)
        }
        if let eyeSearch {
            for index in found.indices {
                found[index].eyes = try eyeSearch.eyes(in: gray, box: found[index].box, source: source)
            }
        }
        guard let correction else { return found }
        return correction.apply(found, width: gray.width, height: gray.height)
    }

    /// How sure a face `find` gave on `gray` is, 0...1: the default
    /// detector's score (`CascadeEnsemble.ensembleScore`) of the evidence
    /// gathered around its box (this cascade's raw windows, the confirming
    /// cascade's, the eyes). The level weights say little: the people dev
    /// set's faces score 55.4-57.4 upright, and the false faces of its
    /// photos stored turned 54.5-55.9.
    package func verdict(of face: Subject, in gray: GrayImage, source: String) throws(FaceCropError) -> Double? {
        guard let evidence, let correction else { return nil }
        // The box as the cascade found it, before the correction.
        let (w, h) = (Double(face.box.width) / correction.sx, Double(face.box.height) / correction.sy)
        let cx = Double(face.box.x) + Double(face.box.width) / 2 - correction.dx * w
        let cy = Double(face.box.y) + Double(face.box.height) / 2 - correction.dy * h
        let raw = PixelRect(
            x: Int((cx - w / 2).rounded()), y: Int((cy - h / 2).rounded()), width: Int(w.rounded()), height: Int(h.rounded()))
        guard raw.width > 1, let cut = GrayCut(gray, around: raw) else { return 0 }
        let candidates = try evidence.run(
            cut.image, minSide: raw.width * 8 / 10, maxSide: raw.width * 12 / 10, frontalNeighbors: 1, source: source)
        let (x, y) = (Double(raw.x - cut.x), Double(raw.y - cut.y))
        return candidates.filter { c in
            let (mx, my) = (Double(c.x) + Double(c.width) / 2, Double(c.y) + Double(c.height) / 2)
            return mx >= x && mx < x + w && my >= y && my < y + h
        }.map(CascadeEnsemble.ensembleScore).max() ?? 0
    }

    /// `--detector haar`: every face the cascade keeps (its scores are level
    /// weights, not 0...1).
    package static let defaultMinScore = 0.0

    /// The dev-set fit (`Calibration.BoxCorrection`): mean IoU 0.61 -> 0.64.
    package static var boxCorrection: Calibration.BoxCorrection {
        Calibration.BoxCorrection(dx: -0.02, dy: 0.03, sx: 0.83, sy: 1.03)
    }

    package static func finder(_ config: DetectorConfig, sharing other: (any FaceFinder)?) throws(FaceCropError) -> any FaceFinder {
        try SingleCascade(config)
    }

    package static var scoresConfidence: Bool { false }

    /// The ensemble's rule (`CascadeEnsemble.turnedRule`): its faces have no
    /// landmarks either; but it keeps every face, so the rule asks the
    /// cascades' `verdict` whether the photo has a sure face upright and
    /// whether a turned canvas's face is one. `--target upperbody` is
    /// never searched turned.
    package static var turnedRule: TurnedFaces.Rule? { .sureOnCanvases }

    package static func cardDescription(_ settings: JSON) -> String {
        "OpenCV's cascade `\(settings["cascade"]?.text ?? "")`, SHA-256 `\(settings["cascade_sha256"]?.text ?? "")`"
    }
}
