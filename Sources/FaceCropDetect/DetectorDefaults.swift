import FaceCropCore

extension CropSettings {
    /// The settings of `options`, with the detector's own minimum score
    /// where `--min-score` is not given.
    public init(_ options: Options) {
        self.init(options, defaultMinScore: DetectorConfig.defaultMinScore(options.detector))
    }
}
