import CVipsShim
import Foundation

/// A video through the same stages as a photo, in two reads. First ffmpeg
/// decodes the samples scaled to the detection size (`FrameReader`), their
/// faces are found (on up to `--jobs` cores at once, a batch of frames at a
/// time: `CoreShare`) and linked into tracks in presentation order; with
/// `--per-track`, only each track's best faces are kept. Then ffmpeg reads
/// again just the frames whose crops are kept, by their exact pts, at full
/// size, and the crops are cut from them. Like a photo's, a video's crops
/// are all written or none: a video that fails part-way keeps none.
extension PhotoProcessor {
    /// A sample with faces, from the first read to the second.
    private struct Pending {
        var pts: Int
        var placement: Placement
        /// Its faces' places in the record's `faces`.
        var first: Int
    }

    /// What detection found on one sample.
    private struct Detected: Sendable {
        var found: [FoundFace] = []
        var hash: PerceptualHash?
        var gray = GrayImage(width: 0, height: 0, pixels: [])
        var failure: FaceCropError?
    }

    /// Detection results by lane, each written by its own lane only.
    private final class Lanes: @unchecked Sendable {
        var results: [Detected]
        init(_ count: Int) { results = Array(repeating: Detected(), count: count) }
    }

    func processVideo(_ photo: Photo, bytes: PhotoBytes, with detector: Detector) throws(FaceCropError) -> PhotoRecord {
        let source = FileName.display(photo.source)
        guard let tools = videoTools else { throw VideoMessage.noTools(source, problem: videoProblem) }
        let path = bytes.processPath
        let probe: VideoProbe
        do throws(FaceCropError) {
            probe = try VideoProbe.probe(tools, path: path, source: source)
        } catch {
            // A photo named like a video (a HEIC named .mov: "moov atom not
            // found") is named as such; one ffmpeg reads (a JPEG) is read.
            if case .photo(let kind, let fileExtension)? = FileSniff.sniff(bytes.head(FileSniff.headLength)) {
                throw VideoMessage.misnamed(source, kind: kind, fileExtension: fileExtension)
            }
            throw error
        }
        if let outside = videoOutsideDates(photo, probe: probe, sha256: bytes.sha256) { return outside }
        let limit = settings.video.maxSeconds
        if let duration = probe.duration, duration > limit {
            throw VideoMessage.tooLong(source, seconds: Self.seconds(duration), limit: Self.seconds(limit))
        }
        guard probe.width * probe.height <= settings.maxPixels else {
            throw VideoMessage.tooManyPixels(
                source, width: String(probe.width), height: String(probe.height), limit: String(settings.maxPixels))
        }
        let packets = try probe.packetTimes(tools, path: path, source: source)
        let origin = packets.first ?? 0
        var record = PhotoRecord(photo, status: .noFace, sha256: bytes.sha256)
        record.taken = probe.taken
        record.split = settings.split?.split(forSHA256: bytes.sha256)
        let prefix = (record.split.map { $0 + "/" } ?? "") + photo.outputPrefix
        record.width = probe.width
        record.height = probe.height
        let full = (width: probe.width, height: probe.height)
        let detectSide = settings.detectSize
            ?? Calibration.detectSize(kind: settings.detector, longSide: max(full.width, full.height), minFace: settings.minFace)
        let small = Self.detectionSize(full, side: detectSide)
        let reader = try FrameReader(tools, path: path, probe: probe, settings: settings.video, size: small, source: source)
        var written: [String] = []
        var finished = false
        defer {
            if !finished {
                reader.cancel()
                for path in written { unlink(path) }
            }
        }
        var tracker = Tracker()
        var faces: [FaceRecord] = []
        var pending: [Pending] = []
        var samples = 0
        var lastTime = 0.0
        var photoHash: PerceptualHash?
        // The frames of one batch, one for each core it could borrow.
        var batch: [(pts: Int, pixels: [UInt8])] = []
        var helpers: [Detector] = []
        // Cores borrowed for a batch that a failure cut short go back too.
        defer { cores?.giveBack(helpers) }
        func detectBatch() throws(FaceCropError) {
            defer {
                cores?.giveBack(helpers)
                helpers = []
                batch = []
            }
            let detected = detect(batch, size: small, full: full, detectors: [detector] + helpers, source: source)
            for (frame, found) in zip(batch, detected) {
                if let failure = found.failure { throw failure }
                // The video's perceptual hash is its first frame with a face's (`--dedup`).
                if photoHash == nil { photoHash = found.hash }
                let tracks = tracker.assign(found.found.map(\.box), gray: found.gray)
                guard !found.found.isEmpty else { continue }
                let ticks = frame.pts - origin
                var found = found
                let placement = PlaceStage.place(
                    found.found, full: full, prefix: prefix + "." + Self.timeTag(ticks, probe: probe), settings: settings)
                let statuses = PlaceStage.rate(&found.found, placement, full: full, settings: settings)
                pending.append(Pending(pts: frame.pts, placement: placement, first: faces.count))
                let number = Self.frameNumber(frame.pts, packets: packets)
                for (index, face) in found.found.enumerated() {
                    let aligned = placement.faces[index]
                    var record = FaceRecord(
                        index: index, box: face.box, score: (face.score * 10_000).rounded() / 10_000, target: settings.target,
                        aligned: aligned.aligned, angle: aligned.aligned ? aligned.recordedAngle : 0, sharpness: face.sharpness,
                        quality: face.quality, padded: aligned.padded, landmarks: face.landmarks.map(AlignmentJSON.rounded),
                        status: statuses[index])
                    record.video = VideoFace(time: Self.time(ticks, probe: probe), frame: number, track: tracks[index])
                    if settings.video.perTrack != nil {
                        let frontality = TrackQuality.frontality(face.landmarks)
                        record.video?.frontality = frontality
                    }
                    // The crop's name; it is cut in the second read. Rejections
                    // take whole tracks, once the video is read (`rejectTracks`).
                    if record.status == .ok { record.crop = placement.names[index] }
                    faces.append(record)
                }
            }
        }
        while try reader.next({ frame, pixels throws(FaceCropError) in
            // A long video does not hold up Ctrl-C: it keeps nothing and
            // is read again by the next run (failures are retried).
            if stop?.requested != nil {
                throw VideoMessage.interrupted(source)
            }
            samples += 1
            let time = Self.time(frame.pts - origin, probe: probe)
            lastTime = max(lastTime, time)
            if time > limit {
                throw VideoMessage.longerThanLimit(source, limit: Self.seconds(limit))
            }
            if batch.isEmpty, let cores { helpers = cores.borrow(cores.jobs - 1, like: detector) }
            batch.append((frame.pts, Array(pixels)))
        }) {
            if batch.count > helpers.count { try detectBatch() }
        }
        if !batch.isEmpty { try detectBatch() }
        try reader.finish()
        rejectTracks(&faces, sha256: bytes.sha256)
        if let keep = settings.video.perTrack {
            // Their crops were never cut.
            _ = Self.bestOfTracks(&faces, keep: keep)
        }
        let fullFrames = try cutCrops(
            faces: &faces, pending: pending, written: &written, tools: tools, path: path, probe: probe, origin: origin,
            prefix: prefix, embedder: detector.embedder, source: source)
        finished = true
        record.faces = faces
        record.status = faces.isEmpty ? .noFace : .ok
        if record.status == .ok { record.photoHash = photoHash }
        record.video = VideoInfo(duration: Self.rounded(probe.duration ?? lastTime), samples: samples, fullFrames: fullFrames)
        return record
    }

