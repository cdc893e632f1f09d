import Foundation

/// `facecrop reject <dataset> <crop>...`: adds the faces of the crops named
/// (by file or by their number on the contact sheet and report) to the
/// rejections file. The next run into the dataset removes their crops.
enum RejectCommand {
    static let usage = "Usage: facecrop reject <dataset> <crop-file | #number>... [--rejections FILE] [--quiet]"

    struct Settings: Sendable {
        var arguments: [String] = []
        var rejections: String?
        var quiet = false
        var showHelp = false
    }

    static let options: [OptionSpec<Settings>] = [
        .value(["--rejections"], "FILE", "The rejections file to add to (default: <dataset>/rejections.txt).") {
            $0.rejections = $1
        },
        .flag(["-q", "--quiet"], "No summary line; errors are still printed.") { $0.quiet = true },
        .flag(["-h", "--help"], "Show this help.") { $0.showHelp = true },
    ]

    /// `--help`'s paragraph between the usage line and the options.
    static let about = [
        "Adds the faces of the crops named to the rejections file: a crop file (relative",
        "to <dataset>, to the current folder, or absolute) or '#N', crop N of the contact",
        "sheet and report. The next run into <dataset> removes their crops; every later",
        "run, and a run into a fresh folder given the same file, leaves them out.",
    ]

    static func run(_ arguments: [String], temporaries: TemporaryFiles) -> Int32 {
        var settings = Settings()
        if let status = ArgumentReader.subcommand(
            arguments, table: options, into: &settings, usage: usage, about: about, showHelp: \.showHelp,
            operands: \.arguments)
        {
            return status
        }
        guard settings.arguments.count >= 2 else {
            return ArgumentReader.usageError("reject needs a dataset folder and at least one crop", usage: usage)
        }
        let dataset = settings.arguments[0]
        let path = settings.rejections ?? (dataset as NSString).appendingPathComponent(RejectionsFile.defaultName)
        let faces: [(rejection: Rejection, note: String)]
        do throws(FaceCropError) {
            let crops = try DatasetCrops(dataset: dataset)
            faces = try settings.arguments.dropFirst().map { argument throws(FaceCropError) in try crops.face(argument) }
        } catch {
            if case .usage(let text) = error { return ArgumentReader.usageError(text, usage: usage) }
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
        do throws(RejectionsError) {
            var file = try RejectionsFile.load(path: path)
            let added = file.add(faces)
            if added > 0 { try file.save(path: path, temporaries: temporaries) }
            if !settings.quiet {
                Terminal.stderr("facecrop: added \(added) rejection\(added == 1 ? "" : "s") to '\(path)'; the next run removes their crops\n")
            }
            return ExitStatus.success
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return ExitStatus.cannotCreate
        }
    }
}

/// The crops of a dataset, from its manifest: each crop's file and face.
struct DatasetCrops {
    var dataset: String
    /// Crop files relative to the dataset, in manifest order (crop N is [N - 1]).
    var crops: [String] = []
    var faces: [String: (rejection: Rejection, note: String)] = [:]

    init(dataset: String) throws(FaceCropError) {
        self.dataset = dataset
        let path = (dataset as NSString).appendingPathComponent(Manifest.fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .inputMissing(path, reason: "no \(Manifest.fileName) here: not a facecrop dataset")
        }
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let crop = object["crop"] as? String, let sha256 = object["sha256"] as? String,
                let box = object["bbox"] as? [Int], box.count == 4, let source = object["source"] as? String,
                let face = object["face"] as? Int
            else { continue }
            crops.append(crop)
            // A video's crop: its sample's time, so its whole track is rejected.
            let video = object["video"] as? Bool == true
            let time = video ? object["time"] as? Double : nil
            let track = video ? object["track"] as? Int : nil
            faces[crop] = (
                Rejection(sha256: sha256, box: PixelRect(x: box[0], y: box[1], width: box[2], height: box[3]), time: time),
                Rejection.note(
                    photo: PhotoFinder.join(object["input"] as? String ?? "", source), face: face,
                    video: time.map { VideoFace(time: $0, frame: 0, track: track ?? 0) })
            )
        }
    }

    /// The face of a crop named on the command line.
    func face(_ argument: String) throws(FaceCropError) -> (rejection: Rejection, note: String) {
        if argument.hasPrefix("#"), let number = Int(argument.dropFirst()), number >= 1, number <= crops.count {
            return faces[crops[number - 1]]!
        }
        for candidate in relativeNames(argument) {
            if let face = faces[candidate] { return face }
        }
        throw .usage("'\(argument)' is not a crop or a crop number of '\(dataset)'")
    }

    /// `argument` as a path relative to the dataset: as given, and (when it
    /// names a place inside the dataset from here) made relative to it.
    private func relativeNames(_ argument: String) -> [String] {
        var names = [argument]
        let here = FileManager.default.currentDirectoryPath
        let root = URL(fileURLWithPath: dataset, relativeTo: URL(fileURLWithPath: here)).standardizedFileURL.path
        let full = URL(fileURLWithPath: argument, relativeTo: URL(fileURLWithPath: here)).standardizedFileURL.path
        if full.hasPrefix(root + "/") { names.append(String(full.dropFirst(root.count + 1))) }
        return names
    }
}
