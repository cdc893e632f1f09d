/// Every failure facecrop itself reports for one video, made here and only
/// here: the reader, the probe and the video stage throw these, and
/// docs/faq.md lists `listed` (a test checks the FAQ against it). `details`
/// is ffmpeg's or ffprobe's own end of stderr (`FFmpeg.lastLines`: ": ..."
/// or ""), cleaned by `ExternalMessage` like every reason.
import FaceCropCore
import FaceCropInputs

package enum VideoMessage {
    /// Setup found no ffmpeg: each video's reason.
    package static func toolsMissing(_ why: String) -> String {
        "no ffmpeg to read it with: \(why) (install ffmpeg, or pass --ffmpeg PATH)"
    }

    package static func noTools(_ source: String, problem: String?) -> FaceCropError {
        .videoFailed(source, reason: problem ?? "no ffmpeg to read it with")
    }

    package static func empty(_ source: String) -> FaceCropError { .emptyVideo(source) }

    /// Its bytes are a photo's (`FileSniff`).
    package static func misnamed(_ source: String, kind: String, fileExtension: String) -> FaceCropError {
        .videoFailed(source, reason: FileSniff.text(kind: kind, fileExtension: fileExtension, video: true))
    }

    package static func cannotRun(_ source: String, tool: String, why: String) -> FaceCropError {
        .videoFailed(source, reason: "cannot run '\(tool)': \(why)")
    }

    package static func unreadable(_ source: String, details: String) -> FaceCropError {
        .videoFailed(source, reason: "ffprobe cannot read it" + details)
    }

    package static func notJSON(_ source: String) -> FaceCropError { .videoFailed(source, reason: "ffprobe's answer is not JSON") }

    package static func noStreams(_ source: String) -> FaceCropError { .videoFailed(source, reason: "no streams") }

    /// `kinds`: the streams it has ("audio", "audio, subtitle").
    package static func noVideoStream(_ source: String, kinds: String) -> FaceCropError {
        .videoFailed(source, reason: "no video stream (only \(kinds))")
    }

    package static func noFrameSize(_ source: String) -> FaceCropError {
        .videoFailed(source, reason: "the video stream has no frame size")
    }

    package static func noTimeBase(_ source: String) -> FaceCropError {
        .videoFailed(source, reason: "the video stream has no time base")
    }

    package static func packetsUnreadable(_ source: String, details: String) -> FaceCropError {
        .videoFailed(source, reason: "ffprobe cannot read its packets" + details)
    }

    package static func tooLong(_ source: String, seconds: String, limit: String) -> FaceCropError {
        .tooLarge(source, reason: "\(seconds) s long, over the limit of \(limit) s (--max-video-seconds)")
    }

    /// Found while reading, for a video whose container gave no duration.
    package static func longerThanLimit(_ source: String, limit: String) -> FaceCropError {
        .tooLarge(source, reason: "longer than the limit of \(limit) s (--max-video-seconds)")
    }

    package static func tooManyPixels(_ source: String, width: String, height: String, limit: String) -> FaceCropError {
        .tooLarge(source, reason: "\(width) x \(height) pixels is over the limit of \(limit) pixels (--max-pixels)")
    }

    package static func readFailed(_ source: String, why: String) -> FaceCropError {
        .videoFailed(source, reason: "reading ffmpeg's frames: \(why)")
    }

    package static func frameCutShort(_ source: String, details: String) -> FaceCropError {
        .videoFailed(source, reason: "a frame was cut short" + details)
    }

    package static func shortFrame(_ source: String) -> FaceCropError { .shortVideoFrame(source) }

    package static func noTime(_ source: String, frame: String, details: String) -> FaceCropError {
        .videoFailed(source, reason: "ffmpeg gave no time for frame \(frame)" + details)
    }

    package static func ffmpegStopped(_ source: String, status: String, details: String) -> FaceCropError {
        .videoFailed(source, reason: "ffmpeg stopped with status \(status)" + details)
    }

    package static func interrupted(_ source: String) -> FaceCropError {
        .videoFailed(source, reason: "stopped before its end; the next run reads it again")
    }

    package static func secondReadMissed(_ source: String, seconds: String) -> FaceCropError {
        .videoFailed(source, reason: "ffmpeg did not give the frame at \(seconds) s a second time")
    }

    /// Every message above as docs/faq.md shows it: `…` for what varies.
    package static var listed: [String] {
        let any = "…"
        let details = ": …"
        let errors: [FaceCropError] = [
            noTools(any, problem: toolsMissing(any)), empty(any), misnamed(any, kind: any, fileExtension: any),
            cannotRun(any, tool: any, why: any), unreadable(any, details: details), notJSON(any), noStreams(any),
            noVideoStream(any, kinds: any), noFrameSize(any), noTimeBase(any), packetsUnreadable(any, details: details),
            tooLong(any, seconds: any, limit: any), longerThanLimit(any, limit: any),
            tooManyPixels(any, width: any, height: any, limit: any), readFailed(any, why: any),
            frameCutShort(any, details: details), shortFrame(any), noTime(any, frame: any, details: details),
            ffmpegStopped(any, status: any, details: details), interrupted(any), secondReadMissed(any, seconds: any),
        ]
        return errors.map(\.reason)
    }
}
