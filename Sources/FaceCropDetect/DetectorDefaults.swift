import Foundation
import FaceCropCore

// The detector's facts that the options' defaults depend on, in one place:
// the settings a photo is cropped with and the detector every worker gets
// both read them here.

extension Options {
    /// `--min-score`, else the detector's own default.
    package var effectiveMinScore: Double { minScore ?? DetectorConfig.defaultMinScore(detector) }
}

extension CropSettings {
    /// The settings of `options`, with the detector's own minimum score
    /// where `--min-score` is not given.
    public init(_ options: Options) {
        self.init(options, minScore: options.effectiveMinScore)
    }
}

extension DetectorConfig {
    /// The detector every worker gets, from the options.
    package static func from(_ options: Options) -> DetectorConfig {
        let main = CascadeFolder.resolve(
            options.target == .face ? options.cascade : nil, name: DetectorConfig.cascadeName(for: options.target))
        let folder = (CascadeFolder.resolve(nil) as NSString).deletingLastPathComponent
        var config = DetectorConfig(
            kind: options.detector, target: options.target, cascadePath: main, cascadeFolder: folder,
            modelPath: options.detector.usesModel ? ModelLocator.resolve(options.model, kind: options.detector) : options.model, minNeighbors: options.minNeighbors,
            minScore: options.effectiveMinScore,
            needsPeople: options.personOnly, needsEyes: options.align != .none, workers: options.effectiveJobs,
            embeds: options.people, peopleModels: options.people ? PeopleModels.resolve() : nil,
            posePredictor: options.target == .face ? PeopleModels.resolveLandmarks() : nil)
        config.largestDetectSide = options.effectiveDetectSize ?? 1280
        return config
    }
}
