import Foundation
import FaceCropCore

/// A line of a curation file (rejections.txt, people.txt) that could not be
/// read, or the file itself.
public struct CurationFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when the file as a whole could not be read or written.
    public var line: Int
    public var reason: String

    public var description: String {
        line > 0 ? "'\(file)' line \(line): \(reason)" : "'\(file)': \(reason)"
    }

    package init(file: String, line: Int, reason: String) {
        (self.file, self.line, self.reason) = (file, line, reason)
    }
}

public typealias RejectionsError = CurationFileError
public typealias PeopleFileError = CurationFileError

/// A plain-text file a person keeps beside the photos, one entry a line,
/// whose lines facecrop keeps verbatim and only appends to: rejections.txt
/// and people.txt. They share how the file is read, split into lines and
/// written; each reads its own lines.
package protocol CurationFile {
    associatedtype Entry
    init()
    /// The file's text, `file` naming it in errors.
    static func parse(_ text: String, file: String) throws(CurationFileError) -> Self
    /// Appends a line for each entry not already there, with its note as a
    /// comment; returns how many were added.
    mutating func add(_ entries: [(Entry, note: String)]) -> Int
    /// Every line, each ended by a newline.
    var text: String { get }
}

extension CurationFile {
    /// The file at `path`; an empty one when there is none.
    package static func load(path: String) throws(CurationFileError) -> Self {
        guard FileManager.default.fileExists(atPath: path) else { return Self() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CurationFileError(file: path, line: 0, reason: "cannot read file: \(systemError(errno))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CurationFileError(file: path, line: 0, reason: "not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Writes the file at `path` under a temporary name beside it (the file
    /// may lie on another file system, with the photos), then renames it into
    /// place: a reader sees the old file or the new one.
    package func save(path: String, temporaries: TemporaryFiles) throws(CurationFileError) {
        do throws(WriteFailure) {
            try AtomicFile.write(Array(text.utf8), beside: path, temporaries: temporaries)
        } catch {
            throw CurationFileError(file: path, line: 0, reason: "cannot write file: \(error.reason)")
        }
    }

    /// A line without its comment: the text before the first `#` that is not
    /// in double quotes (people.txt quotes names; in quotes `\"` and `\\`
    /// are a quote and a backslash), without the white space at its ends.
    /// A quote left open runs to the line's end.
    package static func content(of line: String) -> Substring {
        var quoted = false
        var escaped = false
        var end = line.endIndex
        for index in line.indices {
            let character = line[index]
            if escaped {
                escaped = false
            } else if quoted {
                if character == "\\" { escaped = true } else if character == "\"" { quoted = false }
            } else if character == "\"" {
                quoted = true
            } else if character == "#" {
                end = index
                break
            }
        }
        var content = line[..<end]
        while let first = content.first, first == " " || first == "\t" { content = content.dropFirst() }
        while let last = content.last, last == " " || last == "\t" { content = content.dropLast() }
        return content
    }

    /// `text`'s lines without their ends (`\n` or `\r\n`); a last line end
    /// makes no empty line.
    package static func lines(of text: String) -> [String] {
        // By scalars: "\r\n" is one Character, which a split on "\n" passes by.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
            String(String.UnicodeScalarView($0.last == "\r" ? $0.dropLast() : $0[...]))
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// What `facecrop reject` and `facecrop people --name/--add/--not/--ignore`
/// share: the crops named after the dataset become faces, and a line for each
/// is appended to the curation file.
package enum CurationCommand {
    /// Appends an entry (made by `entry` from each face) for the crops named in
    /// `operands` (the dataset, then crops) to `File` at `file` (default:
    /// `defaultName` in the dataset). Prints `added N <noun>s to '…'; <then>`
    /// unless `quiet`; returns the exit status.
    package static func append<File: CurationFile>(
        _: File.Type, operands: [String], file: String?, defaultName: String, quiet: Bool, temporaries: TemporaryFiles,
        words: (command: String, noun: String, then: String, usage: String),
        entry: (Rejection) -> File.Entry
    ) -> Int32 {
        guard operands.count >= 2 else {
            let message = "\(words.command) needs a dataset folder and at least one crop: a crop file or its number (60 or '#60'; "
                + "an unquoted #60 starts a shell comment, so the shell drops it)"
            return ArgumentReader.usageError(message, usage: words.usage)
        }
        let dataset = operands[0]
        let path = file ?? (dataset as NSString).appendingPathComponent(defaultName)
        let faces: [(File.Entry, note: String)]
        do throws(FaceCropError) {
            let crops = try DatasetCrops(dataset: dataset)
            faces = try operands.dropFirst().map { argument throws(FaceCropError) in
                let face = try crops.face(argument)
                return (entry(face.rejection), face.note)
            }
        } catch {
            if case .usage(let text) = error { return ArgumentReader.usageError(text, usage: words.usage) }
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
        do throws(CurationFileError) {
            var curation = try File.load(path: path)
            let added = curation.add(faces)
            if added > 0 { try curation.save(path: path, temporaries: temporaries) }
            if !quiet {
                Terminal.stderr("facecrop: added \(added) \(words.noun)\(added == 1 ? "" : "s") to '\(path)'; \(words.then)\n")
            }
            return ExitStatus.success
        } catch {
            if error.line > 0 { return ArgumentReader.usageError(error.description, usage: words.usage) }
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return ExitStatus.cannotCreate
        }
    }
}
