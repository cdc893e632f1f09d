import Foundation
import FaceCropCore

/// manifest.jsonl: one JSON object per line, a line per crop and a line per
/// photo without crops, in source order (the contract in docs/manual.md). The
/// state file keeps each photo's lines too, so this is also where they are
/// read back into a record.
package enum Manifest {
    package static let fileName = "manifest.jsonl"

    /// The manifest lines of one record.
    package static func lines(of record: PhotoRecord) -> [String] {
        var common: [(String, JSON)] = [("source", .string(FileName.display(record.source)))]
        var extra: [(String, JSON)] = []
        if FileName.hasEscapes(record.source) {
            extra.append(("source_bytes", .string(Data(FileName.bytes(record.source)).base64EncodedString())))
        }
        if !record.label.isEmpty { extra.append(("input", .string(record.label))) }
        if let width = record.width, let height = record.height {
            extra.append(("width", .int(width)))
            extra.append(("height", .int(height)))
        }
        if let sha256 = record.sha256 { extra.append(("sha256", .string(sha256))) }
        var last: [(String, JSON)] = []
        if let photoHash = record.photoHash { last.append(("photo_phash", .string(photoHash.description))) }
        if let taken = record.taken { last.append(("taken", .string(taken.description))) }
        if !record.names.isEmpty { last.append(("names", .array(record.names.map { .string($0) }))) }
        // Face tags in the photo's XMP, and how many the detector found.
        if record.taggedFaces > 0 {
            last.append(("tagged_faces", .int(record.taggedFaces)))
            last.append(("tagged_faces_found", .int(record.taggedFacesFound)))
        }
        // A video's lines say so (also when it could not be read), and how
        // long it is and how many frames were sampled.
        if VideoFiles.isVideoName(record.source) { last.append(("video", .bool(true))) }
        if let video = record.video {
            last.append(("duration", .double(video.duration)))
            last.append(("samples", .int(video.samples)))
            if let frames = video.fullFrames { last.append(("full_frames", .int(frames))) }
            if let cuts = video.cuts { last.append(("cuts", .int(cuts))) }
            if let rule = video.cutsBy { last.append(("cuts_by", .string(rule))) }
        }
        // --no-prune: a photo not found now, its lines kept (last, so that
        // without it they are the bytes they were).
        if record.missing { last.append(("missing", .bool(true))) }

        switch record.status {
        case .ok:
            return record.faces.map { face in
                // A face's split is its photo's, unless --split-by person put it elsewhere.
                let split = (face.split ?? record.split).map { [("split", JSON.string($0))] } ?? []
                return JSON.object(common + [("status", .string(face.status.rawValue))] + fields(of: face) + extra + split + last)
                    .serialized()
            }
        case .noFace, .noPerson:
            common.append(("status", .string(record.status.rawValue)))
            return [JSON.object(common + extra + (record.split.map { [("split", .string($0))] } ?? []) + last).serialized()]
        case .error:
            common.append(("status", .string("error")))
            common.append(("error", .string(record.failure ?? "unknown error")))
            return [JSON.object(common + extra + (record.split.map { [("split", .string($0))] } ?? []) + last).serialized()]
        }
    }

    private static func fields(of face: FaceRecord) -> [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("face", .int(face.index)),
            ("bbox", .array([.int(face.box.x), .int(face.box.y), .int(face.box.width), .int(face.box.height)])),
            ("score", .double(face.score)),
        ]
        if face.status == .ok { fields.append(("crop", .string(face.crop))) }
        fields.append(("padded", .bool(face.padded)))
        if let margin = face.marginUsed { fields.append(("margin_used", .double(margin))) }
        fields.append(("target", .string(face.target.rawValue)))
        // Present only for a face not upright in the photo (upright faces' lines keep their bytes).
        if !face.turned.isUpright { fields.append(("turned", .int(face.turned.degrees))) }
        fields += [
            ("aligned", .bool(face.aligned)),
            ("angle", .double(face.angle)),
            ("sharpness", .double(face.sharpness)),
        ]
        if let quality = face.quality { fields += Self.fields(of: quality) }
        fields += [
            ("landmarks", AlignmentJSON.landmarks(face.landmarks)),
            ("landmarks_estimated", AlignmentJSON.estimated(face.landmarks)),
            ("transform", AlignmentJSON.transform(face.transform)),
        ]
        if let phash = face.phash { fields.append(("phash", .string(phash.description))) }
        if let kept = face.duplicateOf { fields.append(("duplicate_of", .string(kept))) }
        if let video = face.video {
            fields += [("time", .double(video.time)), ("frame", .int(video.frame)), ("track", .int(video.track))]
            if let rank = video.rank, let length = video.trackLength {
                fields += [("track_rank", .int(rank)), ("track_length", .int(length))]
            }
            if let quality = video.quality { fields.append(("quality", .double(quality))) }
            if let frontality = video.frontality { fields.append(("frontality", .double(frontality))) }
        }
        // A face tag covers it (with its name); the detector missed it.
        if face.tagged { fields.append(("tagged", .bool(true))) }
        if let name = face.tagName { fields.append(("tag_name", .string(name))) }
        if face.foundByTag { fields.append(("found_by", .string("tag"))) }
        // --people, once grouped: the face's row in embeddings.npy and its person.
        if let row = face.embeddingRow {
            fields.append(("embedding", .int(row)))
            fields.append(("person", face.person.map(JSON.string) ?? .null))
        }
        return fields
    }

    /// The quality record (docs/quality.md): the score and its reason, then
    /// the measures.
    package static func fields(of quality: FaceQuality) -> [(String, JSON)] {
        [
            ("face_quality", .double(quality.score)),
            ("quality_reason", .string(quality.reason)),
            ("quality_reasons", .array(quality.reasons.map(JSON.string))),
            ("pose", quality.pose.map { .object([("yaw", .double($0.yaw)), ("pitch", .double($0.pitch)), ("roll", .double($0.roll))]) } ?? .null),
            ("face_px", .double(quality.facePx)),
            ("softness", .double(quality.softness)),
            ("detail_px", .double(quality.detailPx)),
            ("upscaled", .bool(quality.upscaled)),
            ("exposure", .object([("mean", .double(quality.mean)), ("dark", .double(quality.dark)), ("bright", .double(quality.bright))])),
            ("blocking", .double(quality.blocks)),
            ("jpeg_quality", quality.jpegQuality.map { .int($0) } ?? .null),
            ("outside", .double(quality.outside)),
            ("eyes_open", quality.eyesOpen.map { .array($0.map(JSON.double)) } ?? .null),
            ("face_presence", quality.facePresence.map(JSON.double) ?? .null),
            ("occlusion", quality.covered.map { .object([("eyes", .double($0.eyes)), ("mouth", .double($0.mouth))]) } ?? .null),
        ]
    }

    /// Reads a record's manifest lines back into it: the photo's size and
    /// failure from the first line, a face from each line of an `.ok`
    /// record. Returns false if a line is not one `lines(of:)` writes.
    package static func read(_ lines: [String], into record: inout PhotoRecord) -> Bool {
        // One decode for all of a record's lines: a state file of 100,000
        // photos is read at every run.
        let text = "[" + lines.joined(separator: ",") + "]"
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // landmarks_estimated
        guard let parsed = try? decoder.decode([Line].self, from: Data(text.utf8)), let first = parsed.first else {
            return false
        }
        record.width = first.width
        record.height = first.height
        record.failure = first.error
        record.split = first.split
        record.photoHash = first.photoPhash.flatMap(PerceptualHash.init(hex:))
        record.taken = first.taken.flatMap(CaptureTime.init(manifest:))
        record.names = first.names ?? []
        record.taggedFaces = first.taggedFaces ?? 0
        record.taggedFacesFound = first.taggedFacesFound ?? 0
        record.missing = first.missing ?? false
        if let duration = first.duration, let samples = first.samples {
            record.video = VideoInfo(duration: duration, samples: samples, fullFrames: first.fullFrames, cuts: first.cuts, cutsBy: first.cutsBy)
        }
        guard record.status == .ok else { return true }
        var faces: [FaceRecord] = []
        for line in parsed {
            guard let face = line.faceRecord else { return false }
            faces.append(face)
        }
        record.faces = faces
        Manifest.settle(&record)
        return true
    }

    /// Faces whose split is their photo's say none of their own.
    package static func settle(_ record: inout PhotoRecord) {
        for index in record.faces.indices where record.faces[index].split == record.split {
            record.faces[index].split = nil
        }
    }

    /// The members of a manifest line a record keeps (the rest it knows already).
    fileprivate struct Line: Decodable {
        var face: Int?
        var bbox: [Int]?
        var score: Double?
        var crop: String?
        var padded: Bool?
        var marginUsed: Double?
        var target: String?
        var turned: Int?
        var aligned: Bool?
        var angle: Double?
        var sharpness: Double?
        var faceQuality: Double?
        var qualityReason: String?
        var qualityReasons: [String]?
        var pose: Pose?
        var facePx: Double?
        var softness: Double?
        var detailPx: Double?
        var upscaled: Bool?
        var exposure: Exposure?
        var blocking: Double?
        var jpegQuality: Int?
        var outside: Double?
        var eyesOpen: [Double]?
        var facePresence: Double?
        var occlusion: Occlusion?
        var landmarks: [String: [Double]]?
        var landmarksEstimated: [String]?
        var transform: [[Double]]?
        var width: Int?
        var height: Int?
        var error: String?
        var status: String?
        var phash: String?
        var duplicateOf: String?
        var embedding: Int?
        var person: String?
        var split: String?
        var photoPhash: String?
        var taken: String?
        var names: [String]?
        var duration: Double?
        var samples: Int?
        var fullFrames: Int?
        var cuts: Int?
        var cutsBy: String?
        var time: Double?
        var frame: Int?
        var track: Int?
        var trackRank: Int?
        var trackLength: Int?
        var quality: Double?
        var frontality: Double?
        var tagged: Bool?
        var tagName: String?
        var foundBy: String?
        var taggedFaces: Int?
        var taggedFacesFound: Int?
        var missing: Bool?
    }

    fileprivate struct Pose: Decodable {
        var yaw: Double
        var pitch: Double
        var roll: Double
    }

    fileprivate struct Occlusion: Decodable {
        var eyes: Double
        var mouth: Double
    }

    fileprivate struct Exposure: Decodable {
        var mean: Double
        var dark: Double
        var bright: Double
    }
}

