import Foundation

/// One photo to process.
public struct Photo: Sendable, Equatable {
    /// Which input (0-based, in command-line order) it was found under.
    public var input: Int
    /// Its path relative to that input folder (for a file input: its name).
    public var source: String
    /// Where to open it.
    public var path: String
    /// Its crops' path prefix relative to `-o`: the input's label, then `source`.
    public var outputPrefix: String
    /// The input's label ("" with a single input).
    public var label: String = ""
    /// Size in bytes and modification time (ns) when found, to recognise it on a rerun.
    public var size: Int = 0
    public var modified: Int = 0

    mutating func noteFile(_ info: stat) {
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    }
}

/// A file or folder the walk could not use; it becomes an error line.
public struct FindProblem: Sendable, Equatable {
    public var input: Int
    public var label: String
    public var source: String
    public var reason: String
}

/// Enumerates photos under the inputs: recursive, sorted, hidden names and
/// the output folder skipped, symbolic links skipped unless followed.
public struct PhotoFinder: Sendable {
    public static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "avif"]

    var include: [String]
    var exclude: [String]
    var followLinks: Bool
    /// The output folder's identity, so a walk never descends into it.
    var outputIdentity: FileIdentity?

    public init(include: [String], exclude: [String], followLinks: Bool, output: String?) {
        self.include = include
        self.exclude = exclude
        self.followLinks = followLinks
        self.outputIdentity = output.flatMap { FileIdentity(path: $0, follow: true) }
    }

    public struct Found: Sendable {
        public var photos: [Photo] = []
        public var problems: [FindProblem] = []
        /// Labels the crops of each input go under (empty with one input).
        public var labels: [String] = []
    }

    /// Walks every input. An input that doesn't exist throws; anything wrong
    /// inside a folder becomes a problem and the walk goes on.
    public func find(_ inputs: [String]) throws(FaceCropError) -> Found {
        var found = Found()
        found.labels = Self.labels(for: inputs)
        for (number, input) in inputs.enumerated() {
            var info = stat()
            guard stat(input, &info) == 0 else {
                throw .inputMissing(input, reason: systemError(errno))
            }
            let prefix = found.labels[number]
            if (info.st_mode & S_IFMT) == S_IFDIR {
                var visiting: Set<FileIdentity> = [FileIdentity(info)]
                walk(folder: input, relative: "", input: number, prefix: prefix, visiting: &visiting, into: &found)
            } else {
                let name = (input as NSString).lastPathComponent
                guard Self.isPhotoName(name) else {
                    found.problems.append(FindProblem(input: number, label: prefix, source: name, reason: "not a photo file name (\(Self.extensionList))"))
                    continue
                }
                var photo = Photo(input: number, source: name, path: input, outputPrefix: Self.join(prefix, name), label: prefix)
                photo.noteFile(info)
                found.photos.append(photo)
            }
        }
        found.photos.sort { Self.precedes(($0.input, $0.source), ($1.input, $1.source)) }
        found.problems.sort { Self.precedes(($0.input, $0.source), ($1.input, $1.source)) }
        return found
    }

    private func walk(
        folder: String, relative: String, input: Int, prefix: String, visiting: inout Set<FileIdentity>,
        into found: inout Found
    ) {
        guard let directory = opendir(folder) else {
            found.problems.append(FindProblem(input: input, label: prefix, source: relative.isEmpty ? "." : relative, reason: "cannot read folder: \(systemError(errno))"))
            return
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                raw.prefix(while: { $0 != 0 })
            }
            if name.first == UInt8(ascii: ".") { continue }  // hidden, ".", ".."
            guard let text = String(validating: name, as: UTF8.self) else {
                let shown = String(decoding: name, as: UTF8.self)
                found.problems.append(FindProblem(input: input, label: prefix, source: Self.join(relative, shown), reason: "file name is not valid UTF-8; rename it to include it"))
                continue
            }
            names.append(text)
        }
        closedir(directory)
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }

        for name in names {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            let rel = Self.join(relative, name)
            if isExcluded(name: name, relative: rel) { continue }
            var info = stat()
            guard lstat(path, &info) == 0 else {
                found.problems.append(FindProblem(input: input, label: prefix, source: rel, reason: "cannot read: \(systemError(errno))"))
                continue
            }
            if (info.st_mode & S_IFMT) == S_IFLNK {
                guard followLinks else { continue }
                guard stat(path, &info) == 0 else {
                    found.problems.append(FindProblem(input: input, label: prefix, source: rel, reason: "broken symbolic link: \(systemError(errno))"))
                    continue
                }
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                let identity = FileIdentity(info)
                if identity == outputIdentity { continue }
                if visiting.contains(identity) {
                    found.problems.append(FindProblem(input: input, label: prefix, source: rel, reason: "symbolic link loop; skipped"))
                    continue
                }
                visiting.insert(identity)
                walk(folder: path, relative: rel, input: input, prefix: prefix, visiting: &visiting, into: &found)
                visiting.remove(identity)
            case S_IFREG:
                guard Self.isPhotoName(name), isIncluded(name: name, relative: rel) else { continue }
                var photo = Photo(input: input, source: rel, path: path, outputPrefix: Self.join(prefix, rel), label: prefix)
                photo.noteFile(info)
                found.photos.append(photo)
            default:
                continue
            }
        }
    }

    /// Manifest order: by input, then by source path byte by byte (stable
    /// whatever the locale or Unicode normalisation).
    static func precedes(_ a: (Int, String), _ b: (Int, String)) -> Bool {
        if a.0 != b.0 { return a.0 < b.0 }
        return a.1.utf8.lexicographicallyPrecedes(b.1.utf8)
    }

    static var extensionList: String { extensions.sorted().map { "." + $0 }.joined(separator: " ") }

    static func isPhotoName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    private func isIncluded(name: String, relative: String) -> Bool {
        include.isEmpty || include.contains { Self.glob($0, name: name, relative: relative) }
    }

    private func isExcluded(name: String, relative: String) -> Bool {
        exclude.contains { Self.glob($0, name: name, relative: relative) }
    }

    /// A pattern with '/' matches the relative path, one without matches the name.
    static func glob(_ pattern: String, name: String, relative: String) -> Bool {
        fnmatch(pattern, pattern.contains("/") ? relative : name, 0) == 0
    }

    static func join(_ base: String, _ name: String) -> String {
        base.isEmpty ? name : base + "/" + name
    }

    /// With one input, crops go straight under `-o`; with several, each input's
    /// crops go under its own folder name (made unique with "-2", "-3", ...).
    static func labels(for inputs: [String]) -> [String] {
        guard inputs.count > 1 else { return inputs.map { _ in "" } }
        var used: Set<String> = []
        return inputs.map { input in
            var base = (input as NSString).standardizingPath
            base = (base as NSString).lastPathComponent
            if base.isEmpty || base == "/" || base == "." || base == ".." { base = "input" }
            var label = base
            var counter = 2
            while used.contains(label) {
                label = "\(base)-\(counter)"
                counter += 1
            }
            used.insert(label)
            return label
        }
    }
}

/// A file's device and inode: the same folder reached by two paths is one.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    init?(path: String, follow: Bool) {
        var info = stat()
        guard (follow ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        self.init(info)
    }
}
