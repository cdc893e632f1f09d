import Foundation
import FaceCropCurate

/// What a person says about the people of a dataset, one statement a line
/// of `people.txt`. A face is named as `rejections.txt` names it: the
/// photo's content hash and the face's box in upright photo pixels (a
/// `Rejection`, matched loosely by `Rejection.matches`), so a statement
/// holds whatever the dataset's paths, crop names, shards or person ids.
public struct PeopleStatement: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `alice = F`: the face's group is alice (and so is the face).
        case nameGroup(String)
        /// `alice: F`: this face is alice (must-link), its group keeps its own.
        case nameFace(String)
        /// `not alice: F`: this face is not alice (cannot-link), on every run.
        case notPerson(String)
        /// `ignore = F`: the face's group is no one: its faces keep their
        /// crops and get no person.
        case ignoreGroup
        /// `ignore: F`: this face gets no person.
        case ignoreFace
    }

    public var kind: Kind
    public var face: Rejection
    /// 1-based line in the file, for messages.
    public var line: Int

    public init(_ kind: Kind, face: Rejection, line: Int = 0) {
        self.kind = kind
        self.face = face
        self.line = line
    }

    /// The statement as facecrop writes it (without its comment).
    public var text: String {
        switch kind {
        case .nameGroup(let name): "\(PeopleName.written(name)) = \(face)"
        case .nameFace(let name): "\(PeopleName.written(name)): \(face)"
        case .notPerson(let name): "\(PeopleFile.notWord) \(PeopleName.written(name)): \(face)"
        case .ignoreGroup: "\(PeopleFile.ignoreWord) = \(face)"
        case .ignoreFace: "\(PeopleFile.ignoreWord): \(face)"
        }
    }

    /// The statement's line as facecrop writes it, with `note` (e.g. the
    /// photo and face, `Rejection.note`) as its comment.
    package func line(note: String) -> String {
        let comment = note.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        return comment.isEmpty ? text : "\(text)  # \(comment)"
    }
}

/// The people file: plain text beside the photos (or in the dataset), meant
/// for version control and review, one statement a line:
///
///     # family, named by hand
///     alice = 3f2a…e9 1204,830,412,412       # trip/IMG_1.jpg face 0
///     alice = 77c0…1b 310,92,180,180         # 2019/IMG_7.jpg face 1  (merges its group into alice)
///     bob: 0d4e…a2 40,60,120,120             # this face is bob
///     not alice: 9b13…4c 800,210,150,150     # and this one is not alice
///     ignore = 5e61…07 12,400,60,60          # strangers in the background
///
/// `NAME = FACE` names the face's group, `NAME: FACE` puts the one face in
/// NAME, `not NAME: FACE` takes it out of NAME for good, `ignore = FACE` and
/// `ignore: FACE` give the group or the face no person. FACE is a photo's
/// SHA-256 and a box `x,y,w,h`, as in rejections.txt. `#` starts a comment.
/// A name that is not plain is written in double quotes
/// (`"Smith, John" = FACE`, `not "Anna (Mom)": FACE`; `PeopleName`), where
/// a `#` is part of the name.
/// The lines are kept verbatim: adding statements appends lines and never
/// rewrites, reorders or drops one a person wrote, and a statement whose
/// face is gone from the dataset stays in the file.
public struct PeopleFile: CurationFile, Sendable, Equatable {
    public static let defaultName = "people.txt"
    /// The subject that means "no one".
    package static let ignoreWord = "ignore"
    package static let notWord = "not"

    /// Every line, as read (without line ends).
    public private(set) var lines: [String] = []
    public private(set) var statements: [PeopleStatement] = []

    public init() {}

