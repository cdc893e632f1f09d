/// One face facecrop found in a photo and (in a run) the crop it wrote.
package struct FaceRecord: Sendable, Equatable {
    /// 0-based; faces are numbered largest first.
    package var index: Int
    /// The face in upright, full-resolution pixels of the photo.
    package var box: PixelRect
    package var score: Double
    /// What was cropped (`--target`).
    package var target: Target = .face
    /// Whether the crop was turned to level the eyes, and by how many degrees.
    package var aligned = false
    package var angle = 0.0
    /// Variance of the Laplacian of the box at 96 x 96 (higher is sharper).
    package var sharpness = 0.0
    /// The quality record (nil: a record made before it existed).
    package var quality: FaceQuality?
    /// The crop file, relative to `-o` ("" where none was written: `floor`).
    package var crop = ""
    /// Whether the crop reached past the photo's edge and was padded.
    package var padded = false
    /// `--pad inside`: the margin the crop's square gives the face, to 4
    /// decimals (`--margin` unless the square was shrunk to fit the photo;
    /// nil: another `--pad`, or a template crop, whose geometry is fixed).
    package var marginUsed: Double?
    /// The face's five points in upright photo pixels (nil: none found).
    package var landmarks: FaceLandmarks?
    /// How the face lies in the photo (manifest `turned`, absent when
    /// upright): its crop was turned upright by it.
    package var turned = QuarterTurn.upright
    /// Upright photo pixels -> crop pixels (nil where no crop was cut: `floor`).
    package var transform: Affine2D?
    /// A face with a crop, or one left out by a person (`rejected`), as a
    /// near-duplicate (`duplicate`, of the face whose crop is `duplicateOf`)
    /// or as someone `--keep-person` does not keep (`otherPerson`).
    package var status = FaceStatus.ok
    /// The crop's perceptual hash (faces with a crop, and duplicates).
    package var phash: PerceptualHash?
    package var duplicateOf: String?
    /// `--people`: the crop's face descriptor (faces with a crop).
    package var embedding: Embedding?
    /// `--people`: the face's row in embeddings.npy and its person (nil: in
    /// no group), set by the grouping after the run.
    package var embeddingRow: Int?
    package var person: String?
    /// `--people`: the grouping's id before the people file named it (kept
    /// in the state only, so the next grouping keeps ids stable by it).
    package var group: String?
    /// `--split-by person`: the face's split when it is not its photo's.
    package var split: String?
    /// A face in a video: its frame, time and track.
    package var video: VideoFace?
    /// A face tag in the photo's XMP covers it (manifest `tagged`), with
    /// this name (`tag_name`; nil: unnamed); `foundByTag`: the detector
    /// missed it and its crop is from the tag (`found_by`).
    package var tagged = false
    package var tagName: String?
    package var foundByTag = false

    package init(index: Int, box: PixelRect, score: Double, target: Target = .face, aligned: Bool = false,
        angle: Double = 0.0, sharpness: Double = 0.0, quality: FaceQuality? = nil, crop: String = "",
        padded: Bool = false, marginUsed: Double? = nil, landmarks: FaceLandmarks? = nil, transform: Affine2D? = nil,
        status: FaceStatus = FaceStatus.ok, phash: PerceptualHash? = nil, duplicateOf: String? = nil,
        embedding: Embedding? = nil, embeddingRow: Int? = nil, person: String? = nil, group: String? = nil,
        split: String? = nil, video: VideoFace? = nil, tagged: Bool = false, tagName: String? = nil,
        foundByTag: Bool = false) {
        (self.index, self.box, self.score, self.target, self.aligned) = (index, box, score, target, aligned)
        (self.angle, self.sharpness, self.quality, self.crop, self.padded) = (angle, sharpness, quality, crop, padded)
        (self.landmarks, self.transform, self.status, self.phash) = (landmarks, transform, status, phash)
        (self.duplicateOf, self.embedding, self.embeddingRow) = (duplicateOf, embedding, embeddingRow)
        (self.person, self.group, self.split, self.video, self.tagged) = (person, group, split, video, tagged)
        (self.tagName, self.foundByTag, self.marginUsed) = (tagName, foundByTag, marginUsed)
    }
}

