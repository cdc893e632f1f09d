import Foundation
import FaceCropCore
import FaceCropInputs

/// `facecrop pick <dataset> <out> --person NAME|ID [--count N]`, or
/// `--per-person N` for everyone, or `--count N` alone (by photo): the best
/// and most varied crops, chosen from the dataset's manifest (see
/// PickChooser) and written to `<out>` (see PickWriter). Reads the dataset,
/// never changes it.
package enum PickCommand: Subcommand {
    package static let usage =
        "Usage: facecrop pick <dataset> <out> [--person NAME|ID] [--count N | --per-person N] [--photos DIR]... [options]"
    package static let defaultCount = 20
    /// `--max-upscale`'s default: see docs/pick.md#honest-sizes.
    package static let defaultMaxUpscale = 2.0

    package struct Settings: SubcommandSettings {
        package init() {}

        package var operands: [String] = []
        package var person: String?
        package var count: Int?
        package var perPerson: Int?
        package var photos: [String] = []
        package var size: Int?
        package var margin: Double?
        package var caption = PickCaption.defaultTemplate
        package var perTrack = 1
        /// `--pad`: crops kept inside the photo unless edge filling is asked for.
        package var pad = PadMode.inside
        package var maxUpscale = defaultMaxUpscale
        package var quiet = false
        package var showHelp = false
    }

    package static let options: [OptionSpec<Settings>] = [
        .value(["--person"], "NAME|ID", "The person to pick: a name from people.txt or an id such as person-0007 (needs a dataset made with --people).") {
            $0.person = $1
        },
        .value(["--count"], "N", "How many crops (default \(defaultCount)); fewer when there are fewer distinct moments.") {
            $0.count = try OptionValue.int($1, "--count", 1...100_000)
        },
        .value(["--per-person"], "N", "N crops of every person, each in <out>/<person>/ (not with --person or --count).") {
            $0.perPerson = try OptionValue.int($1, "--per-person", 1...100_000)
        },
        .value(["--photos"], "DIR", "Where the photos are: the folders the dataset was made from, in the same order (repeatable); crops are cut from them again. Without it, or for a photo gone or changed, the dataset's crop is copied.") {
            $0.photos.append($1)
        }.repeated(),
        .value(["--size"], "N", "Side of each crop cut from the photo in pixels (default: the dataset's --size).") {
            $0.size = try OptionValue.int($1, "--size", 16...8192)
        },
        .value(["--margin"], "F", "Context around the face as a fraction of its side (default: the dataset's --margin).") {
            $0.margin = try OptionValue.double($1, "--margin", 0...4)
        },
        .value(["--caption"], "TEMPLATE", "Each crop's caption (default '\(PickCaption.defaultTemplate)'; also {date}, {score}, {source}).") {
            if let word = PickCaption.unknownPlaceholder($1) {
                throw FaceCropError.usage("unknown placeholder '\(word)' in '--caption' (known: \(PickCaption.placeholders.joined(separator: " ")))")
            }
            $0.caption = $1
        },
        .value(["--per-track"], "N", "At most N crops of one video track (default 1).") {
            $0.perTrack = try OptionValue.int($1, "--per-track", 1...100_000)
        },
        .value(["--pad"], "inside|edge|black|reflect", "Where the margin runs past the photo: inside moves the square inside the photo and shrinks it only where the photo is too small (default); edge, black or reflect fill past the edge as the main run does.") {
            $0.pad = try OptionValue.choice($1, "--pad")
        },
        .value(["--max-upscale"], "F", "Leave out crops enlarged more than F times: the crop's side over the photo pixels it comes from (default \(PickJSON.decimal(defaultMaxUpscale, places: 1))); pick.json lists them with the reason.") {
            $0.maxUpscale = try OptionValue.double($1, "--max-upscale", 0.01...1000)
        },
        .quiet,
        .help,
    ]

    /// `--help`'s paragraph between the usage line and the options.
    package static let about = [
        "Chooses the best and most varied crops of a dataset (a facecrop output folder)",
        "and writes them to <out> for training a person's image model (LoRA, DreamBooth):",
        "never two of one photo's near-duplicates or of one burst; every pose bin",
        "(frontal, left, right, up, down) and capture year before a bin twice; the",
        "quality score (face_quality, or sharpness and size in an older dataset) within",
        "a bin. <out> gets NNNN.jpg with a caption NNNN.txt ('name, year, pose'),",
        "metadata.jsonl, pick.json (why each crop) and contact-sheet.png. Without",
        "--person or --per-person it picks by photo among all faces. The dataset is",
        "only read.",
    ]

    package static func run(_ settings: Settings, stop: StopRequest, temporaries: TemporaryFiles) -> Int32 {
        do throws(FaceCropError) {
            try check(settings)
            let (count, summary) = try pick(settings, stop: stop, temporaries: temporaries)
            if let signal = stop.requested { return signal == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted }
            if !settings.quiet { Terminal.stderr("facecrop: picked \(count) crop\(count == 1 ? "" : "s")\(summary) -> '\(settings.operands[1])'\n") }
            return ExitStatus.success
        } catch .usage(let message) {
            return ArgumentReader.usageError(message, usage: usage)
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    package static func check(_ settings: Settings) throws(FaceCropError) {
        guard settings.operands.count == 2 else {
            throw .usage(settings.operands.count < 2 ? "pick needs a dataset folder and an output folder" : "unexpected argument '\(settings.operands[2])'")
        }
        if settings.perPerson != nil, settings.person != nil { throw .usage("give '--person' or '--per-person', not both") }
        try refuseInsideDataset(output: settings.operands[1], dataset: settings.operands[0])
        if settings.perPerson != nil, settings.count != nil { throw .usage("'--count' is for one person or by photo; '--per-person N' sets the count of each person") }
    }

    /// pick never writes into the dataset: `<out>` may be neither the
    /// dataset folder nor inside it (by device and inode, however it is spelled).
    package static func refuseInsideDataset(output: String, dataset: String) throws(FaceCropError) {
        guard let target = FileIdentity(path: dataset, follow: true) else { return }
        var path = (output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output) as NSString
        path = path.standardizingPath as NSString
        while true {
            if FileIdentity(path: path as String, follow: true) == target {
                throw .usage("the output folder '\(output)' is in the dataset '\(dataset)': pick never writes into a dataset; choose another folder")
            }
            let parent = path.deletingLastPathComponent as NSString
            if parent == path || parent.length == 0 { return }
            path = parent
        }
    }
}
