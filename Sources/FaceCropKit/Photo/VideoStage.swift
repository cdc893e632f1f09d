import Foundation

/// A video through the same stages as a photo, a sampled frame at a time:
/// ffprobe for its facts, ffmpeg for its frames (`FrameReader`), each frame
/// shrunk for detection, its faces placed and cut from the full-size frame
/// while it is in memory, linked into tracks; with `--per-track`, only each
/// track's best crops are kept. Like a photo's, a video's crops are all
/// written or none: a video that fails part-way keeps none.
extension PhotoProcessor {
    func processVideo(_ photo: Photo, bytes: PhotoBytes, with detector: Detector) throws(FaceCropError) -> PhotoRecord {
        let source = FileName.display(photo.source)
        guard let tools = videoTools else {
            throw .videoFailed(source, reason: videoProblem ?? "no ffmpeg to read it with")
        }
        let path = bytes.processPath
        let probe = try VideoProbe.probe(tools, path: path, source: source)
        if let outside = videoOutsideDates(photo, probe: probe, sha256: bytes.sha256) { return outside }
        let limit = settings.video.maxSeconds
        if let duration = probe.duration, duration > limit {
            throw .tooLarge(source, reason: "\(Self.seconds(duration)) s long, over the limit of \(Self.seconds(limit)) s (--max-video-seconds)")
        }
        guard probe.width * probe.height <= settings.maxPixels else {
            throw .tooLarge(source, reason: "\(probe.width) x \(probe.height) pixels is over the limit of \(settings.maxPixels) pixels (--max-pixels)")
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
        let writer = WriteStage(settings: settings, outputRoot: outputRoot, temporaries: temporaries, journal: journal, gate: fullDecodes)
        let reader = try FrameReader(tools, path: path, probe: probe, settings: settings.video, source: source)
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
        var samples = 0
        var lastTime = 0.0
        var photoHash: PerceptualHash?
        while try reader.next({ frame, pixels throws(FaceCropError) in
            // A long video does not hold up Ctrl-C: it keeps nothing and
            // is read again by the next run (failures are retried).
            if stop?.requested != nil {
                throw .videoFailed(source, reason: "stopped before its end; the next run reads it again")
            }
            samples += 1
            let ticks = frame.pts - origin
            let time = Self.time(ticks, probe: probe)
            lastTime = max(lastTime, time)
            if time > limit {
                throw .tooLarge(source, reason: "longer than the limit of \(Self.seconds(limit)) s (--max-video-seconds)")
            }
            let picture = try Picture.frame(rgb: pixels, width: frame.width, height: frame.height, source: source)
            let small = try picture.fitting(detectSide, detectSide, source: source)
            try small.materialize(source: source)
            var found: [FoundFace] = []
            if case .faces(let kept, _, let hash) = try DetectStage.detect(small: small, full: full, with: detector, settings: settings, source: source) {
                found = kept
                // The video's perceptual hash is its first frame with a face's (`--dedup`).
                if photoHash == nil { photoHash = hash }
            }
            let tracks = tracker.assign(found.map(\.box), gray: try small.grayPixels(source: source))
            guard !found.isEmpty else { return }
            let framePrefix = prefix + "." + Self.timeTag(ticks, probe: probe)
            let placement = PlaceStage.place(found, full: full, prefix: framePrefix, settings: settings)
            // Rejections take whole tracks: applied once the video is read (`rejectTracks`).
            let rejected = found.map { _ in false }
            try writer.prepare(zip(placement.names, rejected).filter { !$0.1 }.map(\.0), prefix: prefix, source: source)
            let number = Self.frameNumber(frame.pts, packets: packets)
            for (index, face) in found.enumerated() {
                let aligned = placement.faces[index]
                var record = FaceRecord(
                    index: index, box: face.box, score: (face.score * 10_000).rounded() / 10_000, target: settings.target,
                    aligned: aligned.aligned, angle: aligned.aligned ? aligned.recordedAngle : 0, sharpness: face.sharpness,
                    padded: aligned.padded, landmarks: face.landmarks.map(AlignmentJSON.rounded),
                    status: rejected[index] ? .rejected : .ok)
                record.video = VideoFace(time: time, frame: number, track: tracks[index])
                if settings.video.perTrack != nil {
                    let frontality = TrackQuality.frontality(face.landmarks)
                    record.video?.frontality = frontality
                    record.video?.quality = TrackQuality.quality(score: record.score, frontality: frontality, sharpness: face.sharpness)
                }
                if !rejected[index] {
                    let (encoded, transform) = try writer.cut(aligned, from: picture, sx: 1, sy: 1, origin: (0, 0), source: source)
                    written.append(try writer.save(encoded, as: placement.names[index], source: source))
                    record.crop = placement.names[index]
                    record.transform = AlignmentJSON.rounded(transform)
                    record.phash = try PerceptualHash(encoded: encoded, source: source)
                }
                faces.append(record)
            }
        }) {}
        try reader.finish()
        rejectTracks(&faces, sha256: bytes.sha256)
        if let keep = settings.video.perTrack {
            for dropped in Self.bestOfTracks(&faces, keep: keep) {
                unlink((outputRoot as NSString).appendingPathComponent(dropped))
            }
        }
        finished = true
        record.faces = faces
        record.status = faces.isEmpty ? .noFace : .ok
        if record.status == .ok { record.photoHash = photoHash }
        record.video = VideoInfo(duration: Self.rounded(probe.duration ?? lastTime), samples: samples)
        return record
    }

    /// `--per-track N`: keeps the `keep` best crops of each track (by
    /// quality, then earliest), each with its rank and the track's length;
    /// returns the crops of the others, which leave the record.
    static func bestOfTracks(_ faces: inout [FaceRecord], keep: Int) -> [String] {
        var byTrack: [Int: [Int]] = [:]
        for (index, face) in faces.enumerated() where face.status == .ok {
            byTrack[face.video?.track ?? 0, default: []].append(index)
        }
        var dropped = Set<Int>()
        for members in byTrack.values {
            let ranked = members.sorted { a, b in
                let qa = faces[a].video?.quality ?? 0
                let qb = faces[b].video?.quality ?? 0
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
