/// Stage 1: a photo's bytes and their hash. An earlier record of the same
/// content (same settings) is kept instead of decoding again.
import FaceCropCore
import FaceCropImaging

package enum ReadStage {
    package enum Result {
        case bytes(PhotoBytes)
        case same(PhotoRecord)
    }

    /// Reads the photo; `previous` is what an earlier run recorded for it
    /// when its size or time changed.
    package static func read(_ photo: Photo, previous: PhotoRecord?) throws(FaceCropError) -> Result {
        let bytes: PhotoBytes
        do throws(FaceCropError) {
            bytes = try PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: FileName.display(photo.source))
        } catch .notAnImage(let source, let reason) where photo.isVideo {
            // An empty video: said as a video's failure, not an image's.
            throw reason == "empty file (0 bytes)" ? FaceCropError.emptyVideo(source) : .videoFailed(source, reason: reason)
        }
        if var kept = previous, kept.sha256 == bytes.sha256 {
            kept.size = photo.size
            kept.modified = photo.modified
            return .same(kept)
        }
        return .bytes(bytes)
    }
}