    /// The faces on each frame of `batch` (`size` pixels, packed RGB), on
    /// one lane per detector at once; in `batch`'s order.
    private func detect(
        _ batch: [(pts: Int, pixels: [UInt8])], size: (width: Int, height: Int), full: (width: Int, height: Int),
        detectors: [Detector], source: String
    ) -> [Detected] {
        let lanes = Lanes(batch.count)
        let settings = settings
        let run: @Sendable (Int) -> Void = { index in
            do throws(FaceCropError) {
                let made = batch[index].pixels.withUnsafeBytes { raw in
                    Result { () throws(FaceCropError) in
                        try Picture.frame(rgb: raw, width: size.width, height: size.height, source: source)
                    }
                }
                let picture = try made.get()
                var detected = Detected()
                if case .faces(let kept, _, let hash) = try DetectStage.detect(
                    small: picture, full: full, with: detectors[index], settings: settings, source: source)
                {
                    detected.found = kept
                    detected.hash = hash
                }
                detected.gray = try picture.grayPixels(source: source)
                lanes.results[index] = detected
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

    /// The second read: the frames whose crops are kept, by their exact pts,
    /// at full size; cuts and writes those crops and, with `--people`, takes
    /// their descriptors from the same full-size frame (only the crops kept:
    /// with `--per-track N`, those N). Returns how many frames it read.
    private func cutCrops(
        faces: inout [FaceRecord], pending: [Pending], written: inout [String], tools: VideoTools, path: String,
        probe: VideoProbe, origin: Int, prefix: String, embedder: Embedder?, source: String
    ) throws(FaceCropError) -> Int {
        var kept: [String: Int] = [:]
        for (index, face) in faces.enumerated() where face.status == .ok && !face.crop.isEmpty { kept[face.crop] = index }
        let frames = pending.filter { $0.placement.names.contains { kept[$0] != nil } }
        guard !frames.isEmpty else { return 0 }
        let full = (width: probe.width, height: probe.height)
        // The graph names every frame: a file, not a command line (whose
        // arguments are limited to 128 KiB each).
        let script = temporaries.make(for: (outputRoot as NSString).appendingPathComponent("filters"))
        defer {
            unlink(script)
            temporaries.forget(script)
        }
        let graph = FrameReader.filters(probe, settings: settings.video, size: full, only: frames.map(\.pts))
        guard FileManager.default.createFile(atPath: script, contents: Data(graph.utf8)) else {
            throw .writeFailed(source, reason: "cannot write ffmpeg's filter script '\(script)'")
        }
        let reader = try FrameReader(tools, path: path, probe: probe, settings: settings.video, script: script, source: source)
        defer { reader.cancel() }
        let writer = WriteStage(settings: settings, outputRoot: outputRoot, temporaries: temporaries, journal: journal, gate: fullDecodes)
        var next = 0
        while next < frames.count, try reader.next({ frame, pixels throws(FaceCropError) in
            if stop?.requested != nil {
                throw VideoMessage.interrupted(source)
            }
            // A second frame of the same pts (a broken stream) is passed over.
            guard frame.pts == frames[next].pts else { return }
            let sample = frames[next]
            next += 1
            let picture = try Picture.frame(rgb: pixels, width: frame.width, height: frame.height, source: source)
            let names = sample.placement.names.filter { kept[$0] != nil }
            try writer.prepare(names, prefix: prefix, source: source)
            for (offset, name) in sample.placement.names.enumerated() {
                guard let index = kept[name] else { continue }
                let (encoded, transform) = try writer.cut(
                    sample.placement.faces[offset], from: picture, sx: 1, sy: 1, origin: (0, 0), source: source)
                written.append(try writer.save(encoded, as: name, source: source))
                faces[index].transform = AlignmentJSON.rounded(transform)
                faces[index].phash = try PerceptualHash(encoded: encoded, source: source)
                if let embedder {
                    faces[index].embedding = try WriteStage.embedding(
                        of: faces[index].box, landmarks: faces[index].landmarks, from: picture, sx: 1, sy: 1, origin: (0, 0),
                        embedder: embedder, source: source)
                }
            }
        }) {}
        guard next == frames.count else {
            try reader.finish()
            let time = Self.time(frames[next].pts - origin, probe: probe)
            throw VideoMessage.secondReadMissed(source, seconds: "\(time)")
        }
        return next
    }

    /// The size a frame of `full` pixels is scaled to for detection: its
    /// long side `side` (never enlarged), the other in proportion, rounded
    /// to the nearest pixel, as libvips' `vips_thumbnail` (the photo's
    /// detection decode) sizes it.
    static func detectionSize(_ full: (width: Int, height: Int), side: Int) -> (width: Int, height: Int) {
        let long = max(full.width, full.height)
        guard long > side, side > 0 else { return full }
        let other = { (short: Int) in max(1, Int((Double(short) * Double(side) / Double(long)).rounded())) }
        return full.width >= full.height ? (side, other(full.height)) : (other(full.width), side)
    }

    /// `--per-track N`: keeps the `keep` best crops of each track (by
    /// face_quality, then earliest), each with its rank and the track's length;
    /// returns the crops of the others, which leave the record.
    static func bestOfTracks(_ faces: inout [FaceRecord], keep: Int) -> [String] {
        var byTrack: [Int: [Int]] = [:]
        for (index, face) in faces.enumerated() where face.status == .ok {
            byTrack[face.video?.track ?? 0, default: []].append(index)
        }
        var dropped = Set<Int>()
        for members in byTrack.values {
            let ranked = members.sorted { a, b in
                let qa = faces[a].quality?.score ?? 0
                let qb = faces[b].quality?.score ?? 0
                return qa != qb ? qa > qb : a < b
            }
            for (rank, index) in ranked.enumerated() {
                if rank < keep {
                    faces[index].video?.rank = rank + 1
                    faces[index].video?.trackLength = members.count
                } else {
                    dropped.insert(index)
                }
            }
        }
        let crops = dropped.sorted().map { faces[$0].crop }
        faces = faces.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
        return crops
    }

    /// Seconds from the first frame, to the microsecond.
    static func time(_ ticks: Int, probe: VideoProbe) -> Double {
        rounded(Double(max(0, ticks)) * Double(probe.timeBase.num) / Double(probe.timeBase.den))
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1_000_000).rounded() / 1_000_000 }

    /// `t000012.345`: the time in whole milliseconds (rounded down), for crop names.
    static func timeTag(_ ticks: Int, probe: VideoProbe) -> String {
        let ms = max(0, ticks) * probe.timeBase.num * 1000 / probe.timeBase.den
        let whole = String(ms / 1000)
        let part = String(ms % 1000)
        return "t" + String(repeating: "0", count: max(0, 6 - whole.count)) + whole + "."
            + String(repeating: "0", count: 3 - part.count) + part
    }

    /// The frame's number in presentation order: how many packets come before it.
    static func frameNumber(_ pts: Int, packets: [Int]) -> Int {
        var low = 0
        var high = packets.count
        while low < high {
            let middle = (low + high) / 2
            if packets[middle] < pts { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }
}
