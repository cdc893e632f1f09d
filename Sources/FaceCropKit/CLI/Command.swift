import CVipsShim
import Foundation
import FaceCropCore
import FaceCropDetect
import FaceCropCurate
import FaceCropPeople
import FaceCropPick

/// The whole command: parse, set up, run, report. `main.swift` only wires
/// signals to `stop` and exits with the status this returns.
public enum FaceCropCommand {
    public static func run(arguments: [String], stop: StopRequest, temporaries: TemporaryFiles) async -> Int32 {

        if let name = arguments.first, let command = Commands.named(name) {
            return await command.run(Array(arguments.dropFirst()), stop, temporaries)
        }
        if let message = misspeltCommand(arguments) {
            return ArgumentReader.usageError(message, usage: OptionTable.usage)
        }
        let options: Options
        do {
            options = try OptionTable.parse(arguments)
        } catch {
            return ArgumentReader.usageError(error.description, usage: OptionTable.usage)
        }
        if options.showHelp {
            Terminal.stdout(OptionTable.help)
            return ExitStatus.success
        }
        if options.showVersion {
            Terminal.stdout("facecrop \(Options.version)\n")
            return ExitStatus.success
        }
        if options.showManual {
            Terminal.stdout(Manual.page)
            return ExitStatus.success
        }
        if let shell = options.completions {
            Terminal.stdout(Manual.completions(shell))
            return ExitStatus.success
        }
        do {
            return try await execute(options, stop: stop, temporaries: temporaries)
        } catch .usage(let message) {
            return ArgumentReader.usageError(message, usage: OptionTable.usage)
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    /// A first argument that is no file or folder but nearly a subcommand's
    /// name (`facecrop peple faces`): the usage error that offers the command,
    /// instead of reading it as a missing photo folder.
    private static func misspeltCommand(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !first.contains("/"),
            !FileManager.default.fileExists(atPath: first)
        else { return nil }
        let near = Suggestion.nearest(to: first, among: Commands.all.map(\.name)).map { "'facecrop \($0)'" }
        guard let last = near.last else { return nil }
        let list = near.count == 1 ? last : near.dropLast().joined(separator: ", ") + " or " + last
        return "'\(first)' is neither a photo folder nor a command; did you mean \(list)?"
    }

    /// glibc's defaults suit long-lived servers, not a worker that decodes a
    /// 36 MB image, frees it and decodes the next: its mmap threshold grows
    /// after each large free, so later large buffers land on the heap and are
    /// not given back, and every thread gets its own arena. Measured on 12 MP
    /// HEIC photos with --jobs 2: peak RSS 336 MB with the defaults, 257 MB
    /// with a fixed 1 MB threshold and two arenas (docs/measurements.md, Performance).
    public static func tuneMemory() {
        CVipsShim_TuneMalloc(1 << 20, 2)
    }
}
