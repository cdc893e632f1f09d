/// A subcommand read against its own table of options (`reject`, `people`,
/// `pick`, `merge`): its usage line, `--help`'s paragraph between the usage
/// line and the options, and the options. `main` reads its arguments, the
/// same way for each, and hands the settings to the subcommand.
package protocol Subcommand {
    associatedtype Settings: SubcommandSettings
    static var usage: String { get }
    static var about: [String] { get }
    static var options: [OptionSpec<Settings>] { get }
}

/// A subcommand's settings: empty, then filled in by its options.
package protocol SubcommandSettings: Sendable {
    init()
    /// `-q` or `--quiet` was given.
    var quiet: Bool { get set }
    /// `-h` or `--help` was given.
    var showHelp: Bool { get set }
}

/// The options every subcommand has, worded the same in each.
extension OptionSpec where Settings: SubcommandSettings {
    package static var quiet: Self { .flag(["-q", "--quiet"], "No summary line; errors are still printed.") { $0.quiet = true } }
    package static var help: Self { .flag(["-h", "--help"], "Show this help.") { $0.showHelp = true } }
}

extension Subcommand {
    /// Reads `arguments` into new settings (every argument that is not an
    /// option is appended to `operands`) and returns what `body` returns for
    /// them; or reports a usage error, or prints `--help` (the usage,
    /// `about` and the options), and returns the status to exit with.
    package static func main(
        _ arguments: [String], operands: WritableKeyPath<Settings, [String]>, _ body: (Settings) async -> Int32
    ) async -> Int32 {
        var settings = Settings()
        do {
            _ = try ArgumentReader.read(arguments, table: options, into: &settings) { $0[keyPath: operands].append($1) }
        } catch {
            return ArgumentReader.usageError(error.description, usage: usage)
        }
        guard settings.showHelp else { return await body(settings) }
        Terminal.stdout(([usage, ""] + about + ["", "Options:"] + ArgumentReader.helpLines(options)).joined(separator: "\n") + "\n")
        return ExitStatus.success
    }
}
