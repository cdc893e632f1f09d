import Foundation
import FaceCropCore

/// Reading the command line against `OptionTable.all` (config files, the
/// checks between options), `--help`, and the value parsers the table's
/// options use.
extension OptionTable {
    /// The option called `name` (with its dashes).
    package static func spec(named name: String) -> OptionSpec<Options>? {
        all.first { $0.names.contains(name) }
    }

    /// Parses the arguments after the program name.
    public static func parse(_ arguments: [String], requireOutput: Bool = true) throws(FaceCropError) -> Options {
        var options = Options()
        var given = try read(arguments, into: &options)
        // Config files first, then the command line again on top of them.
        if !options.configs.isEmpty {
            let configs = options.configs
            options = Options()
            for path in configs { try ConfigFile.apply(path, to: &options) }
            given = try read(arguments, into: &options)
            options.configs = configs
        }
        if options.showHelp || options.showVersion || options.showManual || options.completions != nil { return options }
        if options.inputs.isEmpty { throw .usage("no photos given") }
        if requireOutput, options.output == nil { throw .usage("missing '--output <dir>'") }
        try checkClipOptions(options, given: given)
        if !options.people, let name = ["--split-by", "--keep-person", "--people-file"].first(where: given.contains) {
            throw .usage("'\(name)' needs '--people'")
        }
        if options.splitByPerson, options.split == nil {
            throw .usage("'--split-by person' needs '--split NAME=W,...'")
        }
        return options
    }

    private static func read(_ arguments: [String], into options: inout Options) throws(FaceCropError) -> [String] {
        try ArgumentReader.read(arguments, table: all, into: &options) { $0.inputs.append($1) }
    }

    /// Clip options only make sense together, and the clip's name must fit its codec.
    package static func checkClipOptions(_ options: Options, given: [String]) throws(FaceCropError) {
        guard options.wantsClips else {
            if let name = given.first(where: { spec(named: $0)?.clipOnly == true }) {
                throw .usage("'\(name)' needs '--clip PATH' or '--clip-per source'")
            }
            return
        }
        guard let path = options.clip else { return }
        if options.clipPer == .source {
            throw .usage("give either '--clip PATH' (one clip) or '--clip-per source' (a clip per photo), not both")
        }
        if options.shard != nil {
            throw .usage("'--clip PATH' cannot be combined with '--shard' (every shard would write the same clip); merge first, then run with --clip")
        }
        let codec = options.effectiveClipCodec
        guard options.clipCodec != nil || ClipCodec.implied(by: path) != nil else {
            throw .usage("'--clip' needs a .mov or .webm name (or '--clip-codec'), not '\(path)'")
        }
        guard (path as NSString).pathExtension.lowercased() == codec.fileExtension else {
            throw .usage("'--clip-codec \(codec.rawValue)' writes .\(codec.fileExtension) files: name the clip '.\(codec.fileExtension)', not '\(path)'")
        }
    }

    /// `--help`, generated from the table.
    public static var help: String {
        var lines = [
            "facecrop \(Options.version): cut the faces out of a photo library into a dataset.",
            "",
            usage,
            "",
            "Walks each photo folder recursively (JPEG, PNG, WebP, TIFF, HEIC/HEIF, AVIF, GIF,",
            "JPEG XL), finds faces with an OpenCV cascade and writes one square crop per face,",
            "with manifest.jsonl, metadata.jsonl and stats.json, into the output folder.",
            "",
        ]
        lines += Commands.helpLines + ["", "Options:"]
        lines += ArgumentReader.helpLines(all)
        lines += [""] + ExitStatus.helpParagraph()
        return lines.joined(separator: "\n") + "\n"
    }

    package static func shard(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(FaceCropError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[1]), count >= 1 else {
            throw .usage("'--shard' needs K/N, e.g. 0/4, not '\(text)'")
        }
        var indexText = String(parts[0])
        if indexText == "auto" {
            guard let found = environment["SLURM_ARRAY_TASK_ID"] ?? environment["JOB_COMPLETION_INDEX"] else {
                throw .usage("'--shard auto/\(count)' needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment")
            }
            indexText = found
        }
        guard let index = Int(indexText), (0..<count).contains(index) else {
            throw .usage("'--shard' index must be from 0 to \(count - 1), not '\(indexText)'")
        }
        return Shard(index: index, count: count)
    }

    /// `--align`'s value; `true` and `false` (a config file's flag form) mean level and none.
    package static func alignMode(_ text: String) throws(FaceCropError) -> AlignMode {
        switch text.lowercased() {
        case "true", "yes", "on", "1": return .level
        case "false", "no", "off", "0": return .none
        default: return try OptionValue.choice(text, "--align")
        }
    }

}
