import FaceCropCore
import FaceCropCurate
import FaceCropPeople
import FaceCropPick

/// The subcommands: each one's name, its line in `facecrop --help` and how it
/// runs. The dispatch (`FaceCropCommand.run`), `--help` and the shell
/// completions all read this table.
package struct Commands: Sendable {
    package let name: String
    /// What `facecrop --help` says of it, after `facecrop NAME`.
    package let summary: String
    package let run: @Sendable ([String], StopRequest, TemporaryFiles) async -> Int32

    package static let all: [Commands] = [
        Commands(name: "people", summary: "list a dataset's people; name and correct them in people.txt") { rest, _, temporaries in
            await PeopleCommand.main(rest, operands: \.arguments) { PeopleCommand.run($0, temporaries: temporaries) }
        },
        Commands(name: "pick", summary: "a person's best and most varied crops, cut again into a new folder") {
            rest, stop, temporaries in
            await PickCommand.main(rest, operands: \.operands) { PickCommand.run($0, stop: stop, temporaries: temporaries) }
        },
        Commands(name: "reject", summary: "add crops to the rejections file; the next run removes them") { rest, _, temporaries in
            await RejectCommand.main(rest, operands: \.arguments) { RejectCommand.run($0, temporaries: temporaries) }
        },
        Commands(name: "export", summary: "a dataset as WebDataset shards, or its faces as XMP sidecars") {
            rest, stop, temporaries in
            ExportCommand.run(rest, stop: stop, temporaries: temporaries)
        },
        Commands(name: "merge", summary: "join the output folders of --shard runs into one dataset") { rest, stop, temporaries in
            await MergeCommand.main(rest, operands: \.folders) { await MergeCommand.run($0, stop: stop, temporaries: temporaries) }
        },
    ]

    package static func named(_ name: String) -> Commands? { all.first { $0.name == name } }

    /// docs/manual.md's table of commands (a test holds the manual to it).
    package static var markdown: String {
        var lines = ["| command | what it does |", "| --- | --- |"]
        for command in all { lines.append("| `facecrop \(command.name)` | \(command.summary) (`facecrop \(command.name) --help`) |") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--help`'s list: a line each.
    package static var helpLines: [String] {
        let width = all.map(\.name.count).max() ?? 0
        return ["Commands (each has its own --help):"]
            + all.map { "  facecrop " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.summary }
    }
}
