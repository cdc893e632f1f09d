import Foundation

/// Every failure facecrop reports. Per-photo cases carry the photo's source
/// path and the reason; `reason` alone goes into the manifest, `description`
/// (path and reason) to the terminal.
public enum FaceCropError: Error, Sendable, Equatable, CustomStringConvertible {
    // Whole-run failures.
    case usage(String)
    case inputMissing(String, reason: String)
    case outputUnusable(String, reason: String)
    /// Another facecrop run holds the output's lock (its pid, when known).
    case outputLocked(String, holder: Int?)
    case cascadeUnavailable(String, reason: String)
    case ffmpegUnavailable(String, reason: String)
    case modelUnavailable(String, reason: String)
    /// The network runtime (ONNX Runtime's library) is missing or not the
    /// pinned release: its path and the reason with the places looked.
    case runtimeUnavailable(String, reason: String)
    /// `--people`: dlib's models are missing or do not load.
    case peopleModelsUnavailable(String)
    case libraryFailed(String)
    /// The removal guard stopped the run before it changed anything (`RemovalGuard`): the whole message.
    case removalsRefused(String)
    // Per-photo failures: the run goes on.
    case unreadable(String, reason: String)
    case notAnImage(String, reason: String)
    case decodeFailed(String, reason: String)
    case tooLarge(String, reason: String)
    /// A video ffmpeg could not read to its end (or not at all).
    case videoFailed(String, reason: String)
    case detectionFailed(String, reason: String)
    case encodeFailed(String, reason: String)
    case writeFailed(String, reason: String)
    /// The output is full: the run stops (the finished photos are kept).
    case outputFull(String, reason: String)

    /// The reason without the path, as the manifest's `error` field: what
    /// a library said in it made the same on every run (`ExternalMessage`).
    public var reason: String {
        switch self {
        case .usage, .outputLocked: rawReason
        case .unreadable(let path, _), .notAnImage(let path, _), .decodeFailed(let path, _), .tooLarge(let path, _),
            .videoFailed(let path, _), .detectionFailed(let path, _), .encodeFailed(let path, _), .writeFailed(let path, _),
            .outputFull(let path, _):
            ExternalMessage.clean(rawReason, file: path)
        default: ExternalMessage.clean(rawReason)
        }
    }

    private var rawReason: String {
        switch self {
        case .usage(let text): text
        case .libraryFailed(let text): text
        case .removalsRefused(let text): text
        case .inputMissing(_, let reason): reason
        case .outputUnusable(_, let reason): reason
        case .outputLocked(let path, let holder): Self.lockHolderText(path, holder: holder)
        case .cascadeUnavailable(_, let reason): reason
        case .ffmpegUnavailable(_, let reason): reason
        case .modelUnavailable(_, let reason): reason
        case .runtimeUnavailable(_, let reason): reason
        case .peopleModelsUnavailable(let reason): reason
        case .unreadable(_, let reason): "cannot read file: \(reason)"
        case .notAnImage(_, let reason): "not a readable image: \(reason)"
        case .decodeFailed(_, let reason): "could not decode: \(reason)"
        case .tooLarge(_, let reason): "refused: \(reason)"
        case .videoFailed(_, let reason): "could not read video: \(reason)"
        case .detectionFailed(_, let reason): "face detection failed: \(reason)"
        case .encodeFailed(_, let reason): "could not encode: \(reason)"
        case .writeFailed(_, let reason): "could not write crop: \(reason)"
        case .outputFull(_, let reason): "output is full: \(reason)"
        }
    }

    public var description: String {
        switch self {
        case .usage(let text): return text
        case .libraryFailed(let text): return text
        case .removalsRefused(let text): return text
        case .inputMissing(let path, _):
            return "cannot read input '\(path)': \(self.reason)"
        case .outputUnusable(let path, _):
            return "cannot use output folder '\(path)': \(self.reason)"
        case .outputLocked(let path, let holder):
            return Self.lockHolderText(path, holder: holder)
                + "; wait for it to finish, or pass --wait-lock to queue behind it"
        case .cascadeUnavailable(let path, _):
            return "cannot load cascade '\(path)': \(self.reason) (install opencv-data, or pass --cascade PATH)"
        case .ffmpegUnavailable(let path, _):
            return "cannot use ffmpeg '\(path)' for clips: \(self.reason) (install ffmpeg, or pass --ffmpeg PATH or set FACECROP_FFMPEG)"
        case .runtimeUnavailable:
            return "cannot load ONNX Runtime, which --detector yunet, --detector centerface and --people run on: \(self.reason)"
        case .peopleModelsUnavailable:
            return "cannot group faces into people: \(self.reason)"
        case .modelUnavailable(let path, _):
            if path.isEmpty { return "cannot load the face detection model: \(self.reason)" }
            return "cannot load model '\(path)': \(self.reason) (--detector yunet and --detector centerface need --model FILE.onnx, "
                + "a YuNet or CenterFace face detection model)"
        case .unreadable(let path, _), .notAnImage(let path, _), .decodeFailed(let path, _),
            .tooLarge(let path, _), .videoFailed(let path, _), .detectionFailed(let path, _), .encodeFailed(let path, _), .writeFailed(let path, _),
            .outputFull(let path, _):
            return "'\(path)': \(reason)"
        }
    }

    /// Who holds a dataset's lock, as the terminal is told.
    package static func lockHolderText(_ path: String, holder: Int?) -> String {
        let who = holder.map { "another facecrop run (pid \($0))" } ?? "another facecrop run"
        return "'\(path)' is being written by \(who)"
    }

    /// The exit status for a failure that stops the run (see `ExitStatus.table`).
    public var exitStatus: Int32 {
        switch self {
        case .usage: ExitStatus.usage
        case .inputMissing: ExitStatus.noInput
        case .outputUnusable, .outputLocked: ExitStatus.cannotCreate
        case .removalsRefused: ExitStatus.removalsRefused
        case .cascadeUnavailable, .ffmpegUnavailable, .modelUnavailable, .runtimeUnavailable, .peopleModelsUnavailable, .libraryFailed:
            ExitStatus.unavailable
        default: ExitStatus.failure
        }
    }
}

package func systemError(_ code: Int32) -> String {
    String(cString: strerror(code))
}

extension FaceCropError {
    /// A video file of 0 bytes.
    package static func emptyVideo(_ source: String) -> FaceCropError { .videoFailed(source, reason: "empty file (0 bytes)") }

    /// A video frame with fewer bytes than its size needs (ffmpeg cut it short).
    package static func shortVideoFrame(_ source: String) -> FaceCropError { .videoFailed(source, reason: "short video frame") }
}
