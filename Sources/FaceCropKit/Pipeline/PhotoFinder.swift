import Foundation

/// One photo to process.
public struct Photo: Sendable, Equatable {
    /// Which input (0-based, in command-line order) it was found under;
    /// `label` is that input's name under `-o` (the manifest's "input").
    public var inputIndex: Int
    /// Its path relative to that input folder (for a file input: its name).
    public var source: String
    /// Where to open it.
    public var path: String
    /// Its crops' path prefix relative to `-o`: the input's label, then `source`.
    public var outputPrefix: String
    /// The input's label ("" with a single input).
    public var label: String = ""
    /// The exact path bytes, which differ from `path` when a name is not
    /// valid UTF-8.
    public var rawPath: [UInt8]?
    /// Size in bytes and modification time (ns) when found, to recognise it on a rerun.
    public var size: Int = 0
    public var modified: Int = 0
    /// Its Google Takeout sidecar JSON, when it has one (`Libraries.sidecars`).
    public var sidecar: String?
    /// Its XMP sidecar, when it has one (`Libraries.xmpSidecars`).
    public var xmpSidecar: String?

    /// A video file (`VideoFiles.extensions`): read through ffmpeg.
    public var isVideo: Bool { VideoFiles.isVideoName(source) }

    mutating func noteFile(_ info: stat) {
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    }
}

/// A file or folder the walk could not use; it becomes an error line.
public struct FindProblem: Sendable, Equatable {
    /// As `Photo.inputIndex` and `Photo.label`.
    public var inputIndex: Int
    public var label: String
    public var source: String
    public var reason: String
    /// A folder or file that is there but could not be read (or a link
    /// whose target is not there): what the dataset holds under it is kept
    /// as it was, not removed (`PlanJoin`).
    package var unreadable = false
}

/// Enumerates photos under the inputs: recursive, sorted, hidden names and
/// the output folder skipped, symbolic links skipped unless followed.
public struct PhotoFinder: Sendable {
    public static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "avif", "gif", "jxl"]

    var include: [String]
    var exclude: [String]
    var followLinks: Bool
    /// `--library-edits`: edited versions instead of originals (`Libraries`).
    var libraryEdits = false
    /// `--library-derivatives`: a Photos library's largest derivative of a
    /// photo whose original is not there.
    var libraryDerivatives = false
    /// Whether videos are found too, and Live Photos' videos among them.
    var videos: Bool
    var livePhotoVideos: Bool
    /// The output folder's identity, so a walk never descends into it.
    var outputIdentity: FileIdentity?

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
    static func precedes(_ a: (Int, String), _ b: (Int, String)) -> Bool {
        if a.0 != b.0 { return a.0 < b.0 }
        return a.1.utf8.lexicographicallyPrecedes(b.1.utf8)
    }

    static var extensionList: String { extensions.sorted().map { "." + $0 }.joined(separator: " ") }

    /// A photo's name, or a video's when videos are read.
    func isInputName(_ name: String) -> Bool {
        Self.isPhotoName(name) || (videos && VideoFiles.isVideoName(name))
    }

    static func isPhotoName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    func isIncluded(name: String, relative: String) -> Bool {
        include.isEmpty || include.contains { Self.glob($0, name: name, relative: relative) }
    }

    func isExcluded(name: String, relative: String) -> Bool {
        exclude.contains { Self.glob($0, name: name, relative: relative) }
    }

    /// A pattern with '/' matches the relative path, one without matches the name.
    static func glob(_ pattern: String, name: String, relative: String) -> Bool {
        fnmatch(pattern, pattern.contains("/") ? relative : name, 0) == 0
    }

    /// A file or folder name as it may appear under `-o`. Names that are
    /// awkward or impossible there (control characters such as newlines, a
    /// leading '-', more than 150 bytes, so that ".face0.webp" still fits in
    /// 255) are cleaned and get "~" and a hash of the original name, so two
    /// photos never share crop names. Other names are kept as they are.
    static func safeName(_ name: String) -> String {
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
            return used.insertUnique(base)
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

/// File names are bytes; facecrop's paths are Strings. A name that is not
/// valid UTF-8 keeps each stray byte as one private-use character
/// (U+10FF00 + byte), so the String still names exactly one file; the
/// manifest shows such bytes as U+FFFD and adds the exact bytes in base64.
enum FileName {
    static let escapeBase: UInt32 = 0x10_FF00

    static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= escapeBase && scalar.value <= escapeBase + 0xFF
    }

    static func text(_ bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var result = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            // The longest valid UTF-8 sequence here (1-4 bytes), else one stray byte.
            var decoded: Unicode.Scalar?
            var used = 1
            for length in 1...4 where index + length <= bytes.count {
                if let text = String(validating: bytes[index..<index + length], as: UTF8.self),
                    text.unicodeScalars.count == 1
                {
                    decoded = text.unicodeScalars.first
                    used = length
                    break
                }
            }
            result.append(decoded ?? Unicode.Scalar(escapeBase + UInt32(bytes[index]))!)
            index += used
        }
        return String(result)
    }

    static func hasEscapes(_ text: String) -> Bool { text.unicodeScalars.contains(where: isEscape) }

    /// The exact bytes a String from `text(_:)` stands for.
    static func bytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            if isEscape(scalar) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes += Array(String(scalar).utf8)
            }
        }
        return bytes
    }

    /// For people: stray bytes shown as U+FFFD.
    static func display(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isEscape($0) ? "\u{FFFD}" : $0 }))
    }

    static func withCPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
