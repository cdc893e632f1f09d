import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropOutput
import FaceCropVideo

/// `--clip PATH` / `--clip-per source`: after the manifest is written, every
/// crop becomes `--clip-hold` frames of a clip with an alpha mask around the
/// face, encoded by ffmpeg, checked by decoding a frame back, and renamed
/// into place. `clips.jsonl` in `-o` says which clip and frame each crop went to.
package enum ClipStep {
    package static let sidecarName = "clips"

    /// One crop as a clip frame: its file (relative to `-o`) and where the
    /// face is in the frame.
    package struct Frame: Sendable, Equatable {
        package var crop: String
        package var face: FrameBox

        package init(crop: String, face: FrameBox) {
            (self.crop, self.face) = (crop, face)
        }
    }

    /// Writes the clips of a finished run; returns the errors met. `suffix`
    /// is the shard's (`clips.shard-K-of-N.jsonl`).
    package static func run(_ run: FinishedRun, _ clips: ClipSettings, suffix: String) -> [String] {
        let sidecarPath = run.output + "/\(sidecarName)\(suffix).jsonl"
        let earlierClips = recordedClips(in: sidecarPath)
        let sidecar: JSONLinesWriter
        do {
            sidecar = try JSONLinesWriter(outputRoot: run.output, name: "\(sidecarName)\(suffix).jsonl", temporaries: run.temporaries)
        } catch {
            return ["cannot write '\(sidecarPath)': \(error.reason)"]
        }
        var failures: [String] = []
        var written: Set<String> = []
        if let path = clips.path {
            let recorded = recordedName(of: path, output: run.output)
            let allFrames = run.records.lazy.flatMap { Self.frames(of: $0, margin: clips.margin, inside: clips.inside, cropSize: clips.cropSize, side: clips.side) }
            do throws(ClipFailure) {
                try AtomicFileFolder.make(for: path)
                let count = try writeClip(allFrames, to: path, clips, run) { crop, frame in
                    try? sidecar.append(line(crop: crop, clip: recorded, frame: frame))
                }
                if count > 0 { written.insert(recorded) }
            } catch {
                // The earlier clips.jsonl still describes the earlier clip.
                return ["clip '\(path)': \(error.reason)"]
            }
        } else {
            failures = perSource(run, clips, sidecar: sidecar, written: &written)
        }
        if clips.prune {
            // Per-source clips of photos that are gone or have no face now.
            let gone = earlierClips.subtracting(written).filter(isPerSourceClip)
            _ = Prune.files(gone, in: run.output)
        }
        do throws(WriteFailure) {
            try sidecar.commit()
        } catch {
            failures.append("cannot write '\(sidecarPath)': \(error.reason)")
        }
        return failures
    }

    /// `--clip-per source`: a clip for each photo with crops.
    private static func perSource(
        _ run: FinishedRun, _ clips: ClipSettings, sidecar: JSONLinesWriter, written: inout Set<String>
    ) -> [String] {
        var failures: [String] = []
        for record in run.records where record.status == .ok && !record.crops.isEmpty {
            let name = PhotoFinder.join(record.label, record.source) + ".clip." + clips.codec.fileExtension
            let path = run.output + "/" + name
            var lines: [String] = []
            do throws(ClipFailure) {
                let count = try writeClip(frames(of: record, margin: clips.margin, inside: clips.inside, cropSize: clips.cropSize, side: clips.side), to: path, clips, run) {
                    crop, frame in lines.append(line(crop: crop, clip: name, frame: frame))
                }
                if count > 0 { written.insert(name) }
                try? sidecar.append(lines)
            } catch {
                failures.append("clip '\(path)': \(error.reason)")
                if run.stop.requested != nil { break }
            }
        }
        return failures
    }

    /// The crops of one record as frames.
    package static func frames(of record: PhotoRecord, margin: Double, inside: Bool = false, cropSize: Int, side: Int) -> [Frame] {
        guard record.status == .ok, let width = record.width, let height = record.height else { return [] }
        return record.faces.filter { $0.status == .ok }.map { face in
            Frame(
                crop: face.crop,
                face: face.aligned && face.transform != nil
                    ? ClipMask.faceBox(bbox: face.box, transform: face.transform!, cropSize: cropSize, side: side)
                    : ClipMask.faceBox(bbox: face.box, photoWidth: width, photoHeight: height, margin: margin, inside: inside, side: side))
        }
    }

    /// Encodes `frames` into `destination` through a temporary file beside
    /// it; calls `placed(crop, first frame)` for each crop. Returns the number
    /// of crops (0: nothing written). On failure no file is left behind.
    package static func writeClip<S: Sequence<Frame>>(
        _ frames: S, to destination: String, _ settings: ClipSettings, _ run: FinishedRun, placed: (String, Int) -> Void
    ) throws(ClipFailure) -> Int {
        let temporary = run.temporaries.make(beside: destination)
        let log = run.temporaries.make(for: destination + ".ffmpeg.log")
        defer {
            unlink(log)
            run.temporaries.forget(log)
            run.temporaries.forget(temporary)
        }
        do throws(ClipFailure) {
            let side = settings.side
            let writer = try ClipWriter(
                ffmpeg: settings.ffmpeg, codec: settings.codec, side: side, fps: settings.fps, file: temporary,
                stderrPath: log)
            var rgb: [UInt8] = []
            var alpha: [UInt8] = []
            var rgba = [UInt8](repeating: 0, count: side * side * 4)
            var firstAlpha: [UInt8]?
            var crops = 0
            for frame in frames {
                if run.stop.requested != nil {
                    writer.abort()
                    throw ClipFailure(reason: "interrupted")
                }
                do {
                    try Vips.loadRGB(run.output + "/" + frame.crop, side: side, into: &rgb)
                } catch {
                    writer.abort()
                    throw ClipFailure(reason: "crop '\(frame.crop)': \(error.reason)")
                }
                ClipMask.render(settings.mask, face: frame.face, side: side, into: &alpha)
                for pixel in 0..<side * side {
                    rgba[pixel * 4] = rgb[pixel * 3]
                    rgba[pixel * 4 + 1] = rgb[pixel * 3 + 1]
                    rgba[pixel * 4 + 2] = rgb[pixel * 3 + 2]
                    rgba[pixel * 4 + 3] = alpha[pixel]
                }
                if firstAlpha == nil { firstAlpha = alpha }
                placed(frame.crop, writer.frames)
                for _ in 0..<settings.hold { try writer.write(rgba) }
                crops += 1
            }
            guard let firstAlpha else {
                writer.abort()
                unlink(temporary)
                return 0
            }
            try writer.finish()
            try verify(temporary, expected: firstAlpha, settings, log: log)
            guard rename(temporary, destination) == 0 else {
                throw ClipFailure(reason: systemError(errno))
            }
            return crops
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Decodes the clip's first frame back to RGBA with the same ffmpeg and
    /// checks that the alpha channel survived: transparent where the mask
    /// is 0, opaque where it is 255. (An encoder can drop alpha and still
    /// exit 0, as libx265 3.5 does.)
    package static func verify(_ file: String, expected: [UInt8], _ settings: ClipSettings, log: String) throws(ClipFailure) {
        let side = settings.side
        let arguments =
            ["-hide_banner", "-nostdin", "-loglevel", "error"] + settings.codec.decoderArguments
            + ["-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", "pipe:1"]
        let result: FFmpegRun
        do {
            result = try settings.ffmpeg.run(arguments, stderrPath: log)
        } catch {
            throw ClipFailure(reason: "cannot run ffmpeg to check the clip: \(error.reason)")
        }
        guard result.status == 0, result.stdout.count == side * side * 4 else {
            throw ClipFailure(
                reason: "ffmpeg could not decode the clip back to check its alpha channel (exit status \(result.status), "
                    + "\(result.stdout.count) bytes)" + FFmpeg.lastLines(result.stderr))
        }
        let check = AlphaCheck(decoded: result.stdout, expected: expected)
        if let transparent = check.meanWhereTransparent, transparent > 31 {
            throw ClipFailure(
                reason: "the clip lost its alpha channel: decoded alpha is \(Int(transparent.rounded())) on average "
                    + "where 0 was written (\(settings.codec.encoder) in this ffmpeg dropped it)")
        }
        if let opaque = check.meanWhereOpaque, opaque < 224 {
            throw ClipFailure(
                reason: "the clip's alpha channel is wrong: decoded alpha is \(Int(opaque.rounded())) on average "
                    + "where 255 was written")
        }
    }

    /// Mean decoded alpha over the pixels written fully transparent and over
    /// those written fully opaque (nil where there were none).
    package struct AlphaCheck {
        package var meanWhereTransparent: Double?
        package var meanWhereOpaque: Double?

        package init(decoded rgba: [UInt8], expected: [UInt8]) {
            var sums = (0, 0)
            var counts = (0, 0)
            for (pixel, written) in expected.enumerated() {
                let alpha = Int(rgba[pixel * 4 + 3])
                if written == 0 {
                    sums.0 += alpha
                    counts.0 += 1
                } else if written == 255 {
                    sums.1 += alpha
                    counts.1 += 1
                }
            }
            meanWhereTransparent = counts.0 > 0 ? Double(sums.0) / Double(counts.0) : nil
            meanWhereOpaque = counts.1 > 0 ? Double(sums.1) / Double(counts.1) : nil
        }
    }

    package static func line(crop: String, clip: String, frame: Int) -> String {
        JSON.object([("crop", .string(crop)), ("clip", .string(clip)), ("frame", .int(frame))]).serialized()
    }

    /// How clips.jsonl names a clip: relative to `-o` when it lies inside
    /// it, else its absolute path.
    package static func recordedName(of path: String, output: String) -> String {
        let clip = absolute(path)
        let root = absolute(output)
        if clip.hasPrefix(root + "/") { return String(clip.dropFirst(root.count + 1)) }
        return clip
    }

    private static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (full as NSString).standardizingPath
    }

    /// The clips an earlier clips.jsonl lists.
    package static func recordedClips(in sidecar: String) -> Set<String> {
        guard let text = try? String(contentsOfFile: sidecar, encoding: .utf8) else { return [] }
        var clips: Set<String> = []
        for line in text.split(separator: "\n") {
            if let object = JSONReading.object(Data(line.utf8)),
                let clip = object["clip"] as? String
            {
                clips.insert(clip)
            }
        }
        return clips
    }

    /// A clip `--clip-per source` wrote inside `-o` (the only kind pruned).
    package static func isPerSourceClip(_ name: String) -> Bool {
        !name.hasPrefix("/") && !name.split(separator: "/").contains("..")
            && ClipCodec.allCases.contains { name.hasSuffix(".clip." + $0.fileExtension) }
    }
}

/// Creates the folder a file goes into.
package enum AtomicFileFolder {
    package static func make(for path: String) throws(ClipFailure) {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        do {
            try AtomicFile.makeFolder(folder)
        } catch {
            throw ClipFailure(reason: "cannot create its folder: \(error.reason)")
        }
    }
}

/// The clip options a run was given.
package struct ClipSettings: Sendable {
    package var ffmpeg: FFmpeg
    /// `--clip PATH` (one clip of the dataset); nil: `--clip-per source`.
    package var path: String?
    package var codec: ClipCodec
    package var side: Int
    package var fps: Int
    package var hold: Int
    package var mask: ClipMaskShape
    /// `--margin`, to place the face in each crop (a turned crop's face is
    /// placed by its transform, for crops of `--size` pixels).
    package var margin: Double
    /// `--pad inside`: the crop squares were kept inside the photo.
    package var inside: Bool
    package var cropSize: Int
    /// `--prune`: remove per-source clips no photo makes any more.
    package var prune: Bool

    package init(_ options: Options, ffmpeg: FFmpeg) {
        self.ffmpeg = ffmpeg
        path = options.clip
        codec = options.effectiveClipCodec
        side = options.effectiveClipSize
        fps = options.clipFPS
        hold = options.clipHold
        mask = options.clipMask
        margin = options.margin
        inside = options.pad.keepsInside
        cropSize = options.size
        prune = options.prune
    }
}
