import Foundation
import FaceCropCore

/// `--config FILE`: the same options as the command line, kept in a file
/// (for example next to the photos in a repository, for a CI job). Either
///
///     # facecrop.conf
///     output = dataset
///     size = 224
///     include = *.jpg
///     include = *.png
///     no-prune = true
///
/// (`name = value` lines, names as the long option without `--`, flags as
/// `name = true` or `false`, `#` comments, values optionally in quotes) or a
/// JSON object with the same names (`{"size": 224, "include": ["*.jpg"]}`).
/// Every name goes through `OptionTable.all`, so there is no second list of
/// options to keep in step. The command line is applied after the files:
/// a value given there wins; repeatable options (`--include`) add up.
package enum ConfigFile {
    private enum Value {
        case text(String)
        case flag(Bool)
    }

    package static func apply(_ path: String, to options: inout Options) throws(FaceCropError) {
        let text = try read(path)
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.first == "{" {
            try applyJSON(text, path: path, to: &options)
        } else {
            try applyLines(text, path: path, to: &options)
        }
    }

    private static func read(_ path: String) throws(FaceCropError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .usage("cannot read config file '\(path)': \(systemError(errno))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .usage("cannot read config file '\(path)': not a regular file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .usage("cannot read config file '\(path)': \(systemError(EACCES))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .usage("config file '\(path)' is not UTF-8 text")
        }
        return text
    }

    private static func applyLines(_ text: String, path: String, to options: inout Options) throws(FaceCropError) {
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r\u{FEFF}")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .usage("'\(path)' line \(number + 1): expected 'name = value', not '\(line)'")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = String(value.dropFirst().dropLast())
            }
            try entry(key, .text(value), path: path, line: number + 1, to: &options)
        }
    }

    private static func applyJSON(_ text: String, path: String, to options: inout Options) throws(FaceCropError) {
        let parsed: Any
        do throws(JSONReadingError) {
            parsed = try JSONReading.value(Data(text.utf8))
        } catch {
            throw .usage("config file '\(path)' is not valid JSON: \(error.reason)")
        }
        guard let object = parsed as? [String: Any] else {
            throw .usage("config file '\(path)' must hold one JSON object of options")
        }
        // Apply (and report) in the order the names appear in the file.
        let ordered = object.keys.map { ($0, lineNumber(of: $0, in: text)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        for (key, line) in ordered {
            let values = (object[key] as? [Any]) ?? [object[key] as Any]
            for value in values {
                switch value {
                case let text as String:
                    try entry(key, .text(text), path: path, line: line, to: &options)
                case let number as NSNumber:
                    // JSON's true/false come back as numbers of ObjC type "c".
                    let isBool = String(cString: number.objCType) == "c"
                    try entry(key, isBool ? .flag(number.boolValue) : .text(number.stringValue), path: path, line: line, to: &options)
                default:
                    throw .usage("'\(path)' line \(line): '\(key)' needs a string, number, true/false or a list of them")
                }
            }
        }
    }

    /// The line where `"key"` first appears, for messages.
    private static func lineNumber(of key: String, in text: String) -> Int {
        var quoted = ""
        JSON.quote(key, into: &quoted)
        guard let range = text.range(of: quoted) else { return 1 }
        return text[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }

    private static func entry(_ key: String, _ value: Value, path: String, line: Int, to options: inout Options)
        throws(FaceCropError)
    {
        let place = "'\(path)' line \(line)"
        let name = "--" + key
        guard !key.isEmpty, !key.hasPrefix("-"), let spec = OptionTable.spec(named: name) else {
            let known = OptionTable.all.filter { !$0.commandLineOnly }.flatMap(\.names).filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) }
            throw .usage("\(place): unknown option '\(key)'" + Suggestion.clause(for: key, among: known))
        }
        guard !spec.commandLineOnly else {
            throw .usage("\(place): '\(key)' can only be given on the command line")
        }
        if spec.value == nil || spec.omitted != nil {
            // A flag, or an option whose value may be left out: `align = true`
            // applies what the option alone means; `dedup = 10` is a value.
            let on: Bool
            switch value {
            case .flag(let flag): on = flag
            case .text(let text):
                switch text.lowercased() {
                case "true", "yes", "on", "1": on = true
                case "false", "no", "off", "0": on = false
                default:
                    guard spec.value == nil else {
                        try ArgumentReader.apply(spec, &options, text)
                        return
                    }
                    throw .usage("\(place): '\(key)' is a flag: write '\(key) = true' or '\(key) = false', not '\(text)'")
                }
            }
            if on { try ArgumentReader.apply(spec, &options, spec.omitted ?? "") }
            return
        }
        guard case .text(let text) = value else {
            throw .usage("\(place): '\(key)' needs a value (\(spec.value!)), not true/false")
        }
        do {
            try ArgumentReader.apply(spec, &options, text)
        } catch {
            throw .usage("\(place): \(error.reason)")
        }
    }
}
