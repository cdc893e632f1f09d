import Foundation

/// `facecrop people <dataset>`: the people of a dataset made with
/// `--people`, from its manifest: each person (a name from the people file
/// or a grouping's id) with their faces, photos and a representative crop,
/// then the faces with no person.
enum PeopleCommand {
    static let usage = "Usage: facecrop people <dataset> [--json]"

    struct Settings: Sendable {
        var arguments: [String] = []
        var json = false
        var showHelp = false
    }

    static let options: [OptionSpec<Settings>] = [
        .flag(["--json"], "Print the people as one JSON object on stdout.") { $0.json = true },
        .flag(["-h", "--help"], "Show this help.") { $0.showHelp = true },
    ]

    static var help: String {
        let lines = [
            usage, "",
            "Lists the people of a dataset made with --people, from its manifest.jsonl: for",
            "each person (a name from people.txt, or an id such as person-0007), the number",
            "of faces and photos and a representative crop (the sharpest of the larger",
            "faces); then the faces that belong to no person. Name and correct people in",
            "people.txt (see report-people.html).", "", "Options:",
        ]
        return (lines + ArgumentReader.helpLines(options)).joined(separator: "\n") + "\n"
    }

    static func run(_ arguments: [String]) -> Int32 {
        var settings = Settings()
        do {
            _ = try ArgumentReader.read(arguments, table: options, into: &settings) { $0.arguments.append($1) }
        } catch {
            return ArgumentReader.usageError(error.description, usage: usage)
        }
        if settings.showHelp {
            Terminal.stdout(help)
            return ExitStatus.success
        }
        guard settings.arguments.count == 1 else {
            return ArgumentReader.usageError("people needs one dataset folder", usage: usage)
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
}
