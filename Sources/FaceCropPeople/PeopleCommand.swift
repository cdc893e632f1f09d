import Foundation
import FaceCropCore
import FaceCropCurate

/// `facecrop people <dataset>`: the people of a dataset made with
/// `--people`, from its manifest: each person (a name from the people file
/// or a grouping's id) with their faces, photos and a representative crop,
/// then the faces with no person. With `--name`, `--add`, `--not` or
/// `--ignore` and crops, it appends statements about those crops' faces to
/// the people file instead (as `facecrop reject` does to rejections.txt).
package enum PeopleCommand: Subcommand {
    package static let usage =
        "Usage: facecrop people <dataset> [--json] | <dataset> (--name NAME | --add NAME | --not NAME | --ignore) <crop-file | number>... [--people-file FILE]"

    package struct Settings: SubcommandSettings {
        package init() {}

        package var arguments: [String] = []
        package var json = false
        package var kind: PeopleStatement.Kind?
        package var statements = 0
        package var peopleFile: String?
        package var quiet = false
        package var showHelp = false
    }

    package static let options: [OptionSpec<Settings>] = [
        .flag(["--json"], "Print the people as one JSON object on stdout.") { $0.json = true },
        .value(["--name"], "NAME", "Name the groups of the crops' faces NAME ('NAME = FACE'; two groups named alike merge).") {
            try $0.set(.nameGroup(try checked($1)))
        },
        .value(["--add"], "NAME", "Put the crops' faces into NAME, one by one ('NAME: FACE').") { try $0.set(.nameFace(try checked($1))) },
        .value(["--not"], "NAME", "Take the crops' faces out of NAME for good ('not NAME: FACE').") {
            try $0.set(.notPerson(try checked($1)))
        },
        .flag(["--ignore"], "Give the crops' groups no person ('ignore = FACE').") { $0.setIgnore() },
        .value(["--people-file"], "FILE", "The people file to add to (default: <dataset>/people.txt).") { $0.peopleFile = $1 },
        .flag(["-q", "--quiet"], "No summary line; errors are still printed.") { $0.quiet = true },
        .flag(["-h", "--help"], "Show this help.") { $0.showHelp = true },
    ]

    private static func checked(_ name: String) throws(FaceCropError) -> String {
        if let problem = PeopleName.typedProblem(name) { throw .usage(problem) }
        return name
    }

    /// `--help`'s paragraph between the usage line and the options.
    package static let about = [
        "Lists the people of a dataset made with --people, from its manifest.jsonl: for",
        "each person (a name from people.txt, or an id such as person-0007), the number",
        "of faces and photos and a representative crop: the face with the highest",
        "face_quality, the first in manifest order on a tie (in a dataset made before",
        "the quality record, the sharpest of the faces at least half as large as the",
        "largest); then the faces that belong to no person. Name and correct people in",
        "people.txt (see report-people.html), or with --name, --add, --not or --ignore",
        "and crops (a crop file or N, as for facecrop reject): their statements are",
        "added to the people file, every line already there kept; the next run with",
        "--people applies them.",
    ]

    package static func run(_ settings: Settings, temporaries: TemporaryFiles) -> Int32 {
        if settings.statements > 1 {
            return ArgumentReader.usageError("give one of --name, --add, --not and --ignore", usage: usage)
        }
        if let kind = settings.kind {
            return add(kind, settings: settings, temporaries: temporaries)
        }
        guard settings.arguments.count == 1 else {
            return ArgumentReader.usageError("people needs one dataset folder (and crops only with --name, --add, --not or --ignore)", usage: usage)
        }
        let dataset = settings.arguments[0]
        do throws(FaceCropError) {
            let listing = try PeopleListing.load(dataset: dataset)
            if !listing.grouped, !listing.unassigned.isEmpty {
                throw .inputMissing(
                    dataset, reason: "made without --people: its faces have no person; run facecrop with --people into it")
            }
            Terminal.stdout(settings.json ? listing.json.pretty() + "\n" : listing.text)
            return ExitStatus.success
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    /// Appends the statement for each crop's face to the people file.
    private static func add(_ kind: PeopleStatement.Kind, settings: Settings, temporaries: TemporaryFiles) -> Int32 {
        CurationCommand.append(
            PeopleFile.self, operands: settings.arguments, file: settings.peopleFile, defaultName: PeopleFile.defaultName,
            quiet: settings.quiet, temporaries: temporaries,
            words: ("people", "statement", "the next run with --people applies them", usage)
        ) { PeopleStatement(kind, face: $0) }
    }
}

extension PeopleCommand.Settings {
    package mutating func set(_ kind: PeopleStatement.Kind) throws(FaceCropError) {
        statements += 1
        self.kind = kind
    }

    package mutating func setIgnore() {
        statements += 1
        kind = .ignoreGroup
    }
}