/// A name that cannot name a person, and the warning that says so and where it came from.
package struct NameWarning: Sendable, Equatable {
    package var name: String
    package var text: String

    package init(name: String, file: String, problem: String) {
        self.name = name
        text = "\(file): \(problem); it stays in the manifest's names but names no person"
    }
}

/// Where in a video a face was found.
package struct VideoFace: Sendable, Equatable {
    /// The frame's presentation time in seconds from the video's first
    /// frame (from the stream's time base), rounded to the microsecond.
    package var time: Double
    /// The frame's 0-based number in presentation order.
    package var frame: Int
    /// The face's track (0-based, by first appearance in the video).
    package var track: Int
    /// `--per-track`: the crop's rank in its track (1: best) of how many
    /// samples the track had; `quality`, read from a dataset made before
    /// face_quality ranked tracks (no longer written).
    package var rank: Int?
    package var trackLength: Int?
    package var quality: Double?
    package var frontality: Double?

    package init(time: Double, frame: Int, track: Int, rank: Int? = nil, trackLength: Int? = nil,
        quality: Double? = nil, frontality: Double? = nil) {
        (self.time, self.frame, self.track, self.rank, self.trackLength) = (time, frame, track, rank, trackLength)
        (self.quality, self.frontality) = (quality, frontality)
    }
}

/// What a video's record says of the whole video.
package struct VideoInfo: Sendable, Equatable {
    /// Seconds, as ffprobe reports the stream's (else the file's) duration.
    package var duration: Double
    /// Frames sampled.
    package var samples: Int
    /// Frames read a second time, at full size, for their crops; nil in a
    /// record made before there was a second read (its line has none).
    package var fullFrames: Int?
    /// Samples that began a new shot, where every track ended (`cuts`); nil
    /// in a record made before cuts were found between samples.
    package var cuts: Int?
    /// How the cuts were found (`cuts_by`): `contrast` (`CutFinder`,
    /// since 2026-12-06); nil in a record whose cuts were found by a level
    /// (a scene score above 0.3), which missed cuts between similar pictures.
    package var cutsBy: String?
    /// What a video read now records as `cutsBy`.
    package static let cutsByNow = "contrast"

    package init(duration: Double, samples: Int, fullFrames: Int? = nil, cuts: Int? = nil, cutsBy: String? = nil) {
        (self.duration, self.samples, self.fullFrames, self.cuts, self.cutsBy) = (duration, samples, fullFrames, cuts, cutsBy)
    }
}

package enum FaceStatus: String, Sendable {
    case ok
    case rejected
    case duplicate
    /// `--keep-person`: a face of someone else (or of no one), without a crop.
    case otherPerson = "other_person"
    /// `--min-face-quality` / `--max-yaw`: below the floor, without a crop.
    case lowQuality = "low_quality"
}

public enum PhotoStatus: String, Sendable {
    case ok
    case noFace = "no_face"
    case noPerson = "no_person"
    case error
}

