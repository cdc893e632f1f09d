import Foundation
import FaceCropCore
import FaceCropInputs

/// When a video was filmed, from its container's metadata (read by the
/// ffprobe call that reads its streams): the manifest's `taken`, as a
/// photo's EXIF gives it, so `--since` / `--until` select videos too.
package enum VideoTaken {
    /// QuickTime's `com.apple.quicktime.creationdate` first (phones write
    /// it: the clock where it was filmed, with its offset), else the
    /// file's `creation_time`, else the video stream's (both UTC: `Z`).
    /// A value that is not a time is passed over; nil when none is one.
    package static func capture(format: [String: Any]?, stream: [String: Any]?) -> CaptureTime? {
        let candidates = [
            format?["com.apple.quicktime.creationdate"], format?["creation_time"], stream?["creation_time"],
        ]
        for case let text as String in candidates {
            if let time = CaptureTime(iso8601: text.trimmingCharacters(in: .whitespaces)) { return time }
        }
        return nil
    }
}

extension VideoStage {
    /// The record of a video `--since` / `--until` leave out by its capture
    /// time (its container's, else its Takeout sidecar's), before a frame
    /// is decoded; nil when it is kept.
    package static func outsideDates(_ photo: Photo, probe: VideoProbe, sha256: String, dates: DateRange) -> PhotoRecord? {
        guard !dates.isEmpty else { return nil }
        let taken = probe.taken ?? photo.sidecar.flatMap(Libraries.Sidecar.init(path:))?.taken
        guard !dates.admits(taken) else { return nil }
        var record = PhotoRecord(photo, status: .noFace, sha256: sha256)
        record.taken = probe.taken
        return record
    }
}
