import Foundation
import FaceCropCore

/// One face a person rejected: the photo's content (its SHA-256, as in the
/// manifest) and the face's box in upright, full-resolution pixels of it;
/// for a video, also the sample's time: the whole track of the face there is
/// rejected (`RejectionsFile.rejected(_:)`).
///
/// Neither depends on where the photo lies, on `--jobs`, on shards or on the
/// order photos are found; the box is matched loosely (`Rejection.minIoU`),
/// so small changes of settings that move a box by a few pixels keep it.
public struct Rejection: Sendable, Hashable, CustomStringConvertible {
    public var sha256: String
    public var box: PixelRect
    /// A video's: the rejected crop's `time` in seconds (nil: a photo's, or
    /// an entry older than track rejection, which rejects the box at any time).
    public var time: Double?

    /// A face is rejected by an entry for the same photo whose box overlaps
    /// its own by at least this intersection over union. Two faces of one
    /// photo never overlap that much (detectors merge such boxes), and a box
    /// that moved or grew by a tenth of its side still does.
    public static let minIoU = 0.5
    /// A video entry whose own sample is not among a run's (another
    /// `--video-fps`) names the face, overlapping its box by `minIoU`, in
    /// the samples at most this many seconds from its time.
    public static let videoWindow = 1.0

    public init(sha256: String, box: PixelRect, time: Double? = nil) {
        self.sha256 = sha256.lowercased()
        self.box = box
        self.time = time
    }

    /// The entry for a face of a record: a video's face with its time.
    package init(sha256: String, face: FaceRecord) {
        self.init(sha256: sha256, box: face.box, time: face.video?.time)
    }

    /// Whether this entry names the face `box` of the photo hashed `sha256`.
    public func matches(sha256: String, box other: PixelRect) -> Bool {
        self.sha256 == sha256 && box.iou(other) >= Self.minIoU
    }

    /// The entry as written in the file (without its comment).
    public var description: String {
        "\(sha256) \(box.x),\(box.y),\(box.width),\(box.height)" + (time.map { " t=\($0)" } ?? "")
    }

    /// The comment facecrop writes after an entry: the photo (as the
    /// manifest's `input/source`) and the face's number; for a video's
    /// face, also its time and track (`clip.mp4 12.345 s track 2 face 0`).
    package static func note(photo: String, face: Int, video: VideoFace? = nil) -> String {
        guard let video else { return "\(photo) face \(face)" }
        return "\(photo) \(video.time) s track \(video.track) face \(face)"
    }

    /// The note of a face of a record.
    package static func note(photo: String, face: FaceRecord) -> String { note(photo: photo, face: face.index, video: face.video) }

    /// The entry's line as facecrop writes it, with `note` as its comment
    /// (on one line) when there is one.
    package func line(note: String) -> String {
        let comment = note.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        return comment.isEmpty ? description : "\(description)  # \(comment)"
    }
}

/// The rejections file: plain text meant for version control beside the
/// photos, one entry a line:
///
///     # rejected by hand
///     3f2a…e9 1204,830,412,412  # trip/IMG_1.jpg face 0
///
/// An entry is the photo's SHA-256 (64 hex digits) and the face's box
/// `x,y,w,h`, for a video's face then `t=<seconds>`, the sample's time
/// (files without it, older ones, still read); `#` starts a comment, blank
/// lines are allowed. The lines are
/// kept verbatim: adding entries appends lines and never rewrites, reorders
/// or drops one a person wrote.
public struct RejectionsFile: CurationFile, Sendable, Equatable {
    public static let defaultName = "rejections.txt"

    /// Every line, as read (without line ends).
    public private(set) var lines: [String]
    public private(set) var entries: [Rejection]
    private var byPhoto: [String: [PixelRect]]
    /// Every entry of each photo or video, with its time.
    private var timed: [String: [Rejection]]

    public init() {
        lines = []
        entries = []
        byPhoto = [:]
        timed = [:]
    }

