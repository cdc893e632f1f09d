import Foundation
import FaceCropCore

/// One sampled frame: upright, at the size the reader was asked for, packed 8-bit RGB.
package struct VideoFrame {
    /// Its presentation time in the stream's time base.
    package var pts: Int
    package var width: Int
    package var height: Int
    /// The first read's: the frame's place among the decoded frames whose
    /// change the log has (`ShowInfoLog.changes`; -1 in the second read).
    package var decoded = -1
}

/// Reads a video's sampled frames from an ffmpeg subprocess: raw RGB on its
/// stdout, one frame at a time into one reused buffer (never the whole
/// video), and each frame's pts from the `showinfo` filter's lines on its
/// stderr (read by a thread of its own).
///
/// ffmpeg turns the frames by the display matrix (autorotate, its default),
/// picks them with `select` (the first frame at or after each 1/F s of the
/// stream's own times, so a sample's pts is a real frame's, exact for
/// variable frame rates), tone-maps HDR, and converts only those frames.
/// Not thread-safe: owned by the one task reading the video.
package final class FrameReader {
    package let width: Int
    package let height: Int
    private let process: ToolProcess
    private let output: FileHandle
    private let log: ShowInfoLog
    private var buffer: [UInt8]
    private var index = 0
    private let source: String

    /// `size`: the frames' size (ffmpeg scales them; the full upright size
    /// when nil). `script`: a file holding the filter graph, for a graph too
    /// long for a command line (`filters(...)`, written by the caller).
    package init(
        _ tools: VideoTools, path: String, probe: VideoProbe, settings: VideoSettings,
        size: (width: Int, height: Int)? = nil, script: String? = nil, source: String
    ) throws(FaceCropError) {
        width = size?.width ?? probe.width
        height = size?.height ?? probe.height
        self.source = source
        buffer = [UInt8](repeating: 0, count: width * height * 3)
        var arguments = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "level+info", "-xerror", "-threads", "2"]
        if settings.keyframes { arguments += ["-skip_frame", "nokey"] }
        arguments += ["-copyts", "-i", path, "-map", "0:\(probe.stream)", "-an", "-sn", "-dn"]
        if let script {
            arguments += ["-filter_script:v", script]
        } else {
            arguments += ["-vf", Self.filters(probe, settings: settings, size: (width, height))]
        }
        arguments += ["-fps_mode", "passthrough"]
        arguments += ["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]
        do {
            process = try ToolProcess(tools.ffmpeg, arguments, errors: .pipe)
        } catch {
            throw VideoMessage.cannotRun(source, tool: tools.ffmpeg.path, why: error.reason)
        }
        // Both pipes are there: asked for above.
        output = process.output!
        log = ShowInfoLog(process.errors!, path: path)
    }

    deinit { cancel() }

    /// ffmpeg's filter graph: the change of every decoded frame from the
    /// one before printed (the first read only: cuts end tracks), sample
    /// (`VideoSampling`; or, with `only`, take exactly the frames of those
    /// pts, sorted), tone-map HDR, scale to `size`.
    package static func filters(_ probe: VideoProbe, settings: VideoSettings, size: (width: Int, height: Int), only: [Int]? = nil)
        -> String
    {
        var chain: [String] = []
        if let only {
            chain.append("select='\(exactSelect(only))'")
        } else {
            chain += [VideoSampling.changeOfEveryFrame, "metadata=print:key=lavfi.scd.mafd", VideoSampling.select(settings)]
        }
        chain.append("showinfo=checksum=0")
        chain += probe.toneMap
        if size.width == probe.width && size.height == probe.height {
            chain.append("scale=\(probe.width):\(probe.height):flags=bicubic")
        } else {
            // The detection size: area averaging, the shrink that keeps
            // small faces' edges (libvips' thumbnail before).
            chain.append("scale=\(size.width):\(size.height):flags=area")
        }
        return chain.joined(separator: ",")
    }

    /// A `select` expression true exactly for the frames whose pts is in
    /// `pts` (sorted, distinct): a binary search (`if(lt(pts,m),...)`), so
    /// each frame costs log2(n) comparisons however many are wanted.
    package static func exactSelect(_ pts: [Int]) -> String {
        func node(_ low: Int, _ high: Int) -> String {
            if high - low == 1 { return "eq(pts\\,\(pts[low]))" }
            let middle = (low + high) / 2
            return "if(lt(pts\\,\(pts[middle]))\\,\(node(low, middle))\\,\(node(middle, high)))"
        }
        return pts.isEmpty ? "0" : node(0, pts.count)
    }

    /// The next sampled frame, its pixels in `pixels` until the next call;
    /// nil after the last.
    package func next(_ body: (VideoFrame, UnsafeRawBufferPointer) throws(FaceCropError) -> Void) throws(FaceCropError) -> Bool {
        let count = buffer.count
        var filled = 0
        let fd = output.fileDescriptor
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw VideoMessage.readFailed(source, why: systemError(errno)) }
            if got == 0 { break }
            filled += got
        }
        if filled == 0 { return false }
        guard filled == count else { throw VideoMessage.frameCutShort(source, details: log.failure()) }
        guard let (pts, decoded) = log.sample(index) else {
            throw VideoMessage.noTime(source, frame: String(index), details: log.failure())
        }
        index += 1
        var failure: FaceCropError?
        buffer.withUnsafeBytes { raw in
            do throws(FaceCropError) {
                try body(VideoFrame(pts: pts, width: width, height: height, decoded: decoded), raw)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return true
    }

    /// The first read's: every decoded frame's change from the one before
    /// (`ShowInfoLog.changes`), once ffmpeg has ended.
    package func changes() -> [Double] { log.changes() }

    /// Waits for ffmpeg; throws unless it read the video to its end.
    package func finish() throws(FaceCropError) {
        let status = process.wait()
        guard status == 0 else {
            throw VideoMessage.ffmpegStopped(source, status: String(status), details: log.failure())
        }
    }

    /// Stops ffmpeg now (the video failed or the run stops). SIGKILL, not
    /// SIGTERM: on SIGTERM ffmpeg finishes its output first, into the pipe
    /// no one reads any more, and never exits.
    package func cancel() {
        process.signal(SIGKILL)
        _ = process.wait()
    }
}

