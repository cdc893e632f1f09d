import Foundation
import FaceCropCore

/// A person's name: which names can name a person, and how people.txt
/// writes one. Any name can: commas, brackets, `:`, `=`, `#`, quotes, any
/// script, up to `maxLength` characters, without control characters or
/// spaces at its ends. A plain name (letters, digits, spaces, `-`, `_`,
/// `.` and `'`, starting with a letter or digit) is written as it is; any
/// other in double quotes, with `\"` for a quote and `\\` for a backslash:
///
///     alice = FACE
///     "Smith, John" = FACE
///     not "Anna (Mom)": FACE
///
/// The rule lives here once; the People page's script (`script`) is made
/// from the same constants and mirrors the two checks.
package enum PeopleName {
    /// Unicode scalars (code points) at most.
    package static let maxLength = 64
    /// The words of the file, which a plain name cannot be.
    package static let words = [PeopleFile.notWord, PeopleFile.ignoreWord]

    /// Why `name` cannot name a person (nil: it can), in any file, tag or
    /// option it comes from.
    package static func problem(_ name: String) -> String? {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return "a person's name is empty" }
        if let bad = scalars.first(where: isControl) {
            return "the name '\(shown(name))' holds the control character U+\(String(format: "%04X", bad.value))"
        }
        if scalars.count > maxLength { return "the name '\(name)' is longer than \(maxLength) characters" }
        if first.properties.isWhitespace || last.properties.isWhitespace {
            return "the name '\(name)' begins or ends with a space"
        }
        return nil
    }

    /// Why a name typed as `facecrop people --name` (or on the People page)
    /// cannot be used: `problem`, and the words of the file (`--name ignore`
    /// means `--ignore`, never a person called ignore).
    package static func typedProblem(_ name: String) -> String? {
        if words.contains(name) { return "'\(name)' is a word of the people file, not a name" }
        return problem(name)
    }

    /// Control characters and line breaks (Unicode Cc, Zl, Zp); JavaScript's
    /// `[\p{Cc}\p{Zl}\p{Zp}]`.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// The name with control characters shown as U+FFFD, for messages.
    package static func shown(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { isControl($0) ? "\u{FFFD}" : $0 }))
    }

    /// Why `name` cannot be written without quotes (nil: it can): a plain
    /// name is letters, marks, digits, spaces, `-`, `_`, `.` and `'`,
    /// starting with a letter or digit, without two spaces in a row, not a
    /// word of the file and not starting with `not `.
    package static func plainProblem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "a person's name is empty" }
        if words.contains(name) { return "'\(name)' is a word of the people file, not a name" }
        if name.unicodeScalars.count > maxLength { return "the name '\(name)' is longer than \(maxLength) characters" }
        guard CharacterSet.alphanumerics.contains(first) else { return "the name '\(name)' must start with a letter or digit" }
        if let bad = name.unicodeScalars.first(where: { !plain.contains($0) }) {
            return "the name '\(shown(name))' holds '\(shown(String(bad)))'"
        }
        if name.hasSuffix(" ") || name.contains("  ") { return "the name '\(name)' has stray spaces" }
        if name.hasPrefix(PeopleFile.notWord + " ") { return "the name '\(name)' starts with '\(PeopleFile.notWord) '" }
        return nil
    }

    /// What a plain name holds: letters, marks, digits (Unicode L, M, N;
    /// JavaScript's `\p{L}\p{M}\p{N}`) and ` -_.'`.
    private static let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: " -_.'"))

    /// The name as people.txt writes it: plain, or in quotes when it must be.
    package static func written(_ name: String) -> String {
        plainProblem(name) == nil ? name : quoted(name)
    }

    /// `name` in double quotes, `"` and `\` escaped by a backslash.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Reads a quoted name at the start of `text` (which starts with `"`):
    /// the name and where the text after its closing quote starts. Throws the
    /// reason when the quotes are not closed or hold an unknown escape.
    package static func unquote(_ text: Substring) throws(NameSyntax) -> (name: String, end: String.Index) {
        var name = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { return (name, text.index(after: index)) }
            if character == "\\" {
                let next = text.index(after: index)
                guard next < text.endIndex, text[next] == "\"" || text[next] == "\\" else {
                    throw NameSyntax(reason: "in a quoted name a backslash comes before '\"' or '\\' only")
                }
                name.append(text[next])
                index = text.index(after: next)
                continue
            }
            name.append(character)
            index = text.index(after: index)
        }
        throw NameSyntax(reason: "the quoted name has no closing '\"'")
    }

    package struct NameSyntax: Error {
        package var reason: String
    }

    /// The People page's name rule and writer, in JavaScript, from the same
    /// constants: `nameProblem(name)` (a message, or "" when it can be used,
    /// as `typedProblem`) and `written(name)` (as `written`).
    package static let script = """
        const nameWords = \(JSON.array(words.map { .string($0) }).serialized());
        const nameProblem = (name) => {
          if (name === "") return "a person's name is empty";
          if (nameWords.includes(name)) return "'" + name + "' is a word of the people file, not a name";
          if (/[\\p{Cc}\\p{Zl}\\p{Zp}]/u.test(name)) return "the name holds a control character";
          if ([...name].length > \(maxLength)) return "the name '" + name + "' is longer than \(maxLength) characters";
          if (/^\\p{White_Space}|\\p{White_Space}$/u.test(name)) return "the name '" + name + "' begins or ends with a space";
          return "";
        };
        const plainName = (name) => [...name].length <= \(maxLength) && !nameWords.includes(name)
          && /^[\\p{L}\\p{M}\\p{N}][\\p{L}\\p{M}\\p{N} _.'-]*$/u.test(name) && !/ $|  /.test(name) && !name.startsWith("\(PeopleFile.notWord) ");
        const written = (name) => plainName(name) ? name : '"' + name.replace(/[\\\\"]/g, (c) => "\\\\" + c) + '"';

        """
}
