import CVipsShim
import Foundation
import Synchronization

/// One face crop written for a photo.
public struct FaceCrop: Sendable, Equatable {
    /// 0-based; faces are numbered largest first.
    public var index: Int
    /// The face in upright, full-resolution pixels of the photo.
    public var bbox: PixelRect
    public var score: Double
    /// The crop file, relative to `-o`.
    public var crop: String
    /// Whether the crop reached past the photo's edge and was padded.
    public var padded: Bool
    /// What was cropped (`--target`).
    public var target: Target = .face
    /// Whether the crop was turned to level the eyes, and by how many degrees.
    public var aligned = false
    public var angle = 0.0
    /// Variance of the Laplacian of the box at 96 x 96 (higher is sharper).
    public var sharpness = 0.0
}

public enum PhotoStatus: String, Sendable {
    case ok
    case noFace = "no_face"
    case noPerson = "no_person"
    case error
}

/// What became of one photo. Every photo, and every problem found while
/// walking the folders, yields exactly one outcome; a failure is a value here,
/// never an exception that stops the other photos.
public struct PhotoOutcome: Sendable {
    public var input: Int
    public var source: String
    public var status: PhotoStatus
    public var faces: [FaceCrop] = []
    public var error: FaceCropError?
    /// Upright size of the photo, when its header could be read.
    public var width: Int?
    public var height: Int?
    public var sha256: String?

    static func failed(_ photo: Photo, _ error: FaceCropError, sha256: String? = nil) -> PhotoOutcome {
        PhotoOutcome(input: photo.input, source: photo.source, status: .error, error: error, sha256: sha256)
    }
}

/// The settings that decide what a photo's crops look like.
public struct CropSettings: Sendable, Equatable {
    public var size: Int
    public var margin: Double
    public var faces: FaceSelection
    public var minFace: Int
    public var pad: PadMode
    public var format: OutputFormat
    public var quality: Int
    public var detectSize: Int
    public var minNeighbors: Int
    public var maxPixels: Int
    public var detector: DetectorKind
    public var minScore: Double
    public var target: Target
    public var personOnly: Bool
    public var align: Bool
    public var minSharpness: Double

    public init(_ options: Options) {
        size = options.size
        margin = options.margin
        faces = options.faces
        minFace = options.minFace
        pad = options.pad
        format = options.format
        quality = options.quality
        detectSize = options.effectiveDetectSize
        minNeighbors = options.minNeighbors
        maxPixels = options.maxPixels
        detector = options.detector
        minScore = options.minScore ?? DetectorConfig.defaultMinScore(options.detector)
        target = options.target
        personOnly = options.personOnly
        align = options.align
        minSharpness = options.minSharpness
    }
}

/// Turns one photo into its crops: read, decode small, detect, map back,
/// decode at the size the crops need, cut, encode, write atomically.
struct PhotoProcessor: Sendable {
    var settings: CropSettings
    var outputRoot: String
    var temporaries: TemporaryFiles
    var diagnosis = DiagnosisLock()
    var fullDecodes = DecodeGate()
    /// Stop after detection (the `floor` benchmark: decode + one detection pass).
    var detectOnly = false

    /// Settings hash and labels, for records and manifest lines.
    var labels: [String] = [""]
    var journal: Journal?

    /// Processes one photo into its record. `previous` is what an earlier run
    /// recorded for it (same settings) when its size or time changed: if the
    /// content is the same, that record is kept and nothing is decoded.
    private static let finished = Atomic<Int>(0)

