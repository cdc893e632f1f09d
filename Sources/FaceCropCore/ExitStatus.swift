/// facecrop's exit statuses (sysexits.h values where one fits), each with
/// its meaning in `table`: `--help`, `--man` and docs/manual.md's "Exit status"
/// section come from that table (ReadmeTests compares the documentation with it).
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    /// EX_USAGE.
    public static let usage: Int32 = 64
    /// EX_NOINPUT.
    public static let noInput: Int32 = 66
    /// EX_UNAVAILABLE.
    public static let unavailable: Int32 = 69
    /// EX_CANTCREAT.
    public static let cannotCreate: Int32 = 73
    /// EX_TEMPFAIL: most often a drive or share not mounted; run again when it is.
    public static let removalsRefused: Int32 = 75
    /// 128 + SIGINT.
    public static let interrupted: Int32 = 130
    /// 128 + SIGTERM.
    public static let terminated: Int32 = 143

    package struct Entry: Sendable {
        package let status: Int32
        /// A few words, for `--help`.
        package let name: String
        /// One sentence, for the man page and the manual (docs/manual.md).
        package let meaning: String
    }

    /// Every status facecrop exits with, in order.
    package static let table: [Entry] = [
        Entry(status: success, name: "every photo processed", meaning: "Every photo was processed (photos without a face included); with --check, the output is up to date."),
        Entry(status: failure, name: "some photo failed", meaning: "At least one photo could not be processed (see the manifest's error lines), a dataset file (manifest, state, stats, contact sheet, report or clip) could not be written, or, with --check, the output is not up to date."),
        Entry(status: usage, name: "usage error", meaning: "The command line is wrong: stderr gets 'Error: ...', the usage line and \"See 'facecrop --help' for more information.\""),
        Entry(status: noInput, name: "input missing", meaning: "An input path does not exist or cannot be read; for merge, a shard folder is missing, unfinished or made with other settings; for export and pick, the dataset, its manifest.jsonl or a crop it names."),
        Entry(status: unavailable, name: "cascade, model, library or ffmpeg unavailable", meaning: "A cascade, a detector's model (YuNet or CenterFace: --model, or none found where it is looked for), the models of --people (the face descriptor, dlib's landmark predictor), or a library (libvips, OpenCV's people detector, ONNX Runtime for YuNet, CenterFace and --people) cannot be loaded, or, with clips, ffmpeg is missing or cannot write the codec with alpha."),
        Entry(status: cannotCreate, name: "output unusable or locked", meaning: "The output folder cannot be created or written (for export: a shard), or another facecrop run is writing the same folder and shard (without --wait-lock)."),
        Entry(status: removalsRefused, name: "removals refused", meaning: "The run would have removed more than half of the dataset's crops, or every crop of an input folder that is now empty (as a drive that is not mounted looks): it stopped before changing anything and said which folders; --allow-removals lets the removal happen."),
        Entry(status: interrupted, name: "interrupted", meaning: "Interrupted (SIGINT, Ctrl-C)."),
        Entry(status: terminated, name: "terminated", meaning: "Terminated (SIGTERM)."),
    ]

    /// The manual's rows for `table`, a Markdown table (docs/manual.md).
    package static var markdown: String {
        var lines = ["| status | name | meaning |", "| ---: | --- | --- |"]
        for entry in table { lines.append("| \(entry.status) | \(entry.name) | \(entry.meaning) |") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--help`'s closing paragraph, wrapped at `width` columns.
    package static func helpParagraph(width: Int = 80) -> [String] {
        let items = table.map { "\($0.status) \($0.name)" }
        var lines: [String] = []
        var line = "Exit status:"
        for (index, item) in items.enumerated() {
            let word = item + (index == items.count - 1 ? "." : ",")
            if line.count + 1 + word.count > width {
                lines.append(line)
                line = word
            } else {
                line += " " + word
            }
        }
        lines.append(line)
        return lines
    }
}
