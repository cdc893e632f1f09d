import Foundation

/// One command-line option of a command whose settings are `Settings`
/// (`Options` for a run, `MergeCommand.Settings` for `merge`): its names,
/// value, help, and what it does. A command's parser, `--help` (and for a
/// run the man page, completions, config files and the documentation check) all come
/// from its table of these.
package struct OptionSpec<Settings>: Sendable {
    package let names: [String]
    /// The value's name in help (`nil`: a flag without a value).
    package let value: String?
    package let help: String
    package let apply: @Sendable (inout Settings, String) throws -> Void
    /// Whether each use adds a value (`--include`) rather than replacing it.
    package var repeatable = false
    /// Whether the option only means something when clips are written.
    package var clipOnly = false
    /// Whether the option may only be given on the command line, not in a
    /// `--config` file.
    package var commandLineOnly = false
    /// An option whose value may be left out (`--align`, `--dedup`): what
    /// the option alone applies. A value is then given attached
    /// (`--dedup=10`), or as the next argument only when that is one of the
    /// `choices` (`--align ffhq`), so a folder after it is never taken.
    package var omitted: String?

    /// The values `value` lists as `a|b|c` (empty for a free value such as `N`).
    package var choices: [String] {
        guard let value, value.contains("|") else { return [] }
        return value.split(separator: "|").map(String.init)
    }

    /// The value as help shows it after the names: ` VALUE`, ` [a|b|c]`
    /// or `[=N]` when it may be left out.
    package var shownValue: String? {
        guard let value else { return nil }
        guard omitted != nil else { return " " + value }
        return choices.isEmpty ? "[=\(value)]" : " [\(value)]"
    }

    /// The names and value as `--help` and the manual (docs/manual.md) show them.
    package var label: String { names.joined(separator: ", ") + (shownValue ?? "") }

    package func repeated() -> Self { with { $0.repeatable = true } }
    package func forClips() -> Self { with { $0.clipOnly = true } }
    package func onlyOnCommandLine() -> Self { with { $0.commandLineOnly = true } }
    package func valueOptional(meaning omitted: String) -> Self { with { $0.omitted = omitted } }

    private func with(_ change: (inout Self) -> Void) -> Self {
        var spec = self
        change(&spec)
        return spec
    }

    package static func flag(_ names: [String], _ help: String, _ set: @escaping @Sendable (inout Settings) -> Void) -> Self {
        Self(names: names, value: nil, help: help) { settings, _ in set(&settings) }
    }

    package static func value(
        _ names: [String], _ value: String, _ help: String,
        _ apply: @escaping @Sendable (inout Settings, String) throws -> Void
    ) -> Self {
        Self(names: names, value: value, help: help, apply: apply)
    }
}

/// Reads arguments against a table of options: `--name value`,
/// `--name=value`, flags, `--` before arguments that start with '-', and
/// '-' alone as an argument.
package enum ArgumentReader {
    /// Applies every option in `arguments` to `settings` and hands every other
    /// argument to `positional`. Returns the option names given, in order.
    package static func read<Settings>(
        _ arguments: [String], table: [OptionSpec<Settings>], into settings: inout Settings,
        positional: (inout Settings, String) -> Void
    ) throws(FaceCropError) -> [String] {
        var given: [String] = []
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || argument == "-" || !argument.hasPrefix("-") {
                positional(&settings, argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = argument
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            }
            guard let spec = table.first(where: { $0.names.contains(name) }) else {
                throw .usage("unknown option '\(name)'" + Suggestion.clause(for: name, among: table.flatMap(\.names)))
            }
            given.append(name)
            if spec.value == nil {
                if attached != nil { throw .usage("option '\(name)' takes no value") }
                try apply(spec, &settings, attached ?? "")
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else if let omitted = spec.omitted {
                if index < arguments.count, spec.choices.contains(arguments[index]) {
                    value = arguments[index]
                    index += 1
                } else {
                    value = omitted
                }
            } else {
                guard index < arguments.count else { throw .usage("missing value for '\(name)'") }
                value = arguments[index]
                index += 1
            }
            try apply(spec, &settings, value)
        }
        return given
    }

    /// Runs the option's action; anything it throws is a usage error.
    package static func apply<Settings>(_ spec: OptionSpec<Settings>, _ settings: inout Settings, _ value: String)
        throws(FaceCropError)
    {
        do {
            try spec.apply(&settings, value)
        } catch let error as FaceCropError {
            throw error
        } catch {
            throw .usage("\(error)")
        }
    }

    /// The "Options:" lines of `--help`: each label, then its help in a column.
    package static func helpLines<Settings>(_ table: [OptionSpec<Settings>]) -> [String] {
        let labels = table.map(\.label)
        let width = min(28, labels.map(\.count).max() ?? 0)
        var lines: [String] = []
        for (spec, label) in zip(table, labels) {
            if label.count > width {
                lines.append("  \(label)")
                lines.append("  " + String(repeating: " ", count: width) + "  " + spec.help)
            } else {
                lines.append("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + spec.help)
            }
        }
        return lines
    }

    /// Prints a usage error the way every facecrop command does (the message,
    /// the command's usage line, where to get help) and returns its status.
    package static func usageError(_ message: String, usage: String) -> Int32 {
        Terminal.stderr("Error: \(message)\n\(usage)\nSee 'facecrop --help' for more information.\n")
        return ExitStatus.usage
    }
}

/// Option values read from text, with the usage error that names the option.
package enum OptionValue {
    package static func int(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(FaceCropError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw .usage("'\(name)' needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    package static func double(_ text: String, _ name: String, _ range: ClosedRange<Double>) throws(FaceCropError) -> Double {
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .usage("'\(name)' needs a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    package static func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ name: String) throws(FaceCropError) -> T
    where T.RawValue == String {
        guard let value = T(rawValue: text.lowercased()) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw .usage("'\(name)' must be one of \(names), not '\(text)'")
        }
        return value
    }
}
