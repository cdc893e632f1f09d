import Foundation
import FaceCropCore

/// The result of running ffmpeg to completion.
package struct FFmpegRun {
    package var status: Int32
    package var stdout: [UInt8]
    package var stderr: String
}

/// An ffmpeg binary, located and probed before any photo is processed.
package struct FFmpeg: Sendable, Equatable {
    package let path: String

    /// `--ffmpeg PATH`, then `FACECROP_FFMPEG`, then `ffmpeg` on `PATH`. A
    /// name without `/` is looked up on `PATH`.
    package static func locate(given: String?, environment: [String: String]) throws(FaceCropError) -> FFmpeg {
        let (name, origin): (String, String) =
            if let given { (given, "--ffmpeg") } else if let fromEnvironment = environment["FACECROP_FFMPEG"],
                !fromEnvironment.isEmpty
            {
                (fromEnvironment, "FACECROP_FFMPEG")
            } else { ("ffmpeg", "PATH") }
        if name.contains("/") {
            guard access(name, X_OK) == 0 else {
                throw .ffmpegUnavailable(name, reason: "\(systemError(errno)) (from \(origin))")
            }
            return FFmpeg(path: name)
        }
        let folders = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for folder in folders where !folder.isEmpty {
            let candidate = folder + "/" + name
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return FFmpeg(path: candidate)
            }
        }
        throw .ffmpegUnavailable(name, reason: "not found on PATH")
    }

    /// Fails unless this ffmpeg can write `codec` with its alpha channel and
    /// decode it back for the check after writing.
    package func probe(_ codec: ClipCodec) throws(FaceCropError) {
        let encoders = try query(["-encoders"])
        guard Self.lists(codec.encoder, in: encoders) else {
            throw .ffmpegUnavailable(
                path, reason: "it has no \(codec.encoder) encoder, needed for '--clip-codec \(codec.rawValue)'")
        }
        let help = try query(["-h", "encoder=" + codec.encoder])
        let formats = Self.pixelFormats(in: help)
        guard formats.contains(codec.pixelFormat) else {
            var reason = "its \(codec.encoder) cannot encode \(codec.pixelFormat), so it would drop the alpha channel"
            if codec == .hevc {
                reason += " (HEVC with alpha needs ffmpeg 7.1 or later built with x265 4.0 or later)"
            }
            throw .ffmpegUnavailable(path, reason: reason)
        }
        if codec == .vp9 {
            let decoders = try query(["-decoders"])
            guard Self.lists("libvpx-vp9", in: decoders) else {
                throw .ffmpegUnavailable(path, reason: "it has no libvpx-vp9 decoder, needed to read VP9's alpha back")
            }
        }
    }

    private func query(_ arguments: [String]) throws(FaceCropError) -> String {
        let result: FFmpegRun
        do {
            result = try run(["-hide_banner", "-nostdin"] + arguments, stderrPath: nil)
        } catch {
            throw .ffmpegUnavailable(path, reason: "cannot run it: \(error.reason)")
        }
        guard result.status == 0 else {
            throw .ffmpegUnavailable(
                path, reason: "'\(arguments.joined(separator: " "))' failed with status \(result.status)"
                    + Self.lastLines(result.stderr))
        }
        return String(decoding: result.stdout, as: UTF8.self) + result.stderr
    }

    /// Whether an `-encoders`/`-decoders` listing has `name` (lines like
    /// ` V....D prores_ks   Apple ProRes (iCodec Pro)`).
    package static func lists(_ name: String, in listing: String) -> Bool {
        listing.split(separator: "\n").contains { line in
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            return words.count >= 2 && words[1] == name
        }
    }

    /// The pixel formats in `-h encoder=NAME` output.
    package static func pixelFormats(in help: String) -> Set<String> {
        for line in help.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("Supported pixel formats:") else { continue }
            return Set(trimmed.dropFirst("Supported pixel formats:".count).split(separator: " ").map(String.init))
        }
        return []
    }

    /// Runs ffmpeg to completion with no stdin. Its stdout is read whole
    /// (keep it small); its stderr goes to `stderrPath`, or is read along
    /// with stdout when nil.
    package func run(_ arguments: [String], stderrPath: String?) throws(WriteFailure) -> FFmpegRun {
        do {
            return try ToolProcess(self, arguments, errors: stderrPath.map { .file($0) } ?? .withOutput).collect()
        } catch {
            throw WriteFailure(reason: error.reason)
        }
    }

    /// The end of ffmpeg's stderr, for an error message: ": <last lines>",
    /// each cleaned by `ExternalMessage` (`file`: the input's path, for the
    /// `/proc/<pid>/fd/<n>` path ffmpeg was given).
    package static func lastLines(_ stderr: String, count: Int = 3, file: String? = nil) -> String {
        let lines = ExternalMessage.lines(stderr, count: count, file: file)
        guard !lines.isEmpty else { return "" }
        return ": " + lines.joined(separator: "; ")
    }
}
