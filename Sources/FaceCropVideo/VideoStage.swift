import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropInputs
import FaceCropCurate
import FaceCropPhoto

/// A video through the same stages as a photo, in two reads. First ffmpeg
/// decodes the samples scaled to the detection size (`FrameReader`), their
/// faces are found (on up to `--jobs` cores at once, a batch of frames at a
/// time: `CoreShare`) and linked into tracks in presentation order
/// (`FirstRead`); rejections take whole tracks and, with `--per-track`, only
/// each track's best faces are kept (`VideoTracks`). Then ffmpeg reads again
/// just the frames whose crops are kept, by their exact pts, at full size,
/// and the crops are cut from them (`SecondRead`). Like a photo's, a video's
/// crops are all written or none: a video that fails part-way keeps none.
///
/// What only videos use: set once for the run, held by each worker's
/// `PhotoProcessor`, which hands it a video with the photo stages' writer.
package struct VideoStage: Sendable {
    /// ffmpeg and ffprobe, or why there are none.
    package var tools: VideoTools?
    package var toolsProblem: String?
    /// The run's stop request: a video being read stops at its next frame.
    package var stop: StopRequest?
    /// The `--jobs` cores, which a video's detection borrows when workers idle.
    package var cores: CoreShare?

    /// One video into its record: probe, both reads, the tracks' choice.
    /// `writer` carries the settings and where the crops go; `rejections`
    /// and `dates` are the photos' own.
    package func process(
        _ photo: Photo, bytes: PhotoBytes, with detector: Detector, writer: WriteStage, rejections: RejectionsFile,
        dates: DateRange
    ) throws(FaceCropError) -> PhotoRecord {
        let source = FileName.display(photo.source)
        guard let tools else { throw VideoMessage.noTools(source, problem: toolsProblem) }
        let probe = try Self.probe(tools, bytes: bytes, source: source)
        if let outside = Self.outsideDates(photo, probe: probe, sha256: bytes.sha256, dates: dates) { return outside }
        let settings = writer.settings
        try Self.checkLimits(probe, settings: settings, source: source)
        let video = try VideoInput(photo, bytes: bytes, tools: tools, probe: probe, settings: settings, source: source)
        let reader = try FrameReader(
            tools, path: video.path, probe: probe, settings: settings.video, size: video.small, source: source)
        var written: [String] = []
        var finished = false
        defer {
            if !finished {
                reader.cancel()
                for path in written { unlink(path) }
            }
        }
        var read = try FirstRead.read(video, from: reader, with: detector, stop: stop, cores: cores)
        try reader.finish()
        read.track(reader.changes())
        Self.chooseTracks(&read.faces, rejections: rejections, sha256: bytes.sha256, perTrack: settings.video.perTrack)
        let second = SecondRead(video: video, writer: writer, stop: stop)
        let fullFrames = try second.cut(&read.faces, pending: read.pending, written: &written, embedder: detector.embedder)
        finished = true
        return Self.record(photo, video: video, read: read, fullFrames: fullFrames)
    }

    /// ffprobe's view of the video; a photo named like a video (a HEIC
    /// named .mov: "moov atom not found") is named as such, and one ffmpeg
    /// reads (a JPEG) is read.
    package static func probe(_ tools: VideoTools, bytes: PhotoBytes, source: String) throws(FaceCropError) -> VideoProbe {
        do throws(FaceCropError) {
            return try VideoProbe.probe(tools, path: bytes.processPath, source: source)
        } catch {
            if case .photo(let kind, let fileExtension)? = FileSniff.sniff(bytes.head(FileSniff.headLength)) {
                throw VideoMessage.misnamed(source, kind: kind, fileExtension: fileExtension)
            }
            throw error
        }
    }

    /// `--max-video-seconds` and `--max-pixels`, by what ffprobe said.
    package static func checkLimits(_ probe: VideoProbe, settings: CropSettings, source: String) throws(FaceCropError) {
        let limit = settings.video.maxSeconds
        if let duration = probe.duration, duration > limit {
            throw VideoMessage.tooLong(source, seconds: seconds(duration), limit: seconds(limit))
        }
        guard probe.width * probe.height <= settings.maxPixels else {
            throw VideoMessage.tooManyPixels(
                source, width: String(probe.width), height: String(probe.height), limit: String(settings.maxPixels))
        }
    }

    /// The video's record once both reads are done: its faces, its hash
    /// (with faces only) and what the reads cost.
    package static func record(_ photo: Photo, video: VideoInput, read: FirstRead, fullFrames: Int) -> PhotoRecord {
        var record = PhotoRecord(photo, status: .noFace, sha256: video.sha256)
        record.taken = video.probe.taken
        record.split = video.split
        record.width = video.full.width
        record.height = video.full.height
        record.faces = read.faces
        record.status = read.faces.isEmpty ? .noFace : .ok
        if record.status == .ok { record.photoHash = read.photoHash }
        record.video = VideoInfo(
            duration: rounded(video.probe.duration ?? read.lastTime), samples: read.samples, fullFrames: fullFrames,
            cuts: read.cuts, cutsBy: VideoInfo.cutsByNow)
        return record
    }

    package init(tools: VideoTools? = nil, toolsProblem: String? = nil, stop: StopRequest? = nil,
        cores: CoreShare? = nil) {
        (self.tools, self.toolsProblem, self.stop, self.cores) = (tools, toolsProblem, stop, cores)
    }
}

/// One video as its two reads see it: where it is, what ffprobe said, the
/// sizes it is read at and where its crops go.
package struct VideoInput {
    /// The video's name in messages.
    package let source: String
    /// The file ffmpeg reads, and its content's hash.
    package let path: String
    package let sha256: String
    package let tools: VideoTools
    package let probe: VideoProbe
    /// The upright frame, and the size its samples are detected at.
    package let full: (width: Int, height: Int)
    package let small: (width: Int, height: Int)
    /// The run's settings (the photos' and `settings.video`).
    package let settings: CropSettings
    /// Its packets' pts in presentation order (for frame numbers); the first is time zero.
    package let packets: [Int]
    package let origin: Int
    /// `--split`: the video's part (by its content), and its crops' name prefix.
    package let split: String?
    package let prefix: String

    package init(
        _ photo: Photo, bytes: PhotoBytes, tools: VideoTools, probe: VideoProbe, settings: CropSettings, source: String
    ) throws(FaceCropError) {
        self.source = source
        path = bytes.processPath
        sha256 = bytes.sha256
        self.tools = tools
        self.probe = probe
        self.settings = settings
        packets = try probe.packetTimes(tools, path: path, source: source)
        origin = packets.first ?? 0
        split = settings.split?.split(forSHA256: bytes.sha256)
        prefix = (split.map { $0 + "/" } ?? "") + photo.outputPrefix
        full = (width: probe.width, height: probe.height)
        let side = settings.detectSide(longSide: max(full.width, full.height))
        small = VideoStage.detectionSize(full, side: side)
    }

    /// Seconds from the first frame to the frame at `pts`.
    package func time(_ pts: Int) -> Double { VideoStage.time(pts - origin, probe: probe) }
}