/// ffmpeg's stderr, read line by line on a thread: the pts of each frame
/// `showinfo` passed, the change of every decoded frame `metadata` printed,
/// and the last error lines. ffmpeg's filters run in order on one thread:
/// a frame's change is printed before `select` passes it to `showinfo`.
package final class ShowInfoLog: @unchecked Sendable {
    // Sendable by its condition: every member is touched only while it is held.
    private let condition = NSCondition()
    private var times: [Int] = []
    /// Each sample's place in `changed`.
    private var decoded: [Int] = []
    /// Every decoded frame's change from the one before (scdet's mean
    /// absolute difference, 0...100), in decoding order.
    private var changed: [Double] = []
    private var errors: [String] = []
    private var ended = false
    /// The path ffmpeg was given, which its messages name instead of the video's.
    private let path: String

    package init(_ handle: FileHandle, path: String) {
        self.path = path
        let thread = Thread { [self] in read(handle) }
        thread.start()
    }

    private func read(_ handle: FileHandle) {
        var pending = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                take(line)
            }
        }
        if !pending.isEmpty { take(String(decoding: pending, as: UTF8.self)) }
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    private func take(_ line: String) {
        if line.contains("Parsed_showinfo"), line.contains(" n:"), let pts = Self.pts(in: line) {
            condition.lock()
            times.append(pts)
            decoded.append(changed.count - 1)
            condition.broadcast()
            condition.unlock()
        } else if let change = Self.frameChange(in: line) {
            condition.lock()
            changed.append(change)
            condition.unlock()
        } else if line.contains("[error]") || line.contains("[fatal]") {
            condition.lock()
            let message = ExternalMessage.clean(line.replacingOccurrences(of: path + ": ", with: ""))
            if !message.isEmpty && errors.last != message { errors.append(message) }
            if errors.count > 3 { errors.removeFirst() }
            condition.unlock()
        }
    }

    /// `[Parsed_showinfo_1 @ 0x..] [info] n:   0 pts:  12800 pts_time:1 ...` -> 12800.
    package static func pts(in line: String) -> Int? {
        guard let range = line.range(of: " pts:") else { return nil }
        let rest = line[range.upperBound...].drop(while: { $0 == " " })
        return Int(rest.prefix(while: { $0 == "-" || $0.isNumber }))
    }

    /// `[Parsed_metadata_1 @ 0x..] [info] lavfi.scd.mafd=4.156` -> 4.156.
    package static func frameChange(in line: String) -> Double? {
        guard line.contains("Parsed_metadata"), let range = line.range(of: "lavfi.scd.mafd=") else { return nil }
        guard let value = Double(line[range.upperBound...].prefix(while: { !$0.isWhitespace })), value.isFinite else {
            return nil
        }
        return value
    }

    /// The pts of the frame numbered `index` (0-based), and its place among
    /// the decoded frames, waiting for its line; nil if ffmpeg's stderr
    /// ended first.
    package func sample(_ index: Int) -> (pts: Int, decoded: Int)? {
        condition.lock()
        defer { condition.unlock() }
        while times.count <= index && !ended { condition.wait() }
        return index < times.count ? (times[index], decoded[index]) : nil
    }

    /// Every decoded frame's change from the one before, once ffmpeg's
    /// stderr has ended (the cuts near a sample need the frames after it).
    package func changes() -> [Double] {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return changed
    }

    /// "; <the last error lines>" once stderr has ended ("" without any).
    package func failure() -> String {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return errors.isEmpty ? "" : ": " + errors.joined(separator: "; ")
    }
}