/// What facecrop knows about one photo: how to recognise the same file
/// again, what it found and the crops it wrote. Every photo, and every
/// problem found while walking the folders, yields exactly one record; a
/// failure is a value here, never an exception that stops the other photos.
///
/// This is the one per-photo value that flows from the photo stages through
/// the run to the outputs; only `Output/` turns it into JSON (manifest lines,
/// state and journal entries) and back.
package struct PhotoRecord: Sendable, Equatable {
    /// The input's label ("" with a single input), its index in command-line
    /// order, and the photo's path relative to that input.
    package var label: String
    package var input: Int
    package var source: String
    /// How the file is recognised again: its size, modification time (ns) and content hash.
    package var size: Int
    package var modified: Int
    package var sha256: String?
    package var status: PhotoStatus
    /// Upright size of the photo, when its header could be read.
    package var width: Int?
    package var height: Int?
    /// The whole photo's perceptual hash (status `.ok` only; `--dedup`).
    package var photoHash: PerceptualHash?
    /// The faces cropped (status `.ok` only), in manifest order.
    package var faces: [FaceRecord] = []
    /// Why the photo failed (status `.error`), as the manifest says it.
    package var failure: String?
    /// `--split`: the split its faces are in (photos whose content was read).
    package var split: String?
    /// When it was taken: EXIF DateTimeOriginal (with OffsetTimeOriginal),
    /// else its Google Takeout sidecar's photoTakenTime (manifest `taken`).
    package var taken: CaptureTime?
    /// The people its Google Takeout sidecar names, in the sidecar's order
    /// (manifest `names`; empty without a sidecar).
    package var names: [String] = []
    /// Face tags in its XMP, and how many of them the detector found
    /// (manifest `tagged_faces`, `tagged_faces_found`; 0 without tags).
    package var taggedFaces = 0
    package var taggedFacesFound = 0
    /// For the terminal: what could not be read of its XMP (not recorded).
    package var warnings: [String] = []
    /// `--people`: names its Takeout sidecar or face tags give that cannot
    /// name a person (name, warning), said once a run for each name.
    package var nameWarnings: [NameWarning] = []
    /// `--since` / `--until` leave it out: it is not recorded.
    package var outsideDates = false
    /// A video's duration and samples (nil for a photo, and a video that
    /// could not be read).
    package var video: VideoInfo?
    /// For the terminal: the error, when this record is a fresh failure.
    package var error: FaceCropError?
    /// `--no-prune`: the photo was not found by a run, which kept its record
    /// as it was (manifest `missing`); cleared when a run finds it again.
    package var missing = false

    /// The crop files this record says facecrop wrote, relative to `-o`.
    package var crops: [String] { faces.compactMap { $0.crop.isEmpty ? nil : $0.crop } }
    package var faceCount: Int { status == .ok ? faces.count { $0.status == .ok } : 0 }
    package var key: String { Photo.key(label: label, source: source) }

    /// A photo's record before anything is known but where it is.
    package init(_ photo: Photo, status: PhotoStatus, sha256: String? = nil) {
        self.init(
            label: photo.label, input: photo.inputIndex, source: photo.source, size: photo.size, modified: photo.modified,
            sha256: sha256, status: status)
    }

    /// A photo that failed.
    package init(_ photo: Photo, failed error: FaceCropError, sha256: String? = nil) {
        self.init(photo, status: .error, sha256: sha256)
        self.error = error
        failure = error.reason
    }

    /// A problem the walk found.
    package init(_ problem: FindProblem) {
        let error = FaceCropError.unreadable(FileName.display(problem.source), reason: problem.reason)
        self.init(
            label: problem.label, input: problem.inputIndex, source: problem.source, size: 0, modified: 0, sha256: nil,
            status: .error, failure: error.reason, error: error)
    }

    package init(label: String, input: Int, source: String, size: Int, modified: Int, sha256: String?,
        status: PhotoStatus, width: Int? = nil, height: Int? = nil, faces: [FaceRecord] = [], failure: String? = nil,
        error: FaceCropError? = nil) {
        (self.label, self.input, self.source, self.size, self.modified) = (label, input, source, size, modified)
        (self.sha256, self.status, self.width, self.height, self.faces) = (sha256, status, width, height, faces)
        (self.failure, self.error) = (failure, error)
    }
}