    /// Reads the file's text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(RejectionsError) -> RejectionsFile {
        var result = RejectionsFile()
        for (number, line) in lines(of: text).enumerated() {
            if let entry = try entry(in: line, file: file, number: number + 1) { result.insert(entry) }
            result.lines.append(line)
        }
        return result
    }

    /// The entry on one line, nil for a blank or comment line.
    package static func entry(in line: String, file: String, number: Int) throws(RejectionsError) -> Rejection? {
        let content = Self.content(of: line)
        let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if words.isEmpty { return nil }
        func fail(_ reason: String) -> RejectionsError { RejectionsError(file: file, line: number, reason: reason) }
        guard words.count == 2 || (words.count == 3 && words[2].hasPrefix("t=")) else {
            throw fail("expected '<sha256> <x>,<y>,<w>,<h> [t=<seconds>]', got '\(content.trimmingCharacters(in: .whitespaces))'")
        }
        let hash = String(words[0])
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ isHexDigit($0) }) else {
            throw fail("'\(hash)' is not a SHA-256 (64 hex digits)")
        }
        let numbers = words[1].split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let w = numbers[2], let h = numbers[3],
            x >= 0, y >= 0, w > 0, h > 0
        else {
            throw fail("'\(words[1])' is not a face box x,y,w,h (whole pixels, w and h above 0)")
        }
        var time: Double?
        if words.count == 3 {
            guard words[2].hasPrefix("t="), let seconds = Double(words[2].dropFirst(2)), seconds.isFinite, seconds >= 0 else {
                throw fail("'\(words[2])' is not a video sample's time t=<seconds>")
            }
            time = seconds
        }
        return Rejection(sha256: hash, box: PixelRect(x: x, y: y, width: w, height: h), time: time)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102) || (byte >= 65 && byte <= 70)
    }

    private mutating func insert(_ entry: Rejection) {
        entries.append(entry)
        byPhoto[entry.sha256, default: []].append(entry.box)
        timed[entry.sha256, default: []].append(entry)
    }

    /// Whether an entry names the face `box` of the photo hashed `sha256`.
    public func rejects(sha256: String, box: PixelRect) -> Bool {
        guard let boxes = byPhoto[sha256.lowercased()] else { return false }
        return boxes.contains { $0.iou(box) >= Rejection.minIoU }
    }

    /// Which of a record's faces are rejected: a photo's by their boxes
    /// (`rejects`); a video's by track: every face of a track one entry
    /// names is. An entry with a time names the faces its box overlaps
    /// (`Rejection.minIoU`) in the sample at that time, or, when no sample
    /// of the record is at that time (another `--video-fps`), in the
    /// samples within `Rejection.videoWindow` of it; one without a time
    /// (older files) names the faces its box overlaps in any sample.
    package func rejected(_ record: PhotoRecord) -> [Bool] {
        guard let sha256 = record.sha256 else { return record.faces.map { _ in false } }
        guard record.video != nil || record.faces.contains(where: { $0.video != nil }) else {
            return record.faces.map { rejects(sha256: sha256, box: $0.box) }
        }
        return rejectedTracks(record.faces, sha256: sha256)
    }

    /// `rejected(_:)` for the faces of one video.
    package func rejectedTracks(_ faces: [FaceRecord], sha256: String) -> [Bool] {
        guard let entries = timed[sha256.lowercased()] else { return faces.map { _ in false } }
        var tracks = Set<Int>()
        for entry in entries {
            let overlapping = faces.filter { $0.video != nil && $0.box.iou(entry.box) >= Rejection.minIoU }
            guard let time = entry.time else {
                tracks.formUnion(overlapping.compactMap { $0.video?.track })
                continue
            }
            let sameSample = faces.contains { abs(($0.video?.time ?? -1) - time) < 5e-7 }
            let named = overlapping.filter { face in
                let gap = abs((face.video?.time ?? -.infinity) - time)
                return sameSample ? gap < 5e-7 : gap <= Rejection.videoWindow + 5e-7
            }
            tracks.formUnion(named.compactMap { $0.video?.track })
        }
        return faces.map { face in face.video.map { tracks.contains($0.track) } ?? false }
    }

    /// Appends an entry for each face not already rejected, each line with
    /// `note` (e.g. the source and face) as its comment. Returns how many
    /// were added.
    @discardableResult
    public mutating func add(_ faces: [(Rejection, note: String)]) -> Int {
        var added = 0
        for (rejection, note) in faces where !contains(rejection) {
            lines.append(rejection.line(note: note))
            insert(rejection)
            added += 1
        }
        return added
    }

    /// Whether an entry already says what `rejection` says: for a photo's
    /// face, an entry whose box overlaps it; for a video's, an entry of the
    /// same sample (or without a time) whose box overlaps it.
    package func contains(_ rejection: Rejection) -> Bool {
        guard let time = rejection.time else { return rejects(sha256: rejection.sha256, box: rejection.box) }
        return (timed[rejection.sha256] ?? []).contains { entry in
            entry.box.iou(rejection.box) >= Rejection.minIoU && (entry.time.map { abs($0 - time) < 5e-7 } ?? true)
        }
    }

    /// The file's text: every line, each ended by a newline.
    public var text: String { lines.map { $0 + "\n" }.joined() }
}
