import Foundation
import FaceCropCore
import FaceCropVideo

/// Why a clip could not be written.
package struct ClipFailure: Error, Sendable {
    package var reason: String
}

/// Streams RGBA frames into an ffmpeg subprocess that encodes them into one
/// clip file. Frames go through a pipe as they come, so memory does not grow
/// with the clip's length. Not thread-safe: owned by the one task writing
/// the clip.
package final class ClipWriter {
    package let side: Int
    private let process: ToolProcess
    private var finished = false
    package private(set) var frames = 0

    /// Starts ffmpeg writing `codec` into `file` (a temporary name: the
    /// container is given with `-f`, not taken from the name).
    package init(ffmpeg: FFmpeg, codec: ClipCodec, side: Int, fps: Int, file: String, stderrPath: String) throws(ClipFailure) {
        self.side = side
        let arguments = Self.arguments(codec: codec, side: side, fps: fps, file: file)
        do {
            process = try ToolProcess(ffmpeg, arguments, input: .pipe, output: .none, errors: .file(stderrPath))
        } catch {
            guard case .notStarted(let why) = error else { throw ClipFailure(reason: error.reason) }
            throw ClipFailure(reason: "cannot run ffmpeg '\(ffmpeg.path)': \(why)")
        }
    }

    deinit {
        if !finished { abort() }
    }

    /// ffmpeg's command line: raw RGBA frames on stdin, one clip out.
    package static func arguments(codec: ClipCodec, side: Int, fps: Int, file: String) -> [String] {
        [
            "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
            "-f", "rawvideo", "-pix_fmt", "rgba", "-video_size", "\(side)x\(side)", "-framerate", "\(fps)",
            "-i", "pipe:0", "-an",
            "-c:v", codec.encoder, "-pix_fmt", codec.pixelFormat,
        ] + codec.encoderArguments + ["-f", codec.container, file]
    }

    /// Writes one frame: `side` x `side` RGBA pixels, rows packed.
    package func write(_ rgba: [UInt8]) throws(ClipFailure) {
        precondition(rgba.count == side * side * 4)
        // The pipe is there: asked for above.
        let fd = process.input!.fileDescriptor
        let failure = rgba.withUnsafeBytes { writeFully(fd, $0) }
        if failure != 0 {
            // EPIPE: ffmpeg stopped reading. Its own message says why.
            let status = waitForExit()
            throw ClipFailure(
                reason: "ffmpeg stopped reading frames after \(frames) (\(systemError(failure))), exit status \(status)"
                    + FFmpeg.lastLines(stderr))
        }
        frames += 1
    }

    /// Ends the input and waits for ffmpeg; fails unless it exited 0.
    package func finish() throws(ClipFailure) {
        let status = waitForExit()
        guard status == 0 else {
            throw ClipFailure(reason: "ffmpeg failed with exit status \(status)" + FFmpeg.lastLines(stderr))
        }
    }

    /// Stops ffmpeg (it may have written part of the file: the caller removes it).
    package func abort() {
        if finished { return }
        process.signal(SIGTERM)
        _ = waitForExit()
    }

    /// Ends the input and waits for ffmpeg: its exit status.
    private func waitForExit() -> Int32 {
        finished = true
        return process.wait()
    }

    package var stderr: String { process.loggedErrors }
}
