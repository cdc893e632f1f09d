import Foundation
import FaceCropCore

/// ffmpeg and ffprobe for reading videos, found once per run.
package struct VideoTools: Sendable, Equatable {
    package var ffmpeg: FFmpeg
    /// ffprobe from ffmpeg's folder (Debian's ffmpeg package has both).
    package var ffprobe: FFmpeg

    package static func locate(given: String?, environment: [String: String]) throws(FaceCropError) -> VideoTools {
        let ffmpeg = try FFmpeg.locate(given: given, environment: environment)
        let folder = (ffmpeg.path as NSString).deletingLastPathComponent
        let probe = (folder as NSString).appendingPathComponent("ffprobe")
        guard access(probe, X_OK) == 0 else {
            throw .ffmpegUnavailable(probe, reason: "no ffprobe beside '\(ffmpeg.path)'")
        }
        return VideoTools(ffmpeg: ffmpeg, ffprobe: FFmpeg(path: probe))
    }

    /// Runs ffprobe to completion, its stdout and stderr read apart.
    package func probe(_ arguments: [String], source: String) throws(FaceCropError) -> FFmpegRun {
        do {
            return try ToolProcess(ffprobe, arguments, errors: .pipe).collect()
        } catch {
            throw VideoMessage.cannotRun(source, tool: ffprobe.path, why: error.reason)
        }
    }
}

