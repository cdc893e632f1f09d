import Foundation
import FaceCropCore

// The detector's facts that the options' defaults depend on, in one place:
// the settings a photo is cropped with and the detector every worker gets
// both read them here.

extension Options {
    /// `--min-score`, else the detector's own default.
    package var effectiveMinScore: Double { minScore ?? DetectorConfig.defaultMinScore(detector) }

    /// `--detect-size`, else the cascades' 1024; nil for YuNet and
    /// CenterFace: chosen per photo (`CropSettings.detectSide`).
    package var effectiveDetectSize: Int? { detectSize ?? detector.facts.fixedDetectSize }
}

extension CropSettings {
    /// The settings of `options`, with the detector's own minimum score and
    /// detection size where `--min-score` and `--detect-size` are not given.
    public init(_ options: Options) {
        self.init(options, minScore: options.effectiveMinScore, detectSize: options.effectiveDetectSize)
    }

    /// The long side a photo (or a video's frames) of `longSide` pixels is
    /// detected at: `detectSize`, else the one the detector chooses for it
    /// (`DetectorFacts.detectSize`). The photo and the video stages both ask here.
    package func detectSide(longSide: Int) -> Int {
        detectSize ?? detector.facts.detectSize(longSide: longSide, minFace: minFace)
    }
}

extension DetectorConfig {
    /// The detector every worker gets, from the options.
    package static func from(_ options: Options) -> DetectorConfig {
        let main = CascadeFolder.resolve(
            options.target == .face ? options.cascade : nil, name: DetectorConfig.cascadeName(for: options.target))
        let folder = (CascadeFolder.resolve(nil) as NSString).deletingLastPathComponent
        let model = options.detector.facts.model.map { ModelLocator.resolve(options.model, $0) } ?? options.model
        var config = DetectorConfig(
            kind: options.detector, target: options.target, cascadePath: main, cascadeFolder: folder,
            modelPath: model, minNeighbors: options.minNeighbors, minScore: options.effectiveMinScore,
            needsPeople: options.personOnly, needsEyes: options.align != .none, workers: options.effectiveJobs,
            embeds: options.people, peopleModels: options.people ? PeopleModels.resolve() : nil,
            posePredictor: options.target == .face ? PeopleModels.resolveLandmarks() : nil)
        config.largestDetectSide = options.effectiveDetectSize ?? Calibration.largestDetectSize
        config.faceMesh = options.target == .face ? FaceMesh.resolve() : nil
        return config
    }
}