    func process(_ photo: Photo, previous: PhotoRecord?, with detector: Detector) -> PhotoRecord {
        // A photo's images are freed by now; every few photos give malloc's
        // free pages back, or the heap's holes add up over a long run (RSS
        // crept up ~6 KB a photo without this; after every photo it costs
        // ~7 % more CPU, after every 8th about nothing).
        defer {
            CVipsShim_ThreadDone()
            if Self.finished.add(1, ordering: .relaxed).newValue % 8 == 0 { CVipsShim_TrimMemory() }
        }
        var outcome = diagnosis.shared { attempt(photo, previous: previous, with: detector) }
        switch outcome {
        case .fresh(let fresh):
            switch fresh.error {
            case .notAnImage?, .decodeFailed?:
                outcome = diagnosis.exclusive { attempt(photo, previous: previous, with: detector) }
            default:
                break
            }
        case .same:
            break
        }
        let record: PhotoRecord
        switch outcome {
        case .same(var kept):
            kept.size = photo.size
            kept.modified = photo.modified
            record = kept
        case .fresh(let fresh):
            record = PhotoRecord(
                label: photo.label, input: photo.input, source: photo.source, size: photo.size,
                modified: photo.modified, sha256: fresh.sha256, status: fresh.status, crops: fresh.faces.map(\.crop),
                lines: ManifestWriter.lines(for: fresh, labels: labels), error: fresh.error)
        }
        // Journal failures surface when the run commits; a lost entry only
        // means the photo is processed again after a crash.
        try? journal?.finish(record)
        return record
    }

    /// The record for a problem the walk found.
    func record(for problem: FindProblem) -> PhotoRecord {
        let error = FaceCropError.unreadable(FileName.display(problem.source), reason: problem.reason)
        let outcome = PhotoOutcome(input: problem.input, source: problem.source, status: .error, error: error)
        return PhotoRecord(
            label: problem.label, input: problem.input, source: problem.source, size: 0, modified: 0, sha256: nil,
            status: .error, crops: [], lines: ManifestWriter.lines(for: outcome, labels: labels), error: error)
    }

    private enum Attempt {
        case fresh(PhotoOutcome)
        case same(PhotoRecord)
    }

