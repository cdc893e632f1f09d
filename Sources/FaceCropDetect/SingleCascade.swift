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
    /// landmarks either. `--target upperbody` is never searched turned.
    package static var turnedRule: TurnedFaces.Rule? { .largeOnCanvases }

    package static func cardDescription(_ settings: JSON) -> String {
        "OpenCV's cascade `\(settings["cascade"]?.text ?? "")`, SHA-256 `\(settings["cascade_sha256"]?.text ?? "")`"
    }
}
