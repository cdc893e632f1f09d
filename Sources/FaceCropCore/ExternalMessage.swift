import Foundation

/// The one place text from outside facecrop (ffmpeg and ffprobe, libvips,
/// libheif, OpenCV, dlib, the file system) is made fit for the manifest,
/// stats.json, the report and stderr: the same words on every run, for the
/// same input, whatever the process, its file descriptors, its memory or its
/// temporary files. The library's own words stay ("moov atom not found").
/// `FaceCropError.reason` passes every reason through it, so a message is
/// cleaned however it was made; ffmpeg's stderr is cleaned line by line
/// first (`lines`), where its prefixes are still at the start of a line.
package enum ExternalMessage {
    /// `text` cleaned: `file` (the input's path as the manifest shows it)
    /// stands for the `/proc/<pid>/fd/<n>` path a library was given, or
    /// that path is dropped where it only opens a message ("<path>: ...").
    package static func clean(_ text: String, file: String? = nil) -> String {
        guard !text.isEmpty else { return text }
        var result = text
        for rule in rules {
            result = rule.pattern.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: rule.template)
        }
        if let file {
            let template = NSRegularExpression.escapedTemplate(for: file)
            result = procPath.stringByReplacingMatches(in: result, range: NSRange(result.startIndex..., in: result), withTemplate: template)
        } else {
            result = procPath.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: "the file")
        }
        result = decimal(result)
        // Segments left empty ("; ; "), and spaces left doubled.
        let segments = result.components(separatedBy: "; ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return segments.joined(separator: "; ").replacingOccurrences(of: "  ", with: " ")
    }

    /// The last `count` distinct lines of a tool's stderr, each cleaned,
    /// joined by "; ". Statistics lines ("frame= ... time=...") are left
    /// out: they carry timings.
    package static func lines(_ stderr: String, count: Int, file: String? = nil) -> [String] {
        var kept: [String] = []
        for raw in stderr.split(whereSeparator: \.isNewline) {
            if isStatistics(raw.trimmingCharacters(in: .whitespaces)) { continue }
            let line = clean(String(raw), file: file)
            if line.isEmpty { continue }
            if kept.last == line { continue }
            kept.append(line)
        }
        return Array(kept.suffix(count))
    }

    /// A hexadecimal number a library printed (`offset 0x146d`, `0x6e`) in
    /// decimal: the same value, and no message looks like it holds an address.
    package static func decimal(_ text: String) -> String {
        var result = ""
        var rest = text[...]
        while let match = rest.range(of: #"\b0x[0-9A-Fa-f]{1,16}\b"#, options: .regularExpression) {
            result += rest[..<match.lowerBound]
            let digits = rest[match].dropFirst(2)
            result += UInt64(digits, radix: 16).map(String.init) ?? String(rest[match])
            rest = rest[match.upperBound...]
        }
        return result + rest
    }

    /// ffmpeg's progress line: `frame=  10 fps=0.0 q=-1.0 size= ... time=00:00:01.00 ... speed=...`.
    package static func isStatistics(_ line: String) -> Bool {
        (line.hasPrefix("frame=") || line.hasPrefix("size=")) && line.contains("time=")
    }

    // Each is compiled once and only matched with afterwards
    // (NSRegularExpression is Sendable).
    private static let procPath = regex(#"/proc/(?:self|[0-9]+)/fd/[0-9]+"#)

    private static let rules: [(pattern: NSRegularExpression, template: String)] = [
        // ffmpeg's `[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55c6e9876200] ` and `[NULL @ 0x...] `.
        (regex(#"\[[^\[\]]* @ (?:0x)?[0-9A-Fa-f]+\] ?"#), ""),
        // `-loglevel level+...`'s `[error] `.
        (regex(#"\[(?:panic|fatal|error|warning|info|verbose|debug|trace)\] ?"#), ""),
        // "<the path it was given>: Invalid data ..." opening a message or a "; " segment.
        (regex(#"(?:^|(?<=; ))['"]?/proc/(?:self|[0-9]+)/fd/[0-9]+['"]?: "#), ""),
        // facecrop's own temporary names (AtomicFile): `.NAME.facecrop-PID-N.tmp` is
        // written as NAME; `<folder>/N-PID.tmp` is "a temporary file".
        (regex(#"\.([^/\s'"]+)\.facecrop-[0-9]+-[0-9]+\.tmp"#), "$1"),
        (regex(#"[^\s'"]*/[0-9]+-[0-9]+\.tmp"#), "a temporary file"),
        // libvips' own temporary files: `/tmp/vips-0-1234.v`.
        (regex(#"[^\s'"]*/vips-[0-9]+-[0-9]+\.v\b"#), "a temporary file"),
        // A timing ffmpeg adds mid-line: "time=00:00:01.23".
        (regex(#"\btime=[0-9:.]+ ?"#), ""),
    ]

    private static func regex(_ pattern: String) -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern)
        } catch {
            fatalError("ExternalMessage: bad pattern \(pattern): \(error)")
        }
    }
}