    private func attempt(_ photo: Photo, previous: PhotoRecord?, with detector: Detector) -> Attempt {
        var hash: String?
        do throws(FaceCropError) {
            let bytes = try PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: FileName.display(photo.source))
            hash = bytes.sha256
            if let previous, previous.sha256 == hash {
                return .same(previous)
            }
            return .fresh(try process(photo, bytes: bytes, sha256: hash!, detector: detector))
        } catch {
            return .fresh(.failed(photo, error, sha256: hash))
        }
    }

    private func process(_ photo: Photo, bytes: PhotoBytes, sha256: String, detector: Detector)
        throws(FaceCropError) -> PhotoOutcome
    {
        let source = FileName.display(photo.source)  // for messages
        let header = try Picture.header(of: bytes, source: source)
        // --max-pixels is checked here, from the header already read; the
        // decodes below (maxPixels: 0) do not read the header again for it.
        guard header.storedWidth * header.storedHeight <= settings.maxPixels else {
            throw .tooLarge(source, reason: "\(header.storedWidth) x \(header.storedHeight) pixels is over the limit of \(settings.maxPixels) pixels (--max-pixels)")
        }
        var outcome = PhotoOutcome(
            input: photo.input, source: photo.source, status: .noFace, width: header.width, height: header.height,
            sha256: sha256)

        // Detect on a small upright decode; it stays in memory because the
        // crops may be cut from it too. Photos that stream (JPEG, WebP,
        // upright PNG and TIFF) are decoded from the file at detection size:
        // JPEG and WebP by the decoder's own reduction that keeps at least
        // 3/4 of --detect-size (4032 px -> 1008 px, a 1/4 decode), resized
        // only when it is still larger; PNG and TIFF read top to bottom and
        // shrunk on the way. Other formats (HEIC, AVIF, ...) can only be
        // decoded whole, so they are decoded once, at full size, within the
        // gate's byte budget, the detection copy is made from that and the
        // crops are cut from it: one decode, not two.
        let detectScale = min(1, Double(settings.detectSize) / Double(max(header.width, header.height)))
        var whole: Picture?
        let small: Picture
        if header.streams {
            small = try Picture.load(
                bytes, header: header, minScale: detectScale * 0.75, fittingIn: settings.detectSize,
                settings.detectSize, source: source)
        } else {
            let decoded = try fullDecodes.admit(bytes: header.decodedBytes) { () throws(FaceCropError) in
                try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: source)
            }
            whole = decoded
            small = try decoded.fitting(settings.detectSize, settings.detectSize, source: source)
        }
        try small.materialize(source: source)
        let gray = try small.grayPixels(source: source)
        let rgb = detector.needsColour ? try small.rgbPixels(source: source) : nil
        let full = (width: header.width, height: header.height)
        let scale = Double(gray.width) / Double(full.width)
        let minSide = Int((Double(settings.minFace) * scale).rounded(.down))
        var found = try detector.find(in: gray, rgb: rgb, minSide: minSide, source: source)
        if settings.personOnly {
            let people = try detector.findPeople(in: gray, source: source).map(\.box)
            found = found.filter { PersonRule.counts($0.box, target: settings.target, people: people, width: gray.width, height: gray.height) }
            // A person found only past the photo's edges places faces, but alone does not make a photo one of people.
            if found.isEmpty && !people.contains(where: { Detector.liesInside($0, width: gray.width, height: gray.height) }) {
                outcome.status = .noPerson
                return outcome
            }
        }

        var faces = found.map { detection in
            (box: CropGeometry.map(detection.box, from: (gray.width, gray.height), to: full), score: detection.score,
             sharpness: (Detector.sharpness(of: detection.box, in: gray) * 100).rounded() / 100,
             angle: detection.eyes.map { ($0.angle * 100).rounded() / 100 })
        }
        .filter { max($0.box.width, $0.box.height) >= settings.minFace && $0.sharpness >= settings.minSharpness }
        faces.sort { a, b in
            if a.box.area != b.box.area { return a.box.area > b.box.area }
            if a.box.y != b.box.y { return a.box.y < b.box.y }
            return a.box.x < b.box.x
        }
        if settings.faces == .largest { faces = Array(faces.prefix(1)) }
        guard !faces.isEmpty else { return outcome }
        if detectOnly {
            outcome.status = .ok
            outcome.faces = faces.enumerated().map {
                FaceCrop(
                    index: $0.offset, bbox: $0.element.box, score: $0.element.score, crop: "", padded: false,
                    target: settings.target, sharpness: $0.element.sharpness)
            }
            return outcome
        }

        let squares = faces.map {
            CropGeometry.cropSquare(around: $0.box, margin: settings.margin, imageWidth: full.width, imageHeight: full.height)
        }
        // Cut from the smallest decode that still gives every crop its full
        // resolution: the detection decode when it is enough.
        let needed = CropGeometry.decodeScale(for: squares, outputSide: settings.size)
        // Otherwise a decode from the file (JPEG/WebP at the decoder's
        // reduction that still has every crop's resolution, PNG/TIFF at full
        // size; each crop is resized from it on its own) of only the part of
        // the photo the crops cover: the decoder stops at its bottom row. A
        // large one is decoded and cut within the gate's byte budget.
        let fresh = scale < needed * 0.999 && whole == nil
        let cover = CropGeometry.cover(squares, grow: settings.align ? 0.25 : 0, width: full.width, height: full.height)
        let freshBytes = fresh ? Double(cover.width * cover.height * header.pixelBytes) * min(1, needed * needed) : 0
        try fullDecodes.admit(bytes: Int(freshBytes)) { () throws(FaceCropError) in
            let picture: Picture
            var origin = (x: 0, y: 0)
            var decoded: (width: Int, height: Int)
            if !fresh {
                picture = scale >= needed * 0.999 ? small : (whole ?? small)
                decoded = (picture.width, picture.height)
            } else {
                (picture, origin, decoded) = try Picture.load(
                    bytes, header: header, minScale: min(needed, 1), covering: cover, source: source)
            }
            let sx = Double(decoded.width) / Double(full.width)
            let sy = Double(decoded.height) / Double(full.height)

            let folder = (outputRoot as NSString).appendingPathComponent((photo.outputPrefix as NSString).deletingLastPathComponent)
            do throws(WriteFailure) {
                try AtomicFile.makeFolder(folder)
            } catch {
                throw .writeFailed(source, reason: error.reason)
            }
            // A photo's crops are all written or none: a failure part-way removes
            // the ones already written.
            let names = faces.indices.map { Self.cropName(prefix: photo.outputPrefix, index: $0, format: settings.format, target: settings.target) }
            do throws(WriteFailure) {
                try journal?.begin(names)
            } catch {
                throw error.isOutOfSpace ? .outputFull(source, reason: error.reason) : .writeFailed(source, reason: error.reason)
            }
            var written: [String] = []
            defer {
                if outcome.status != .ok { for path in written { unlink(path) } }
            }
            for (index, (face, square)) in zip(faces, squares).enumerated() {
                var scaled = CropGeometry.scale(square, sx: sx, sy: sy)
                scaled.left -= origin.x
                scaled.top -= origin.y
                // --align: level the eye line, unless the eyes were not found or
                // the turn is implausibly large for a face (then kept as it is).
                let angle = settings.align ? face.angle.flatMap { abs($0) <= 45 ? $0 : nil } : nil
                let encoded = try picture.encodeCrop(
                    scaled, pad: settings.pad, side: settings.size, format: settings.format, quality: settings.quality,
                    angle: angle ?? 0, source: source)
                let relative = names[index]
                let path = (outputRoot as NSString).appendingPathComponent(relative)
                do throws(WriteFailure) {
                    try AtomicFile.write(encoded, to: path, temporaries: temporaries)
                    written.append(path)
                } catch {
                    let reason = "'\(relative)': \(error.reason)"
                    throw error.isOutOfSpace ? .outputFull(source, reason: reason) : .writeFailed(source, reason: reason)
                }
                outcome.faces.append(
                    FaceCrop(
                        index: index, bbox: face.box, score: (face.score * 10_000).rounded() / 10_000, crop: relative,
                        padded: square.reachesOutside(width: full.width, height: full.height), target: settings.target,
                        aligned: angle != nil, angle: angle ?? 0, sharpness: face.sharpness))
            }
            outcome.status = .ok
        }
        return outcome
    }

    /// `trip/IMG_1.heic` -> `trip/IMG_1.heic.face0.jpg`: the photo's whole name
    /// is kept, so `a.jpg` and `a.heic` never share a crop name, and the same
    /// photo always gets the same names.
    static func cropName(prefix: String, index: Int, format: OutputFormat, target: Target = .face) -> String {
        "\(prefix).\(target == .face ? "face" : target.rawValue)\(index).\(format.fileExtension)"
    }
}

