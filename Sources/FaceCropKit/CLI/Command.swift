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
