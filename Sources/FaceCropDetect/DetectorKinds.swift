import Foundation
import FaceCropCore

/// What facecrop knows of one face detector (`--detector`), declared in its
/// finder's own file: the numbers fitted for it, where its model is found,
/// what it runs on and how its finder is made. Nothing outside that file
/// asks which detector it is: the options' defaults, the settings and the
/// `Detector` read these. A new detector is its finder's file, its name in
/// `DetectorKind` and its line in `DetectorKind.facts`.
package protocol DetectorFacts {
    /// Keep faces scoring at least this unless --min-score says otherwise.
    static var defaultMinScore: Double { get }

    /// Onto the WIDER FACE box convention (`Calibration.BoxCorrection`).
    static var boxCorrection: Calibration.BoxCorrection { get }

    /// The long side every photo is detected at when --detect-size is not
    /// given; nil: chosen per photo (`detectSize(longSide:minFace:)`).
    static var fixedDetectSize: Int? { get }

    /// The long side a photo of `longSide` pixels is detected at when
    /// --detect-size is not given, `minFace` the smallest face wanted in
    /// photo pixels.
    static func detectSize(longSide: Int, minFace: Int) -> Int

    /// Its network's model file, or nil: none (--model is not read).
    static var model: ModelFile? { get }

    /// The network runtime it runs on, when that is not OpenCV: named in the
    /// settings, so that a dataset made on another runtime is processed again.
    static var runtime: String? { get }

    /// The rule of its second pass on tiles of a crowd (the settings'
    /// `crowd_tiles`), or nil: it has none.
    static var tileRule: String? { get }

    /// How it finds faces not upright in the photo (`TurnedFaces`); nil:
    /// it does not (the cascades, whose faces have no landmarks to tell the
    /// turn by).
    static var turnedRule: TurnedFaces.Rule? { get }

    /// How it finds heads rolled in an upright photo, beyond what its
    /// first pass finds (`TurnedFaces.onRolledCanvases`,
    /// `TurnedFaces.relevelled`), named in the settings' `turned`; nil: no
    /// more.
    static var rolledRule: String? { get }

    /// What it is, for the dataset card, from a dataset's `settings` (its
    /// model's or cascade's SHA-256 among them).
    static func cardDescription(_ settings: JSON) -> String

    /// Whether its scores are confidences in 0...1 (a cascade's level
    /// weights are not), which the card states --min-score of.
    static var scoresConfidence: Bool { get }

    /// The finder of `config`; `other`: another worker's finder of the same
    /// config, whose process-wide parts this one may share.
    static func finder(_ config: DetectorConfig, sharing other: (any FaceFinder)?) throws(FaceCropError) -> any FaceFinder
}

extension DetectorFacts {
    package static var boxCorrection: Calibration.BoxCorrection { Calibration.BoxCorrection() }
    package static var fixedDetectSize: Int? { Calibration.cascadeDetectSize }
    package static func detectSize(longSide: Int, minFace: Int) -> Int { fixedDetectSize ?? Calibration.cascadeDetectSize }
    package static var model: ModelFile? { nil }
    package static var runtime: String? { nil }
    package static var tileRule: String? { nil }
    package static var turnedRule: TurnedFaces.Rule? { nil }
    package static var rolledRule: String? { nil }
    package static var scoresConfidence: Bool { true }

}

/// A network detector: an ONNX model, and a detection size chosen per photo
/// from the smallest face it finds reliably.
package protocol NetworkDetectorFacts: DetectorFacts {
    /// Its model file (`ModelLocator`).
    static var modelFile: ModelFile { get }
    /// The smallest face, in detection pixels, it finds reliably at its
    /// default --min-score.
    static var reach: Double { get }
    /// The smallest detection size it is given.
    static var leastDetectSize: Int { get }
}

extension NetworkDetectorFacts {
    package static var model: ModelFile? { modelFile }
    package static var fixedDetectSize: Int? { nil }

    /// Large enough that a face of `minFace` photo pixels stays at least
    /// `reach` detection pixels long, at least `leastDetectSize`, at most
    /// `Calibration.largestDetectSize`.
    package static func detectSize(longSide: Int, minFace: Int) -> Int {
        let needed = (Double(longSide) * reach / Double(max(1, minFace))).rounded(.up)
        return min(Calibration.largestDetectSize, max(leastDetectSize, Int(needed)))
    }

    package static func cardDescription(_ settings: JSON) -> String {
        let network = runtime.map { "\(modelFile.network) on \($0)" } ?? "OpenCV's \(modelFile.network)"
        return "\(network), model SHA-256 `\(settings["model_sha256"]?.text ?? "")`"
    }
}

extension DetectorKind {
    /// Every detector's facts: one line a detector.
    package var facts: any DetectorFacts.Type {
        switch self {
        case .cascade: CascadeEnsemble.self
        case .haar: SingleCascade.self
        case .yunet: YuNetFinder.self
        case .centerface: CenterFaceFinder.self
        }
    }
}
