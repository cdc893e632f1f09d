import Foundation
import Testing


/// The hostile-video corpus (scripts/make-hostile-videos, made once for the
/// suite with the real ffmpeg) with Fixtures' hostile and broken photos:
/// each file is read or refused with a clear message, the same bytes on
/// every run and at any --jobs, and no message carries a process's traces.
@Suite(.serialized)
struct HostileVideoTests {
    static let made: URL = {
        let folder = try! makeTemporaryFolder()
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("scripts/make-hostile-videos")
        process.arguments = [folder.path]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "scripts/make-hostile-videos failed")
        return folder
    }()

    /// What each input gives: a status, and for an error the words its message must have.
    static let expected: [String: (status: String, words: String?)] = [
        "videos/moov-missing.mp4": ("error", "could not read video: ffprobe cannot read it: moov atom not found; Invalid data found when processing input"),
        "videos/cut-media.mp4": ("error", "partial file"),
        "videos/empty.mp4": ("error", "could not read video: empty file (0 bytes)"),
        "videos/photo.mp4": ("ok", nil),
        "videos/photo.mov": ("error", "could not read video: its bytes are a HEIF photo, not a video: rename it to .heic to read it as a photo"),
        "videos/video.jpg": ("error", "not a readable image: its bytes are an MP4 video, not a photo: rename it to .mp4 to read it as a video"),
        "videos/audio-only.mp4": ("error", "no video stream (only audio)"),
        "videos/no-frames.avi": ("error", "Cannot determine format of input stream 0:0 after EOF"),
        "videos/one-pixel.mp4": ("no_face", nil),
        "videos/large.mp4": ("error", "800 x 600 pixels is over the limit of 400000 pixels (--max-pixels)"),
        "videos/rot90.mp4": ("ok", nil), "videos/rot180.mp4": ("ok", nil), "videos/rot270.mp4": ("ok", nil),
        "videos/bframes.mp4": ("ok", nil), "videos/edit-list.mp4": ("ok", nil), "videos/interlaced.mp4": ("ok", nil),
        "videos/hevc10.mp4": ("ok", nil), "videos/vp9.webm": ("ok", nil), "videos/prores4444.mov": ("ok", nil),
        "videos/mjpeg.avi": ("ok", nil),
        "broken/empty.jpg": ("error", "not a readable image: empty file (0 bytes)"),
        "broken/notes.jpg": ("error", "is not in a known format"),
        "broken/garbage.heic": ("error", "is not in a known format"),
        "broken/truncated.jpg": ("error", "Premature end of"),
        "hostile/bomb-60000.jpg": ("error", "--max-pixels"), "hostile/bomb-60000.png": ("error", "--max-pixels"),
    ]

    /// Runs the binary, its stderr kept; returns the status, stderr and its pid.
    func run(_ arguments: [String]) throws -> (status: Int32, stderr: String, pid: Int32) {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: facecropBinary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        process.waitUntilExit()
        try err.close()
        return (process.terminationStatus, try String(contentsOf: errURL, encoding: .utf8), pid)
    }

    /// The traces of a process a message must not carry: an address, a
    /// `/proc` path, the pid, a temporary name or folder.
    func traces(_ message: String, pid: Int32, work: URL) -> [String] {
        var found: [String] = []
        if message.contains("/proc/") { found.append("/proc/") }
        if message.contains("0x") {
            found.append("an address")
        }
        if message.range(of: "\\b\(pid)\\b", options: .regularExpression) != nil { found.append("the pid \(pid)") }
        if message.contains(".tmp") || message.contains(work.path) || message.contains(NSTemporaryDirectory()) {
            found.append("a temporary path")
        }
        return found
    }

    /// Two runs into fresh folders, at --jobs 1 and 2: the same bytes.
    @Test func hostileInputsGiveTheSameBytesEveryRun() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let inputs = work.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.made, to: inputs.appendingPathComponent("videos"))
        try copyFixtures(["hostile", "broken"], into: inputs)
        var datasets: [[String: String]] = []
        var errorLines: [[String]] = []
        for jobs in [1, 2] {
            let out = work.appendingPathComponent("out\(datasets.count)")
            let result = try run([inputs.path, "-o", out.path, "--max-pixels", "400000", "--jobs", String(jobs), "-q"])
            #expect(result.status == 1, "\(result.stderr)")
            let lines = linesBySource(try readManifest(out))
            for (source, want) in Self.expected {
                let line = try #require(lines[source]?.first, "\(source) missing from the manifest")
                #expect(line["status"] as? String == want.status, "\(source): \(line)")
                if let words = want.words {
                    let error = line["error"] as? String ?? ""
                    #expect(error.contains(words), "\(source): \(error)")
                }
                if want.status == "ok" {
                    // Read through: every crop written and there.
                    for face in lines[source] ?? [] {
                        let crop = try #require(face["crop"] as? String)
                        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(crop).path), "\(crop)")
                    }
                }
            }
            // Every error, in the manifest and on stderr, free of a process's traces.
            let messages = lines.values.flatMap { $0 }.compactMap { $0["error"] as? String }
            let stderrLines = result.stderr.split(separator: "\n").map(String.init)
            #expect(messages.count >= Self.expected.values.filter { $0.status == "error" }.count)
            for message in messages + stderrLines {
                #expect(traces(message, pid: result.pid, work: work).isEmpty, "\(message)")
            }
            // Nothing half-written: no crop of a failed input, no temporary file.
            let files = try FileManager.default.subpathsOfDirectory(atPath: out.path)
            for (source, want) in Self.expected where want.status != "ok" {
                #expect(!files.contains { $0.hasPrefix(source + ".") }, "\(source) left a file")
            }
            #expect(!files.contains { $0.hasSuffix(".tmp") }, "\(files.filter { $0.hasSuffix(".tmp") })")
            datasets.append(try datasetBytes(out))
            errorLines.append(stderrLines.filter { $0.hasPrefix("facecrop: error:") }.sorted())
            if datasets.count == 1 {
                // --check on a dataset with broken inputs: nothing changed, exit 0.
                let check = try runFaceCrop([inputs.path, "-o", out.path, "--max-pixels", "400000", "--check"])
                #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
                #expect(check.stdout.isEmpty, "\(check.stdout)")
            }
        }
        #expect(datasets[0] == datasets[1], "\(datasets[0].filter { datasets[1][$0.key] != $0.value }.keys.sorted())")
        #expect(errorLines[0] == errorLines[1])
        // The report's error lines are in its stable text, compared above; they are there.
        let report = try String(contentsOf: work.appendingPathComponent("out0/report.html"), encoding: .utf8)
        #expect(report.contains("moov atom not found; Invalid data found when processing input"))
    }

    /// Presentation times as `ffprobe -show_frames` reports them, in order.
    func shownFrameTimes(_ video: URL) throws -> [Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", video.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")))
        }
    }

    /// An edit list (5 frames decoded, not shown) and B-frames: every crop's
    /// time and frame number are those of the frame a player shows.
    @Test(arguments: ["edit-list.mp4", "bframes.mp4"])
    func cropTimesArePresentationTimes(_ name: String) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let video = work.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.made.appendingPathComponent(name), to: video)
        let out = work.appendingPathComponent("out")
        let result = try runFaceCrop([video.path, "-o", out.path, "--video-fps", "10", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let shown = try shownFrameTimes(video)
        #expect(shown.count == (name == "edit-list.mp4" ? 5 : 20))
        let lines = try readManifest(out).filter { $0["status"] as? String == "ok" }
        #expect(lines.count == shown.count, "a face in every frame shown")
        for line in lines {
            let frame = try #require(line["frame"] as? Int)
            let time = try #require(line["time"] as? Double)
            #expect(frame < shown.count && abs(shown[frame] - time) < 1e-6, "frame \(frame) at \(time) s; shown: \(shown)")
        }
        #expect(lines.compactMap { $0["frame"] as? Int } == Array(0..<shown.count))
    }
}
