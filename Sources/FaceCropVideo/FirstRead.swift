import CVipsShim
import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropPhoto

/// A sample with faces, from the first read to the second.
package struct PendingSample {
    package var pts: Int
    package var placement: Placement
    /// Its faces' places in the record's `faces`.
    package var first: Int
}

/// A video's first read: every sample at the detection size, its faces
/// found a batch of frames at a time (the worker's detector and the cores
/// it could borrow, one frame each) and linked into tracks in presentation
/// order. Each face gets its record; crops are only named here, and cut in
/// the second read.
package struct FirstRead {
    private let video: VideoInput
    private let detector: Detector
    private let cores: CoreShare?
    /// Samples that began a new shot (`Tracker.cuts`), once `track` has run.
    package private(set) var cuts = 0
    /// What the tracker needs of each sample, in presentation order: its
    /// faces' boxes and where they are in `faces`, its picture's gray
    /// histogram, its place among the decoded frames. Tracks are linked
    /// once the video is read: a cut near a sample is known only from the
    /// frames after it (`CutFinder`).
    private var seen: [(boxes: [PixelRect], first: Int, histogram: [Double], decoded: Int)] = []
    /// Every face found, in presentation order.
    package var faces: [FaceRecord] = []
    /// The samples with faces.
    package var pending: [PendingSample] = []
    package var samples = 0
    /// The latest sample's time, for a video whose duration ffprobe did not say.
    package var lastTime = 0.0
    /// The video's perceptual hash is its first frame with a face's (`--dedup`).
    package var photoHash: PerceptualHash?
    /// The frames of one batch, one for each core it could borrow.
    private var batch: [(pts: Int, pixels: [UInt8])] = []
    /// Each batched frame's place among the decoded frames (`VideoFrame.decoded`).
    private var decoded: [Int] = []
    private var helpers: [Detector] = []

    private init(_ video: VideoInput, detector: Detector, cores: CoreShare?) {
        self.video = video
        self.detector = detector
        self.cores = cores
    }

    /// Reads every sample `reader` gives and detects, tracks and names its faces.
    package static func read(
        _ video: VideoInput, from reader: FrameReader, with detector: Detector, stop: StopRequest?, cores: CoreShare?
    ) throws(FaceCropError) -> FirstRead {
        var read = FirstRead(video, detector: detector, cores: cores)
        // Cores borrowed for a batch that a failure cut short go back too.
        defer { cores?.giveBack(read.helpers) }
        while try reader.next({ frame, pixels throws(FaceCropError) in
            // A long video does not hold up Ctrl-C: it keeps nothing and
            // is read again by the next run (failures are retried).
            if stop?.requested != nil {
                throw VideoMessage.interrupted(video.source)
            }
            try read.add(frame, pixels)
        }) {
            if read.batch.count > read.helpers.count { try read.detectBatch() }
        }
        if !read.batch.isEmpty { try read.detectBatch() }
        return read
    }

    /// Links the faces of every sample into tracks, in presentation order,
    /// each track ended at a cut: a frame since the sample before, or the
    /// sample itself, that `CutFinder` finds in `changes` (every decoded
    /// frame's change), or a sample whose picture differs from the one
    /// before as a whole (`Tracker`).
    package mutating func track(_ changes: [Double]) {
        let isCut = CutFinder.cuts(changes)
        var tracker = Tracker()
        var after = -1
        for sample in seen {
            let through = min(sample.decoded, isCut.count - 1)
            let cut = after < through && isCut[(after + 1)...through].contains(true)
            after = max(after, through)
            let ids = tracker.assign(sample.boxes, histogram: sample.histogram, cut: cut)
            for (offset, id) in ids.enumerated() { faces[sample.first + offset].video?.track = id }
        }
        cuts = tracker.cuts
    }

    /// One sample into the batch, borrowing cores for a new batch.
    private mutating func add(_ frame: VideoFrame, _ pixels: UnsafeRawBufferPointer) throws(FaceCropError) {
        samples += 1
        let time = video.time(frame.pts)
        lastTime = max(lastTime, time)
        let limit = video.settings.video.maxSeconds
        if time > limit {
            throw VideoMessage.longerThanLimit(video.source, limit: VideoStage.seconds(limit))
        }
        if batch.isEmpty, let cores { helpers = cores.borrow(cores.jobs - 1, like: detector) }
        batch.append((frame.pts, Array(pixels)))
        decoded.append(frame.decoded)
    }

    /// Detects the batch's frames at once, then tracks and names their faces in order.
    private mutating func detectBatch() throws(FaceCropError) {
        defer {
            cores?.giveBack(helpers)
            helpers = []
            batch = []
            decoded = []
        }
        let detected = FrameDetection.detect(
            batch, size: video.small, full: video.full, detectors: [detector] + helpers, settings: video.settings,
            source: video.source)
        for (index, (frame, found)) in zip(batch, detected).enumerated() {
            if let failure = found.failure { throw failure }
            if photoHash == nil { photoHash = found.hash }
            seen.append((found.found.map(\.box), faces.count, Tracker.histogram(found.gray), decoded[index]))
            guard !found.found.isEmpty else { continue }
            take(found.found, pts: frame.pts)
        }
    }

    /// A sample's faces: placed and rated as a photo's, each a record with
    /// its time, frame and track; its crop is named, not cut.
    private mutating func take(_ found: [FoundFace], pts: Int) {
        let settings = video.settings
        let ticks = pts - video.origin
        var found = found
        let placement = PlaceStage.place(
            found, full: video.full, prefix: video.prefix + "." + VideoStage.timeTag(ticks, probe: video.probe),
            settings: settings)
        let statuses = PlaceStage.rate(&found, placement, full: video.full, settings: settings)
        pending.append(PendingSample(pts: pts, placement: placement, first: faces.count))
        let number = VideoStage.frameNumber(pts, packets: video.packets)
        for (index, face) in found.enumerated() {
            var record = FaceRecord(
                index: index, found: face, placed: placement.faces[index], status: statuses[index], target: settings.target)
            // The track is linked once the video is read (`track`).
            record.video = VideoFace(time: VideoStage.time(ticks, probe: video.probe), frame: number, track: 0)
            if settings.video.perTrack != nil {
                let frontality = TrackQuality.frontality(face.landmarks)
                record.video?.frontality = frontality
            }
            // The crop's name; it is cut in the second read. Rejections
            // take whole tracks, once the video is read (`chooseTracks`).
            if record.status == .ok { record.crop = placement.names[index] }
            faces.append(record)
        }
    }
}

