import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropVideo

extension PickCutter {
    /// A video's crop cut again at pick's size: ffmpeg seeks to the
    /// sample's time (`time`, to the millisecond: half a millisecond before
    /// it, so the frame at that time is the first decoded), writes that one
    /// frame, upright and full size (HDR tone-mapped and scaled as the run's
    /// frame reader does), as a PNG beside pick's output, and the
    /// crop is cut from it as from a photo. The video must be where
    /// `--photos` says with the manifest's SHA-256.
    package func recutVideo(_ candidate: PickCandidate) throws(PickMiss) -> [UInt8] {
        guard let time = candidate.time else { throw PickMiss(reason: "the dataset has no time for the frame") }
        let video = try source(candidate)
        let tools: VideoTools
        let probe: VideoProbe
        do throws(FaceCropError) {
            tools = try VideoTools.locate(given: nil, environment: ProcessInfo.processInfo.environment)
            probe = try VideoProbe.probe(tools, path: video.processPath, source: candidate.photoKey)
        } catch { throw PickMiss(reason: "ffmpeg could not read it (\(error.reason))") }
        let frame = temporaries.make(beside: scratch + "/frame.png")
        defer {
            unlink(frame)
            temporaries.forget(frame)
        }
        let seek = PickJSON.decimal(max(0, time - 0.0005), places: 4)
        let arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-ss", seek, "-i", video.processPath,
            "-map", "0:\(probe.stream)", "-vf", (probe.toneMap + ["scale=\(probe.width):\(probe.height):flags=bicubic"]).joined(separator: ","),
            "-frames:v", "1", "-f", "image2", "-c:v", "png", "-pix_fmt", "rgb24", frame,
        ]
        let run: FFmpegRun
        do throws(LaunchFailure) {
            run = try ToolProcess(tools.ffmpeg, arguments, output: .none, errors: .pipe).collect()
        } catch { throw PickMiss(reason: "ffmpeg could not be started (\(error.reason))") }
        let said = run.stderr.split(separator: "\n").first.map { ": " + $0 } ?? ""
        guard run.status == 0 else { throw PickMiss(reason: "ffmpeg could not take the frame at \(seek) s\(said)") }
        let label = candidate.photoKey + " at " + seek + " s"
        do throws(FaceCropError) {
            let bytes = try PhotoBytes(path: frame, source: label)
            return try cut(candidate, from: bytes, source: label)
        } catch { throw PickMiss(reason: "no frame at \(seek) s (\(error.reason))") }
    }
}
