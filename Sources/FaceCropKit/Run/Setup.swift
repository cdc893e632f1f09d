import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropInputs
import FaceCropOutput
import FaceCropCurate
import FaceCropPeople
import FaceCropVideo

/// Step 1 of a run: everything checked and settled before any photo is
/// looked at. The order is the order of the errors a user sees first.
package struct RunSetup {
    package var options: Options
    package var output: String
    /// `--check` / `--dry-run`: nothing is written.
    package var readOnly: Bool
    /// The ffmpeg clips are written with, found and probed now, so that a
    /// run that cannot write its clips fails before it starts.
    package var ffmpeg: FFmpeg?
    /// ffmpeg and ffprobe for videos, or why they cannot be used (then each
    /// video is an error line; a library without videos never needs them).
    package var videoTools: VideoTools?
    package var videoProblem: String?
    package var config: DetectorConfig
    /// The first worker's detector, made now so a bad cascade or model fails
    /// early; handed to the pipeline by `takeDetectors`.
    private var detector: Detector?
    package var settings: CropSettings
    /// The settings as stats.json and the state file describe them, and their hash.
    package var described: JSON
    package var settingsHash: String
    package var store: StateStore
    /// The rejections file (`--rejections`, else in the output) and its entries.
    package var rejectionsPath: String
    package var rejections: RejectionsFile
    /// The people file (`--people-file`, else in the output) and its statements.
    package var peoplePath: String
    package var people = PeopleFile()
    /// Crops found deleted and recorded as rejections by this run.
    package var recordedDeletions = 0
    /// This run's hold on the output folder and shard (`OutputLock`): taken
    /// before any file of the dataset is read or written; nil for a `--check` or
    /// `--dry-run` of a folder no run has written yet.
    package var lock: OutputLock?

    package init(_ options: Options, stop: StopRequest) throws(FaceCropError) {
        self.options = options
        output = options.output!
        for input in options.inputs where access(input, F_OK) != 0 {
            throw .inputMissing(input, reason: systemError(errno))
        }
        try Self.refuseInputAsOutput(options.inputs, output: output)
        readOnly = options.check || options.dryRun
        store = StateStore(output: output, shard: options.shard)
        if options.wantsClips, !readOnly {
            let found = try FFmpeg.locate(given: options.ffmpeg, environment: ProcessInfo.processInfo.environment)
            try found.probe(options.effectiveClipCodec)
            ffmpeg = found
        }
        // --check and --dry-run read videos only for --since/--until (their capture times).
        if options.videos, !readOnly || !options.dates.isEmpty {
            do throws(FaceCropError) {
                videoTools = try VideoTools.locate(given: options.ffmpeg, environment: ProcessInfo.processInfo.environment)
            } catch {
                videoProblem = VideoMessage.toolsMissing(error.reason)
            }
        }
        try Vips.start()
        config = DetectorConfig.from(options)
        Cascade.setLibraryThreads(config.libraryThreads)
        detector = try Detector(config)
        settings = CropSettings(options)
        described = Stats.settingsJSON(
            settings, cascadePath: config.cascadePath, modelPath: config.modelPath, posePredictor: config.posePredictor,
            faceMesh: config.faceMesh.map { [$0, FaceMesh.irisPath($0)] }, people: PeopleStep.settingsValue)
        settingsHash = Stats.hash(described)
        rejectionsPath = options.rejections ?? (output as NSString).appendingPathComponent(RejectionsFile.defaultName)
        do throws(RejectionsError) {
            rejections = try RejectionsFile.load(path: rejectionsPath)
        } catch {
            throw .usage(error.description)
        }
        peoplePath = options.peopleFile ?? (output as NSString).appendingPathComponent(PeopleFile.defaultName)
        if options.people {
            do throws(PeopleFileError) {
                people = try PeopleFile.load(path: peoplePath)
            } catch {
                throw .usage(error.description)
            }
        }
        if !readOnly { try Self.makeOutput(output) }
        // Last, once nothing else can fail first: a run that stops on a bad
        // ffmpeg, cascade or model leaves no folder behind, and the lock
        // comes before any file of the dataset is read or written.
        let quiet = options.quiet
        lock = try OutputLock.take(
            output: output, suffix: store.suffix, mode: readOnly ? .shared : .exclusive, wait: options.waitLock, stop: stop
        ) { message in
            if !quiet { Terminal.stderr("facecrop: \(message)\n") }
        }
    }

    /// The dataset is never written in among the photos: `-o` naming an
    /// input folder itself (by device and inode, however it is spelled) is a
    /// usage error. A folder inside an input works (the walk skips it), and
    /// so does an input inside `-o`.
    package static func refuseInputAsOutput(_ inputs: [String], output: String) throws(FaceCropError) {
        guard let target = FileIdentity(path: output, follow: true) else { return }
        for input in inputs where FileIdentity(path: input, follow: true) == target {
            throw .usage(
                "the output folder '\(output)' is the photo folder '\(input)': facecrop does not write a dataset in among the photos; choose another -o (a folder inside it, such as '\(input)/dataset', works)")
        }
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

    /// One detector per worker (`--jobs`), the first among them, sharing its
    /// YuNet or CenterFace network and its face descriptor. The setup keeps none, so they go (OpenCV's models and buffers) with the pipeline.
    package mutating func takeDetectors() throws(FaceCropError) -> [Detector] {
        var detectors: [Detector] = []
        if let detector { detectors.append(detector) }
        detector = nil
        while detectors.count < options.effectiveJobs { detectors.append(try Detector(config, sharing: detectors.first)) }
        return detectors
    }
}