/// Counts for stats.json and the summary line.
public struct RunCounts: Sendable, Equatable {
    public var photos = 0
    public var ok = 0
    public var noFace = 0
    public var noPerson = 0
    public var errors = 0
    public var faces = 0
    /// Faces left out: rejected by a person, near-duplicates of another.
    public var rejected = 0
    public var duplicate = 0
    /// `--keep-person`: faces of people not kept.
    public var otherPerson = 0
    /// `--min-face-quality` / `--max-yaw`: faces left out.
    public var lowQuality = 0
    /// Every face's face_quality (kept or left out), for stats.json's
    /// quartiles, counted by its value in ten-thousandths (the score's own
    /// precision): exact, and at most 10,001 counts however many faces.
    public var qualityCounts: [Int: Int] = [:]
    public var qualityTotal = 0
    /// `--split`: crops in each split.
    public var splits: [String: Int] = [:]
    /// Photos whose record from an earlier run was kept.
    public var reused = 0
    /// `--people`: people found, and faces in one of them (nil: not grouped).
    public var people: Int?
    public var grouped = 0
    /// Face tags in the photos' XMP, and how many the detector found: its
    /// recall against faces people checked by hand (`TagStage`).
    public var taggedFaces = 0
    public var taggedFacesFound = 0
    /// Faces whose crop came from their tag alone (`found_by: tag`): the
    /// detector missed them, or found them under `--min-face`.
    public var foundByTag = 0
    /// `--no-prune`: photos not found now whose records were kept (`missing`).
    public var missing = 0
    /// Photos of the dataset this run could not read, kept as the last run
    /// wrote them (`ReadFailure`; their records count as they were).
    public var unreadable = 0

    /// `taggedFacesFound` of `taggedFaces` as a percentage, one decimal.
    package var taggedRecall: Double? {
        taggedFaces > 0 ? (Double(taggedFacesFound) / Double(taggedFaces) * 1000).rounded() / 10 : nil
    }

    package mutating func add(_ record: PhotoRecord, reused: Bool = false) {
        photos += 1
        faces += record.faceCount
        for face in record.faces where record.status == .ok {
            if let quality = face.quality {
                qualityCounts[Int((quality.score * 10_000).rounded()), default: 0] += 1
                qualityTotal += 1
            }
            if face.foundByTag && face.status == .ok { foundByTag += 1 }
            switch face.status {
            case .ok: if let split = face.split ?? record.split { splits[split, default: 0] += 1 }
            case .rejected: rejected += 1
            case .duplicate: duplicate += 1
            case .otherPerson: otherPerson += 1
            case .lowQuality: lowQuality += 1
            }
        }
        if reused { self.reused += 1 }
        if record.missing { missing += 1 }
        taggedFaces += record.taggedFaces
        taggedFacesFound += record.taggedFacesFound
        switch record.status {
        case .ok: ok += 1
        case .noFace: noFace += 1
        case .noPerson: noPerson += 1
        case .error: errors += 1
        }
    }

    package init(photos: Int = 0, ok: Int = 0, noFace: Int = 0, noPerson: Int = 0, errors: Int = 0, faces: Int = 0,
        rejected: Int = 0, duplicate: Int = 0, otherPerson: Int = 0, lowQuality: Int = 0,
        qualityCounts: [Int: Int] = [:], qualityTotal: Int = 0, splits: [String: Int] = [:], reused: Int = 0,
        people: Int? = nil, grouped: Int = 0, taggedFaces: Int = 0, taggedFacesFound: Int = 0) {
        (self.photos, self.ok, self.noFace, self.noPerson, self.errors) = (photos, ok, noFace, noPerson, errors)
        (self.faces, self.rejected, self.duplicate, self.otherPerson) = (faces, rejected, duplicate, otherPerson)
        (self.lowQuality, self.qualityCounts, self.qualityTotal) = (lowQuality, qualityCounts, qualityTotal)
        (self.splits, self.reused, self.people, self.grouped) = (splits, reused, people, grouped)
        (self.taggedFaces, self.taggedFacesFound) = (taggedFaces, taggedFacesFound)
    }
}
