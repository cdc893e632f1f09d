import Foundation

/// One face a person rejected: the photo's content (its SHA-256, as in the
/// manifest) and the face's box in upright, full-resolution pixels of it.
///
/// Neither depends on where the photo lies, on `--jobs`, on shards or on the
/// order photos are found; the box is matched loosely (`Rejection.minIoU`),
/// so small changes of settings that move a box by a few pixels keep it.
public struct Rejection: Sendable, Hashable, CustomStringConvertible {
    public var sha256: String
    public var box: PixelRect

    /// A face is rejected by an entry for the same photo whose box overlaps
    /// its own by at least this intersection over union. Two faces of one
    /// photo never overlap that much (detectors merge such boxes), and a box
    /// that moved or grew by a tenth of its side still does.
    public static let minIoU = 0.5

    public init(sha256: String, box: PixelRect) {
        self.sha256 = sha256.lowercased()
        self.box = box
    }

    /// Whether this entry names the face `box` of the photo hashed `sha256`.
    public func matches(sha256: String, box other: PixelRect) -> Bool {
        self.sha256 == sha256 && box.iou(other) >= Self.minIoU
    }

    /// The entry as written in the file (without its comment).
    public var description: String { "\(sha256) \(box.x),\(box.y),\(box.width),\(box.height)" }

    /// The comment facecrop writes after an entry: the photo (as the
    /// manifest's `input/source`) and the face's number.
    static func note(photo: String, face: Int) -> String { "\(photo) face \(face)" }

    /// The entry's line as facecrop writes it, with `note` as its comment
    /// (on one line) when there is one.
    func line(note: String) -> String {
        let comment = note.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        return comment.isEmpty ? description : "\(description)  # \(comment)"
    }
}

/// A line of the rejections file that could not be read.
public struct RejectionsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when the file as a whole could not be read or written.
    public var line: Int
    public var reason: String

    public var description: String {
        line > 0 ? "'\(file)' line \(line): \(reason)" : "'\(file)': \(reason)"
    }
}

/// The rejections file: plain text meant for version control beside the
/// photos, one entry a line:
///
///     # rejected by hand
///     3f2a…e9 1204,830,412,412  # trip/IMG_1.jpg face 0
///
/// An entry is the photo's SHA-256 (64 hex digits) and the face's box
/// `x,y,w,h`; `#` starts a comment, blank lines are allowed. The lines are
/// kept verbatim: adding entries appends lines and never rewrites, reorders
/// or drops one a person wrote.
public struct RejectionsFile: Sendable, Equatable {
    public static let defaultName = "rejections.txt"

    /// Every line, as read (without line ends).
    public private(set) var lines: [String]
    public private(set) var entries: [Rejection]
    private var byPhoto: [String: [PixelRect]]

    public init() {
        lines = []
        entries = []
        byPhoto = [:]
    }

    /// Reads the file's text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(RejectionsError) -> RejectionsFile {
        var result = RejectionsFile()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        if lines.last == "" { lines.removeLast() }
        for (number, line) in lines.enumerated() {
            if let entry = try entry(in: line, file: file, number: number + 1) { result.insert(entry) }
            result.lines.append(line)
        }
        return result
    }

    /// The entry on one line, nil for a blank or comment line.
    static func entry(in line: String, file: String, number: Int) throws(RejectionsError) -> Rejection? {
        let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if words.isEmpty { return nil }
        func fail(_ reason: String) -> RejectionsError { RejectionsError(file: file, line: number, reason: reason) }
        guard words.count == 2 else {
            throw fail("expected '<sha256> <x>,<y>,<w>,<h>', got '\(content.trimmingCharacters(in: .whitespaces))'")
        }
        let hash = String(words[0])
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ isHexDigit($0) }) else {
            throw fail("'\(hash)' is not a SHA-256 (64 hex digits)")
        }
        let numbers = words[1].split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let w = numbers[2], let h = numbers[3],
            x >= 0, y >= 0, w > 0, h > 0
        else {
            throw fail("'\(words[1])' is not a face box x,y,w,h (whole pixels, w and h above 0)")
        }
        return Rejection(sha256: hash, box: PixelRect(x: x, y: y, width: w, height: h))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102) || (byte >= 65 && byte <= 70)
    }

    private mutating func insert(_ entry: Rejection) {
        entries.append(entry)
        byPhoto[entry.sha256, default: []].append(entry.box)
    }

    /// Whether an entry names the face `box` of the photo hashed `sha256`.
    public func rejects(sha256: String, box: PixelRect) -> Bool {
        guard let boxes = byPhoto[sha256.lowercased()] else { return false }
        return boxes.contains { $0.iou(box) >= Rejection.minIoU }
    }

    /// Appends an entry for each face not already rejected, each line with
    /// `note` (e.g. the source and face) as its comment. Returns how many
    /// were added.
    @discardableResult
    public mutating func add(_ faces: [(rejection: Rejection, note: String)]) -> Int {
        var added = 0
        for (rejection, note) in faces where !rejects(sha256: rejection.sha256, box: rejection.box) {
            lines.append(rejection.line(note: note))
            insert(rejection)
            added += 1
        }
        return added
    }

    /// The file's text: every line, each ended by a newline.
    public var text: String { lines.map { $0 + "\n" }.joined() }

    /// The file at `path`; an empty one when there is none.
    public static func load(path: String) throws(RejectionsError) -> RejectionsFile {
        guard FileManager.default.fileExists(atPath: path) else { return RejectionsFile() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RejectionsError(file: path, line: 0, reason: "cannot read file: \(systemError(errno))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw RejectionsError(file: path, line: 0, reason: "not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Writes the file at `path` under a temporary name beside it, then
    /// renames it into place: a reader sees the old file or the new one.
    public func save(path: String, temporaries: TemporaryFiles) throws(RejectionsError) {
        // Beside it, not in the output's temporary folder: the file may lie
        // on another file system (in the photos' repository).
        let temporary = temporaries.make(beside: path)
        defer { temporaries.forget(temporary) }
        let bytes = Array(text.utf8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        var code = fd >= 0 ? bytes.withUnsafeBytes { writeFully(fd, $0) } : errno
        if fd >= 0, close(fd) != 0, code == 0 { code = errno }
        if code == 0, rename(temporary, path) != 0 { code = errno }
        guard code == 0 else {
            unlink(temporary)
            throw RejectionsError(file: path, line: 0, reason: "cannot write file: \(systemError(code))")
        }
    }
}