/// `--person-only`: which finds count as a person's.
///
/// A face counts when its centre lies in the top third of a person the HOG
/// detector found and it is at most half that person's width across, or
/// when it is portrait-sized: its side at least 1/8 of the photo's shorter
/// side. A standing person is about 7-8 heads tall, so a face that large
/// leaves no room for the whole body the HOG detector needs: selfies,
/// portraits and head-and-shoulders shots are kept on the face alone.
/// Upper bodies count inside a person or when at least 1/3 of the shorter
/// side; whole bodies are people already; cat faces need a person too.
enum PersonRule {
    static func counts(_ box: PixelRect, target: Target, people: [PixelRect], width: Int, height: Int) -> Bool {
        let shorter = Double(min(width, height))
        let side = Double(max(box.width, box.height))
        let cx = Double(box.x) + Double(box.width) / 2
        let cy = Double(box.y) + Double(box.height) / 2
        switch target {
        case .face, .catface:
            if target == .face && side >= shorter / 8 { return true }
            return people.contains { person in
                cx >= Double(person.x) && cx <= Double(person.x + person.width) && cy >= Double(person.y)
                    && cy <= Double(person.y) + Double(person.height) / 3 && Double(box.width) <= Double(person.width) / 2
            }
        case .upperbody:
            if side >= shorter / 3 { return true }
            return people.contains { person in
                cx >= Double(person.x) && cx <= Double(person.x + person.width) && cy >= Double(person.y)
                    && cy <= Double(person.y + person.height)
            }
        case .body:
            return true
        }
    }
}
