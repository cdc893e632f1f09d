/// A Live Photo is a still and a short `.MOV` with the same name in the same
/// folder (`IMG_0001.HEIC` + `IMG_0001.MOV`; a JPEG still once exported).
/// The video repeats the still's moment, so by default it is not read
/// (`--live-photo-videos` reads it). The one rule, for every walk that
/// finds photos (folders, photo-library layouts).
import FaceCropCore

public enum LivePhoto {
    /// Extensions of the stills a Live Photo's video goes with.
    package static let stillExtensions: Set<String> = ["heic", "heif", "jpg", "jpeg"]

    /// The names of the stills among `names` (one folder's file names), as
    /// `isMotion` takes them: the stems, lower-cased.
    public static func stillStems(_ names: some Sequence<String>) -> Set<String> {
        var stems: Set<String> = []
        for name in names where stillExtensions.contains(VideoFiles.lowerExtension(name)) {
            stems.insert(stem(name))
        }
        return stems
    }

    /// Whether `name` is the video half of a Live Photo: a `.mov` (any case)
    /// whose stem, ignoring case, is the stem of a still in its folder
    /// (`stillStems` of the folder's names).
    public static func isMotion(_ name: String, stills: Set<String>) -> Bool {
        VideoFiles.lowerExtension(name) == "mov" && stills.contains(stem(name))
    }

    private static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name.lowercased() }
        return String(name[..<dot]).lowercased()
    }
}
