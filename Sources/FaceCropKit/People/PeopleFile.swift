import Foundation

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
        case .nameGroup(let name): "\(name) = \(face)"
        case .nameFace(let name): "\(name): \(face)"
        case .notPerson(let name): "not \(name): \(face)"
        case .ignoreGroup: "\(PeopleFile.ignoreWord) = \(face)"
        case .ignoreFace: "\(PeopleFile.ignoreWord): \(face)"
        }
    }

    /// The statement's line as facecrop writes it, with `note` (e.g. the
    /// photo and face, `Rejection.note`) as its comment.
    func line(note: String) -> String {
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
/// The lines are kept verbatim: adding statements appends lines and never
/// rewrites, reorders or drops one a person wrote, and a statement whose
/// face is gone from the dataset stays in the file.
public struct PeopleFile: CurationFile, Sendable, Equatable {
    public static let defaultName = "people.txt"
    /// The subject that means "no one".
    static let ignoreWord = "ignore"
    static let notWord = "not"
    static let maxNameLength = 64

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
    static func statement(in line: String, file: String, number: Int) throws(PeopleFileError) -> PeopleStatement? {
        let content = (line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces)
        if content.isEmpty { return nil }
        func fail(_ reason: String) -> PeopleFileError { PeopleFileError(file: file, line: number, reason: reason) }
        let shape = "expected 'NAME = FACE', 'NAME: FACE', 'not NAME: FACE', 'ignore = FACE' or 'ignore: FACE' (FACE: '<sha256> <x>,<y>,<w>,<h>')"
        guard let mark = content.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
            throw fail("\(shape), got '\(content)'")
        }
        let group = content[mark] == "="
        var subject = content[..<mark].trimmingCharacters(in: .whitespaces)
        let facePart = String(content[content.index(after: mark)...])
        var negated = false
        if subject.hasPrefix(notWord + " ") || subject.hasPrefix(notWord + "\t") {
            negated = true
            subject = String(subject.dropFirst(notWord.count)).trimmingCharacters(in: .whitespaces)
            if group { throw fail("'not' takes ':' (not \(subject): FACE): a group cannot be taken out of a person, only a face") }
        }
        if subject.isEmpty { throw fail("\(shape): the name before '\(content[mark])' is missing") }
        if let problem = nameProblem(subject, allowIgnore: !negated) { throw fail(problem) }
        let parsed: Rejection?
        do throws(RejectionsError) {
            parsed = try RejectionsFile.entry(in: facePart, file: file, number: number)
        } catch {
            throw fail(error.reason)
        }
        guard let face = parsed else { throw fail("\(shape): the face after '\(content[mark])' is missing") }
        let kind: PeopleStatement.Kind =
            switch (subject == ignoreWord, group, negated) {
            case (true, true, _): .ignoreGroup
            case (true, false, _): .ignoreFace
            case (false, true, _): .nameGroup(subject)
            case (false, false, true): .notPerson(subject)
            case (false, false, false): .nameFace(subject)
            }
        return PeopleStatement(kind, face: face, line: number)
    }

    /// Why `name` cannot name a person (nil: it can). A name is what the
    /// manifest's `person`, the split folders and `--keep-person` carry: up
    /// to 64 letters, digits, spaces, `-`, `_`, `.` and `'`, starting with a
    /// letter or digit. `not` and `ignore` are words of the file.
    static func nameProblem(_ name: String, allowIgnore: Bool = true) -> String? {
        guard let first = name.unicodeScalars.first else { return "a person's name is empty" }
        if name == notWord || (name == ignoreWord && !allowIgnore) {
            return "'\(name)' is a word of the people file, not a name"
        }
        if name.count > maxNameLength { return "the name '\(name)' is longer than \(maxNameLength) characters" }
        guard CharacterSet.alphanumerics.contains(first) else {
            return "the name '\(name)' must start with a letter or digit"
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: " -_.'"))
        if let bad = name.unicodeScalars.first(where: { !allowed.contains($0) }) {
            return "the name '\(name)' holds '\(bad)': names are letters, digits, spaces, '-', '_', '.' and \"'\""
        }
        if name.hasSuffix(" ") || name.contains("  ") { return "the name '\(name)' has stray spaces" }
        return nil
    }

    /// Where each statement's name lies on its line (0-based line index, the
    /// name, the text before and after it), so that a page can rename a
    /// person by rewriting only the name and keep the rest of the line, its
    /// comment included. `ignore` statements name no one and are left out.
    var nameSpans: [(index: Int, name: String, prefix: String, suffix: String)] {
        statements.compactMap { statement in
            switch statement.kind {
            case .ignoreGroup, .ignoreFace: return nil
            case .nameGroup(let name), .nameFace(let name), .notPerson(let name):
                let line = lines[statement.line - 1]
                guard let mark = line.firstIndex(where: { $0 == "=" || $0 == ":" }) else { return nil }
                var start = line.startIndex
                while start < mark, line[start] == " " || line[start] == "\t" { start = line.index(after: start) }
                if case .notPerson = statement.kind {
                    start = line.index(start, offsetBy: Self.notWord.count)
                    while start < mark, line[start] == " " || line[start] == "\t" { start = line.index(after: start) }
                }
                guard let range = line.range(of: name, range: start..<mark) else { return nil }
                return (statement.line - 1, name, String(line[..<range.lowerBound]), String(line[range.upperBound...]))
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
