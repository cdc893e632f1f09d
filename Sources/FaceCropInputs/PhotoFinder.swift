import Foundation
import FaceCropCore

/// Enumerates photos under the inputs: recursive, sorted, hidden names and
/// the output folder skipped, symbolic links skipped unless followed.
public struct PhotoFinder: Sendable {
    public static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "avif", "gif", "jxl"]

    package var include: [String]
    package var exclude: [String]
    package var followLinks: Bool
    /// `--library-edits`: edited versions instead of originals (`Libraries`).
    package var libraryEdits = false
    /// `--library-derivatives`: a Photos library's largest derivative of a
    /// photo whose original is not there.
    package var libraryDerivatives = false
    /// Whether videos are found too, and Live Photos' videos among them.
    package var videos: Bool
    package var livePhotoVideos: Bool
    /// The output folder's identity, so a walk never descends into it.
    package var outputIdentity: FileIdentity?

    public init(
        include: [String], exclude: [String], followLinks: Bool, output: String?, libraryEdits: Bool = false,
        libraryDerivatives: Bool = false, videos: Bool = false, livePhotoVideos: Bool = false
    ) {
        self.include = include
        self.exclude = exclude
        self.followLinks = followLinks
        self.libraryEdits = libraryEdits
        self.libraryDerivatives = libraryDerivatives
        self.videos = videos
        self.livePhotoVideos = livePhotoVideos
        self.outputIdentity = output.flatMap { FileIdentity(path: $0, follow: true) }
    }

    public struct Found: Sendable {
        public var photos: [Photo] = []
        public var problems: [FindProblem] = []
        /// Labels the crops of each input go under (empty with one input).
        public var labels: [String] = []
    }

    /// Walks every input and collects what it finds (for small walks and
    /// tests; a run goes through `walk(_:)` one photo at a time). An input
    /// that doesn't exist throws; anything wrong inside a folder becomes a
    /// problem and the walk goes on.
    public func find(_ inputs: [String]) throws(FaceCropError) -> Found {
        let walk = try self.walk(inputs)
        var found = Found()
        found.labels = walk.labels
        for item in walk {
            switch item {
            case .photo(let photo): found.photos.append(photo)
            case .problem(let problem): found.problems.append(problem)
            }
        }
        return found
    }

    /// The inputs' photos and problems in manifest order, found one folder
    /// at a time (see `PhotoWalk`). Throws for the first input that does
    /// not exist.
    public func walk(_ inputs: [String]) throws(FaceCropError) -> PhotoWalk {
        try PhotoWalk(finder: self, inputs: inputs)
    }

    /// Manifest order: by input, then by source path byte by byte (stable
    /// whatever the locale or Unicode normalisation).
    package static func precedes(_ a: (Int, String), _ b: (Int, String)) -> Bool {
        if a.0 != b.0 { return a.0 < b.0 }
        return a.1.utf8.lexicographicallyPrecedes(b.1.utf8)
    }

    package static var extensionList: String { extensions.sorted().map { "." + $0 }.joined(separator: " ") }

    /// A photo's name, or a video's when videos are read.
    package func isInputName(_ name: String) -> Bool {
        Self.isPhotoName(name) || (videos && VideoFiles.isVideoName(name))
    }

    package static func isPhotoName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    package func isIncluded(name: String, relative: String) -> Bool {
        include.isEmpty || include.contains { Self.glob($0, name: name, relative: relative) }
    }

    package func isExcluded(name: String, relative: String) -> Bool {
        exclude.contains { Self.glob($0, name: name, relative: relative) }
    }

    /// A pattern with '/' matches the relative path, one without matches the name.
    package static func glob(_ pattern: String, name: String, relative: String) -> Bool {
        fnmatch(pattern, pattern.contains("/") ? relative : name, 0) == 0
    }

    /// A file or folder name as it may appear under `-o`. Names that are
    /// awkward or impossible there (control characters such as newlines, a
    /// leading '-', more than 150 bytes, so that ".face0.webp" still fits in
    /// 255) are cleaned and get "~" and a hash of the original name, so two
    /// photos never share crop names. Other names are kept as they are.
    package static func safeName(_ name: String) -> String {
        let bytes = Array(name.utf8)
        let odd: (Unicode.Scalar) -> Bool = { $0.value < 0x20 || $0.value == 0x7F || FileName.isEscape($0) }
        let awkward = name.unicodeScalars.contains(where: odd) || name.hasPrefix("-") || bytes.count > 150
        guard awkward else { return name }
        var cleaned = String(name.unicodeScalars.map { odd($0) ? "_" : Character($0) })
        if cleaned.hasPrefix("-") { cleaned = "_" + cleaned.dropFirst() }
        while cleaned.utf8.count > 120 { cleaned.removeLast() }
        let hex = String(FNV1a.hash32(bytes), radix: 16)
        return cleaned + "~" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    package static func join(_ base: String, _ name: String) -> String {
        base.isEmpty ? name : base + "/" + name
    }

    /// With one input, crops go straight under `-o`; with several, each input's
    /// crops go under its own folder name (made unique with "-2", "-3", ...).
    package static func labels(for inputs: [String]) -> [String] {
        guard inputs.count > 1 else { return inputs.map { _ in "" } }
        var used: Set<String> = []
        return inputs.map { input in
            var base = (input as NSString).standardizingPath
            base = (base as NSString).lastPathComponent
            if base.isEmpty || base == "/" || base == "." || base == ".." { base = "input" }
            return used.insertUnique(base)
        }
    }
}

/// A file's device and inode: the same folder reached by two paths is one.
package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    package init?(path: String, follow: Bool) {
        var info = stat()
        guard (follow ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        self.init(info)
    }
}