/// The faces of a batch of frames, found on one lane per detector at once.
package enum FrameDetection {
    /// What detection found on one sample.
    package struct Detected: Sendable {
        package var found: [FoundFace] = []
        package var hash: PerceptualHash?
        package var gray = GrayImage(width: 0, height: 0, pixels: [])
        package var failure: FaceCropError?
    }

    /// Detection results by lane, each written by its own lane only.
    private final class Lanes: @unchecked Sendable {
        var results: [Detected]
        init(_ count: Int) { results = Array(repeating: Detected(), count: count) }
    }

    /// The faces on each frame of `batch` (`size` pixels, packed RGB), on
    /// one lane per detector at once; in `batch`'s order.
    package static func detect(
        _ batch: [(pts: Int, pixels: [UInt8])], size: (width: Int, height: Int), full: (width: Int, height: Int),
        detectors: [Detector], settings: CropSettings, source: String
    ) -> [Detected] {
        let lanes = Lanes(batch.count)
        let run: @Sendable (Int) -> Void = { index in
            do throws(FaceCropError) {
                lanes.results[index] = try detect(
                    batch[index].pixels, size: size, full: full, with: detectors[index], settings: settings, source: source)
            } catch {
                lanes.results[index].failure = error
            }
        }
        if batch.count == 1 {
            run(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: batch.count) { index in
                run(index)
                // libvips' buffers of the lane's thread go (the worker's own go after the video).
                CVipsShim_ThreadDone()
            }
        }
        return lanes.results
    }

    /// One frame's faces, its hash and its gray pixels (for the tracker).
    private static func detect(
        _ pixels: [UInt8], size: (width: Int, height: Int), full: (width: Int, height: Int), with detector: Detector,
        settings: CropSettings, source: String
    ) throws(FaceCropError) -> Detected {
        let made = pixels.withUnsafeBytes { raw in
            Result { () throws(FaceCropError) in
                try Picture.frame(rgb: raw, width: size.width, height: size.height, source: source)
            }
        }
        let picture = try made.get()
        var detected = Detected()
        if case .faces(let kept, _, let hash) = try DetectStage.detect(
            small: picture, full: full, with: detector, settings: settings, source: source)
        {
            detected.found = kept
            detected.hash = hash
        }
        detected.gray = try picture.grayPixels(source: source)
        return detected
    }
}
