import Foundation

/// One photo to process.
public struct Photo: Sendable, Equatable {
    /// The key of a photo in the state and the manifest's order: its input's label and its path.
    package static func key(label: String, source: String) -> String { label + "\u{0}" + source }

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

    package mutating func noteFile(_ info: stat) {
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    }

    package init(inputIndex: Int, source: String, path: String, outputPrefix: String, label: String = "",
        rawPath: [UInt8]? = nil, size: Int = 0, modified: Int = 0, sidecar: String? = nil, xmpSidecar: String? = nil) {
        (self.inputIndex, self.source, self.path, self.outputPrefix) = (inputIndex, source, path, outputPrefix)
        (self.label, self.rawPath, self.size, self.modified, self.sidecar) = (label, rawPath, size, modified, sidecar)
        self.xmpSidecar = xmpSidecar
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

    package init(inputIndex: Int, label: String, source: String, reason: String, unreadable: Bool = false) {
        (self.inputIndex, self.label, self.source, self.reason) = (inputIndex, label, source, reason)
        self.unreadable = unreadable
    }
}

/// File names are bytes; facecrop's paths are Strings. A name that is not
/// valid UTF-8 keeps each stray byte as one private-use character
/// (U+10FF00 + byte), so the String still names exactly one file; the
/// manifest shows such bytes as U+FFFD and adds the exact bytes in base64.
package enum FileName {
    package static let escapeBase: UInt32 = 0x10_FF00

    package static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= escapeBase && scalar.value <= escapeBase + 0xFF
    }

    package static func text(_ bytes: [UInt8]) -> String {
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

    package static func hasEscapes(_ text: String) -> Bool { text.unicodeScalars.contains(where: isEscape) }

    /// The exact bytes a String from `text(_:)` stands for.
    package static func bytes(_ text: String) -> [UInt8] {
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
    package static func display(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isEscape($0) ? "\u{FFFD}" : $0 }))
    }

    package static func withCPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}

/// Which files are videos, and the Live Photo rule.
public enum VideoFiles {
    public static let extensions: Set<String> = ["mp4", "mov", "m4v", "mkv", "webm", "avi"]

    package static var extensionList: String { extensions.sorted().map { "." + $0 }.joined(separator: " ") }

    /// The lower-cased extension of `name` ("" without one).
    package static func lowerExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    package static func isVideoName(_ name: String) -> Bool { extensions.contains(lowerExtension(name)) }
}