extension Manifest.Line {
    /// The face of a crop's line; nil if the line is not one `lines(of:)` writes.
    package var faceRecord: FaceRecord? {
        let status = self.status.flatMap(FaceStatus.init(rawValue:)) ?? .ok
        guard let index = face, let box = bbox, box.count == 4, let score, (crop != nil) == (status == .ok), let padded else {
            return nil
        }
        var record = FaceRecord(
            index: index, box: PixelRect(x: box[0], y: box[1], width: box[2], height: box[3]), score: score,
            target: target.flatMap(Target.init(rawValue:)) ?? .face, aligned: aligned ?? false,
            angle: angle ?? 0, sharpness: sharpness ?? 0, quality: faceQualityRecord, crop: crop ?? "", padded: padded,
            marginUsed: marginUsed,
            landmarks: AlignmentJSON.landmarks(from: landmarks, estimated: landmarksEstimated),
            transform: AlignmentJSON.transform(from: transform),
            status: status, phash: phash.flatMap(PerceptualHash.init(hex:)), duplicateOf: duplicateOf,
            embeddingRow: embedding, person: person, split: split, video: videoFace,
            tagged: tagged ?? false, tagName: tagName, foundByTag: foundBy == "tag")
        record.turned = turned.flatMap(QuarterTurn.init(degrees:)) ?? .upright
        return record
    }

