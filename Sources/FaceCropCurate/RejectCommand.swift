import Foundation
import FaceCropCore

/// `facecrop reject <dataset> <crop>...`: adds the faces of the crops named
/// (by file or by their number on the contact sheet and report) to the
/// rejections file. The next run into the dataset removes their crops.
package enum RejectCommand: Subcommand {
    package static let usage = "Usage: facecrop reject <dataset> <crop-file | number>... [--rejections FILE] [--quiet]"

    package struct Settings: SubcommandSettings {
        package init() {}

        package var arguments: [String] = []
        package var rejections: String?
        package var quiet = false
        package var showHelp = false
    }

    package static let options: [OptionSpec<Settings>] = [
        .value(["--rejections"], "FILE", "The rejections file to add to (default: <dataset>/rejections.txt).") {
            $0.rejections = $1
        },
        .quiet,
        .help,
    ]

    /// `--help`'s paragraph between the usage line and the options.
    package static let about = [
        "Adds the faces of the crops named to the rejections file: a crop file (relative",
        "to <dataset>, to the current folder, or absolute) or N (also '#N'), crop N of the",
        "contact sheet and report; quote '#N', as a shell takes an unquoted #N for a",
        "comment. The next run into <dataset> removes their crops; every later run, and a",
        "run into a fresh folder given the same file, leaves them out.",
    ]

    package static func run(_ settings: Settings, temporaries: TemporaryFiles) -> Int32 {
        CurationCommand.append(
            RejectionsFile.self, operands: settings.arguments, file: settings.rejections, defaultName: RejectionsFile.defaultName,
            quiet: settings.quiet, temporaries: temporaries,
            words: ("reject", "rejection", "the next run removes their crops", usage)
        ) { $0 }
    }
}

/// The crops of a dataset, from its manifest: each crop's file and face.
package struct DatasetCrops {
    package var dataset: String
    /// Crop files relative to the dataset, in manifest order (crop N is [N - 1]).
    package var crops: [String] = []
    package var faces: [String: (rejection: Rejection, note: String)] = [:]

    package init(dataset: String) throws(FaceCropError) {
        self.dataset = dataset
        for face in try DatasetFace.all(dataset: dataset) {
            crops.append(face.crop)
            faces[face.crop] = (face.handle, face.note)
        }
    }

    /// The face of a crop named on the command line: a crop file, or its
    /// number on the contact sheet and report (`60` or `#60`).
    package func face(_ argument: String) throws(FaceCropError) -> (rejection: Rejection, note: String) {
        for candidate in relativeNames(argument) {
            if let face = faces[candidate] { return face }
        }
        let digits = argument.hasPrefix("#") ? argument.dropFirst() : argument[...]
        if !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), number >= 0 {
            guard number >= 1, number <= crops.count else {
                let has = crops.isEmpty ? "which has no crops" : "whose crops are numbered 1 to \(crops.count)"
                throw .usage("there is no crop \(number) in '\(dataset)', \(has)")
            }
            return faces[crops[number - 1]]!
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
