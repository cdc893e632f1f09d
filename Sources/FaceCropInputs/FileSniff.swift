import Foundation

/// What a file's first bytes say it is, for a photo named like a video or a
/// video named like a photo (a renamed or mis-exported file): facecrop picks
/// the reader by the name, and when that reader fails on the other kind's
/// bytes, says what to rename the file to instead of the reader's words.
package enum FileSniff: Equatable {
    /// `kind`: what it is, with its article ("a JPEG photo").
    case photo(kind: String, fileExtension: String)
    case video(kind: String, fileExtension: String)

    /// Bytes `sniff` needs.
    package static let headLength = 16

    /// The kind of the file that starts with `head`; nil when not known.
    package static func sniff(_ head: [UInt8]) -> FileSniff? {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        if starts([0xFF, 0xD8, 0xFF]) { return .photo(kind: "a JPEG photo", fileExtension: "jpg") }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return .photo(kind: "a PNG image", fileExtension: "png") }
        if starts(ascii("GIF8")) { return .photo(kind: "a GIF image", fileExtension: "gif") }
        if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) { return .photo(kind: "a WebP image", fileExtension: "webp") }
        if starts(ascii("RIFF")) && starts(ascii("AVI "), at: 8) { return .video(kind: "an AVI video", fileExtension: "avi") }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return .video(kind: "a Matroska or WebM video", fileExtension: "mkv") }
        if starts(ascii("ftyp"), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) {
                return .photo(kind: "a HEIF photo", fileExtension: "heic")
            }
            if ["avif", "avis"].contains(brand) { return .photo(kind: "an AVIF image", fileExtension: "avif") }
            if brand == "qt  " { return .video(kind: "a QuickTime video", fileExtension: "mov") }
            if ["isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "3gp4", "3gp5", "3g2a"].contains(brand) {
                return .video(kind: "an MP4 video", fileExtension: "mp4")
            }
        }
        return nil
    }

    /// The message for a video whose bytes are a photo's, or a photo whose
    /// bytes are a video's; nil when its bytes agree with its name.
    package static func misnamed(_ head: [UInt8], video: Bool) -> String? {
        switch sniff(head) {
        case .photo(let kind, let fileExtension)? where video: text(kind: kind, fileExtension: fileExtension, video: true)
        case .video(let kind, let fileExtension)? where !video: text(kind: kind, fileExtension: fileExtension, video: false)
        default: nil
        }
    }

    /// The words for a `video` (named like one) whose bytes are `kind`, or a photo's.
    package static func text(kind: String, fileExtension: String, video: Bool) -> String {
        video
            ? "its bytes are \(kind), not a video: rename it to .\(fileExtension) to read it as a photo"
            : "its bytes are \(kind), not a photo: rename it to .\(fileExtension) to read it as a video"
    }
}
