import Foundation

/// Step 1 of a run: everything checked and settled before any photo is
/// looked at. The order is the order of the errors a user sees first.
struct RunSetup {
    var options: Options
    var output: String
    /// `--check` / `--dry-run`: nothing is written.
    var readOnly: Bool
    /// The ffmpeg clips are written with, found and probed now, so that a
    /// run that cannot write its clips fails before it starts.
    var ffmpeg: FFmpeg?
    var config: DetectorConfig
    /// The first worker's detector, made now so a bad cascade or model fails
    /// early; handed to the pipeline by `takeDetectors`.
    private var detector: Detector?
    var settings: CropSettings
    /// The settings as stats.json and the state file describe them, and their hash.
    var described: JSON
    var settingsHash: String
    var store: StateStore

    init(_ options: Options) throws(FaceCropError) {
        self.options = options
        output = options.output!
        for input in options.inputs where access(input, F_OK) != 0 {
            throw .inputMissing(input, reason: systemError(errno))
        }
        readOnly = options.check || options.dryRun
        if options.wantsClips, !readOnly {
            let found = try FFmpeg.locate(given: options.ffmpeg, environment: ProcessInfo.processInfo.environment)
            try found.probe(options.effectiveClipCodec)
            ffmpeg = found
        }
        try Vips.start()
        Cascade.setLibraryThreads(1)
        config = FaceCropCommand.detectorConfig(options)
        detector = try Detector(config)
        settings = CropSettings(options)
        described = Stats.settingsJSON(settings, cascadePath: config.cascadePath, modelPath: config.modelPath)
        settingsHash = Stats.hash(described)
        store = StateStore(output: output, shard: options.shard)
        if !readOnly { try Self.makeOutput(output) }
    }

    private static func makeOutput(_ output: String) throws(FaceCropError) {
        do {
            try AtomicFile.makeFolder(output)
        } catch {
            throw .outputUnusable(output, reason: error.reason)
        }
        guard access(output, W_OK | X_OK) == 0 else {
            throw .outputUnusable(output, reason: systemError(errno))
        }
    }

    /// One detector per worker (`--jobs`), the first among them. The setup
    /// keeps none, so they go (OpenCV's models and buffers) with the pipeline.
    mutating func takeDetectors() throws(FaceCropError) -> [Detector] {
        var detectors: [Detector] = []
        if let detector { detectors.append(detector) }
        detector = nil
        while detectors.count < options.effectiveJobs { detectors.append(try Detector(config)) }
        return detectors
    }
}