    /// Reads the file's text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(PeopleFileError) -> PeopleFile {
        var result = PeopleFile()
        for (index, line) in lines(of: text).enumerated() {
            if let statement = try statement(in: line, file: file, number: index + 1) {
                result.statements.append(statement)
            }
            result.lines.append(line)
        }
        return result
    }

    /// The statement on one line, nil for a blank or comment line.
    package static func statement(in line: String, file: String, number: Int) throws(PeopleFileError) -> PeopleStatement? {
        guard let parts = try parts(of: line, file: file, number: number) else { return nil }
        let parsed: Rejection?
        do throws(RejectionsError) {
            parsed = try RejectionsFile.entry(in: String(parts.face), file: file, number: number)
        } catch {
            throw PeopleFileError(file: file, line: number, reason: error.reason)
        }
        guard let face = parsed else {
            throw PeopleFileError(file: file, line: number, reason: "\(shape): the face after '\(parts.group ? "=" : ":")' is missing")
        }
        let kind: PeopleStatement.Kind =
            switch (parts.subject == ignoreWord && !parts.quoted, parts.group, parts.negated) {
            case (true, true, _): .ignoreGroup
            case (true, false, _): .ignoreFace
            case (false, true, _): .nameGroup(parts.subject)
            case (false, false, true): .notPerson(parts.subject)
            case (false, false, false): .nameFace(parts.subject)
            }
        return PeopleStatement(kind, face: face, line: number)
    }

    private static let shape =
        "expected 'NAME = FACE', 'NAME: FACE', 'not NAME: FACE', 'ignore = FACE' or 'ignore: FACE' (FACE: '<sha256> <x>,<y>,<w>,<h>')"

    /// A statement's line taken apart: its subject (a name, or `ignore`
    /// when not quoted), where the subject is written on the line (quotes
    /// included), `=` or `:`, `not`, and the text of its face. Nil for a
    /// blank or comment line.
    package static func parts(of line: String, file: String, number: Int) throws(PeopleFileError) -> (
        subject: String, quoted: Bool, span: Range<String.Index>, group: Bool, negated: Bool, face: Substring
    )? {
        let content = Self.content(of: line)
        if content.isEmpty { return nil }
        func fail(_ reason: String) -> PeopleFileError { PeopleFileError(file: file, line: number, reason: reason) }
        func skipSpaces(_ text: Substring) -> Substring { text.drop { $0 == " " || $0 == "\t" } }
        // `not "NAME": FACE` and `"NAME" = FACE`: the name in quotes.
        var rest = content
        var negated = false
        if content.hasPrefix(notWord), content.dropFirst(notWord.count).first.map({ $0 == " " || $0 == "\t" }) == true,
            skipSpaces(content.dropFirst(notWord.count)).first == "\""
        {
            negated = true
            rest = skipSpaces(content.dropFirst(notWord.count))
        }
        if rest.first == "\"" {
            let name: String
            let end: String.Index
            do throws(PeopleName.NameSyntax) {
                (name, end) = try PeopleName.unquote(rest)
            } catch {
                throw fail(error.reason)
            }
            let after = skipSpaces(rest[end...])
            guard let mark = after.first, mark == "=" || mark == ":" else { throw fail("\(shape), got '\(content)'") }
            let group = mark == "="
            if negated, group {
                throw fail("'not' takes ':' (not \(PeopleName.quoted(name)): FACE): a group cannot be taken out of a person, only a face")
            }
            if let problem = PeopleName.problem(name) { throw fail(problem) }
            return (name, true, rest.startIndex..<end, group, negated, after.dropFirst())
        }
        // `NAME = FACE`, `not NAME: FACE`: a plain name.
        guard let mark = content.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
            throw fail("\(shape), got '\(content)'")
        }
        let group = content[mark] == "="
        var subject = content[..<mark]
        while let last = subject.last, last == " " || last == "\t" { subject = subject.dropLast() }
        if subject.hasPrefix(notWord + " ") || subject.hasPrefix(notWord + "\t") {
            negated = true
            subject = skipSpaces(subject.dropFirst(notWord.count))
            if group { throw fail("'not' takes ':' (not \(subject): FACE): a group cannot be taken out of a person, only a face") }
        }
        let name = String(subject)
        if name.isEmpty { throw fail("\(shape): the name before '\(content[mark])' is missing") }
        if !(name == ignoreWord && !negated), let problem = PeopleName.plainProblem(name) {
            let hint = PeopleName.problem(name) == nil && !PeopleName.words.contains(name) ? ": write it in double quotes, \(PeopleName.quoted(name))" : ""
            throw fail(problem + hint)
        }
        return (name, false, subject.startIndex..<subject.endIndex, group, negated, content[content.index(after: mark)...])
    }

    /// Where each statement's name lies on its line (0-based line index, the
    /// name, the text before and after it, quotes included), so that a page
    /// can rename a person by rewriting only the name (`PeopleName.written`)
    /// and keep the rest of the line, its comment included. `ignore`
    /// statements name no one and are left out.
    package var nameSpans: [(index: Int, name: String, prefix: String, suffix: String)] {
        statements.compactMap { statement in
            switch statement.kind {
            case .ignoreGroup, .ignoreFace: return nil
            case .nameGroup(let name), .nameFace(let name), .notPerson(let name):
                let line = lines[statement.line - 1]
                guard let parts = try? Self.parts(of: line, file: "", number: 0) else { return nil }
                return (statement.line - 1, name, String(line[..<parts.span.lowerBound]), String(line[parts.span.upperBound...]))
            }
        }
    }

    /// Appends each statement not already in the file, each line with its
    /// note as a comment. Returns how many were added.
    @discardableResult
    public mutating func add(_ new: [(PeopleStatement, note: String)]) -> Int {
        var added = 0
        for (statement, note) in new where !statements.contains(where: { $0.kind == statement.kind && $0.face == statement.face }) {
            var placed = statement
            placed.line = lines.count + 1
            lines.append(statement.line(note: note))
            statements.append(placed)
            added += 1
        }
        return added
    }

    /// The file's text: every line, each ended by a newline.
    public var text: String { lines.map { $0 + "\n" }.joined() }
}