    /// A video face's time, frame and track; nil for a photo's face.
    private var videoFace: VideoFace? {
        guard let time, let frame, let track else { return nil }
        return VideoFace(
            time: time, frame: frame, track: track, rank: trackRank, trackLength: trackLength, quality: quality, frontality: frontality)
    }

    /// The quality record; nil for a line that has none.
    private var faceQualityRecord: FaceQuality? {
        guard let faceQuality, let qualityReason, let facePx, let upscaled, let exposure, let blocking, let outside else {
            return nil
        }
        var record = FaceQuality(
            pose: pose.map { FacePose(yaw: $0.yaw, pitch: $0.pitch, roll: $0.roll) }, facePx: facePx,
            softness: softness ?? 0.5, detailPx: detailPx ?? 0, upscaled: upscaled, mean: exposure.mean,
            dark: exposure.dark, bright: exposure.bright, blocks: blocking, jpegQuality: jpegQuality, outside: outside,
            score: faceQuality, reasons: qualityReasons ?? (qualityReason.isEmpty ? [] : [qualityReason]))
        (record.eyesOpen, record.facePresence) = (eyesOpen, facePresence)
        record.covered = occlusion.map { FaceOcclusion.Covered(eyes: $0.eyes, mouth: $0.mouth) }
        return record
    }
}