/// What ffprobe says of a video's first video stream (cover art skipped).
package struct VideoProbe: Equatable {
    /// The stream's index in the file, for `-map 0:N`.
    package var stream: Int
    /// Stored size, and the display matrix's rotation in degrees.
    package var storedWidth: Int
    package var storedHeight: Int
    package var rotation: Int
    /// The stream's time base: a pts times this is seconds.
    package var timeBase: (num: Int, den: Int)
    /// Seconds (the stream's duration, else the file's); nil when unknown.
    package var duration: Double?
    /// `color_transfer`: "smpte2084" (PQ) and "arib-std-b67" (HLG) are HDR.
    package var transfer: String
    package var pixelFormat: String
    /// When it was filmed (`VideoTaken.capture`): the manifest's `taken`.
    package var taken: CaptureTime? = nil

    package static func == (a: VideoProbe, b: VideoProbe) -> Bool {
        a.stream == b.stream && a.storedWidth == b.storedWidth && a.storedHeight == b.storedHeight
            && a.rotation == b.rotation && a.timeBase == b.timeBase && a.duration == b.duration
            && a.transfer == b.transfer && a.pixelFormat == b.pixelFormat && a.taken == b.taken
    }

    /// Upright size: ffmpeg turns frames by the display matrix (autorotate).
    package var width: Int { quarterTurned ? storedHeight : storedWidth }
    package var height: Int { quarterTurned ? storedWidth : storedHeight }
    private var quarterTurned: Bool { abs(rotation) % 180 == 90 }

    package var isHDR: Bool { transfer == "smpte2084" || transfer == "arib-std-b67" }

    /// Seconds of a pts in the stream's time base.
    package func seconds(_ pts: Int) -> Double { Double(pts) * Double(timeBase.num) / Double(timeBase.den) }

    /// Runs ffprobe on the file at `path`.
    package static func probe(_ tools: VideoTools, path: String, source: String) throws(FaceCropError) -> VideoProbe {
        let result = try tools.probe(
            [
                "-v", "error", "-of", "json", "-show_entries",
                "stream=index,codec_type,width,height,time_base,duration,color_transfer,pix_fmt:stream_disposition=attached_pic:stream_side_data=rotation:format=duration"
                    + ":stream_tags=creation_time:format_tags=creation_time,com.apple.quicktime.creationdate",
                path,
            ], source: source)
        guard result.status == 0 else {
            throw VideoMessage.unreadable(source, details: FFmpeg.lastLines(result.stderr, count: 2, file: source))
        }
        guard let object = JSONReading.object(Data(result.stdout)) else {
            throw VideoMessage.notJSON(source)
        }
        return try parse(object, source: source)
    }

    /// The facts of ffprobe's JSON answer.
    package static func parse(_ object: [String: Any], source: String) throws(FaceCropError) -> VideoProbe {
        let streams = object["streams"] as? [[String: Any]] ?? []
        let video = streams.first { stream in
            let cover = (stream["disposition"] as? [String: Any])?["attached_pic"] as? Int ?? 0
            return stream["codec_type"] as? String == "video" && cover == 0
        }
        guard let video else {
            let kinds = Set(streams.compactMap { $0["codec_type"] as? String }).sorted()
            throw kinds.isEmpty ? VideoMessage.noStreams(source) : VideoMessage.noVideoStream(source, kinds: kinds.joined(separator: ", "))
        }
        guard let index = video["index"] as? Int, let width = video["width"] as? Int, let height = video["height"] as? Int,
            width > 0, height > 0
        else { throw VideoMessage.noFrameSize(source) }
        let base = (video["time_base"] as? String ?? "").split(separator: "/").compactMap { Int($0) }
        guard base.count == 2, base[0] > 0, base[1] > 0 else {
            throw VideoMessage.noTimeBase(source)
        }
        let sides = video["side_data_list"] as? [[String: Any]] ?? []
        let rotation = sides.compactMap { $0["rotation"] as? Int }.first ?? 0
        let format = object["format"] as? [String: Any]
        let duration = (video["duration"] as? String).flatMap(Double.init) ?? (format?["duration"] as? String).flatMap(Double.init)
        return VideoProbe(
            stream: index, storedWidth: width, storedHeight: height, rotation: rotation, timeBase: (base[0], base[1]),
            duration: duration, transfer: video["color_transfer"] as? String ?? "", pixelFormat: video["pix_fmt"] as? String ?? "",
            taken: VideoTaken.capture(format: format?["tags"] as? [String: Any], stream: video["tags"] as? [String: Any]))
    }

    /// The stream's packet times (pts, sorted: presentation order), read by
    /// demuxing only: frame numbers come from them. Packets an edit list
    /// marks discarded (flag `D`: decoded, never shown, as in a clip trimmed
    /// with `-c copy`) are left out, as ffmpeg's decoder leaves out their
    /// frames: the first frame shown is number 0 at its own time.
    package func packetTimes(_ tools: VideoTools, path: String, source: String) throws(FaceCropError) -> [Int] {
        let result = try tools.probe(
            ["-v", "error", "-select_streams", String(stream), "-show_entries", "packet=pts,flags", "-of", "csv=p=0", path],
            source: source)
        guard result.status == 0 else {
            throw VideoMessage.packetsUnreadable(source, details: FFmpeg.lastLines(result.stderr, count: 2, file: source))
        }
        return Self.shownTimes(result.stdout)
    }

    /// The pts of `pts,flags` lines whose flags have no `D`, sorted.
    package static func shownTimes(_ csv: [UInt8]) -> [Int] {
        var times: [Int] = []
        var value = 0
        var negative = false
        var digits = false
        var field = 0
        var discarded = false
        func end() {
            if digits && !discarded { times.append(negative ? -value : value) }
            (value, negative, digits, field, discarded) = (0, false, false, 0, false)
        }
        for byte in csv {
            switch byte {
            case UInt8(ascii: "\n"):
                end()
            case UInt8(ascii: ","):
                field += 1
            case _ where field > 0:
                if byte == UInt8(ascii: "D") { discarded = true }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits = true
            case UInt8(ascii: "-"):
                negative = true
            default:
                // "N/A": not a time.
                if byte != UInt8(ascii: "\r") { digits = false }
            }
        }
        end()
        times.sort()
        return times
    }

    package init(stream: Int, storedWidth: Int, storedHeight: Int, rotation: Int, timeBase: (num: Int, den: Int),
        duration: Double? = nil, transfer: String, pixelFormat: String, taken: CaptureTime? = nil) {
        (self.stream, self.storedWidth, self.storedHeight) = (stream, storedWidth, storedHeight)
        (self.rotation, self.timeBase, self.duration, self.transfer) = (rotation, timeBase, duration, transfer)
        (self.pixelFormat, self.taken) = (pixelFormat, taken)
    }
}
