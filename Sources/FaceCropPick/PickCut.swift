import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropOutput
import FaceCropPhoto

/// A picked crop's bytes: cut again from its photo at pick's `--size` and
/// `--margin` when the photo is still where the dataset found it with the
/// same content (SHA-256), through the main run's crop path (the square of
/// `CropGeometry.cropSquare`, a region decode, `WriteStage.cut`); otherwise
/// the dataset's own crop, copied. The dataset does not record where its
/// photos were (it can be moved), so `--photos` says: the folders the run
/// was given, in the same order. Crops of videos are always copied.
package struct PickCutter {
    /// `--photos`, and the label each gets under `-o` (as the run gave them).
    package var photos: [String]
    package var labels: [String]
    package var settings: CropSettings
    package var temporaries: TemporaryFiles
    private let gate = DecodeGate()

    package init(photos: [String], settings: CropSettings, temporaries: TemporaryFiles) {
        self.photos = photos
        labels = PhotoFinder.labels(for: photos)
        self.settings = settings
        self.temporaries = temporaries
    }

    /// The crop's bytes and whether they were cut from the photo (false: copied).
    package func bytes(for candidate: PickCandidate, dataset: String) throws(FaceCropError) -> (bytes: [UInt8], cut: Bool) {
        if let cut = try? recut(candidate) { return (cut, true) }
        guard let copied = FileManager.default.contents(atPath: dataset + "/" + candidate.crop) else {
            throw .inputMissing(dataset, reason: "cannot read crop '\(candidate.crop)' named in \(Manifest.fileName); run facecrop on it again")
        }
        return (Array(copied), false)
    }

    /// The photo's path bytes under `--photos`; nil when not given or a video.
    package func photoPath(_ candidate: PickCandidate) -> [UInt8]? {
        guard !candidate.isVideo, let index = labels.firstIndex(of: candidate.input) else { return nil }
        let root = photos[index]
        var info = stat()
        if stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { return Array(root.utf8) }
        return Array((root.hasSuffix("/") ? root : root + "/").utf8) + (candidate.sourceBytes ?? Array(candidate.source.utf8))
    }

    /// The crop cut again from the photo; nil when the photo is not there
    /// or is not the one the dataset was made from.
    package func recut(_ candidate: PickCandidate) throws(FaceCropError) -> [UInt8]? {
        guard let raw = photoPath(candidate), let expected = candidate.sha256 else { return nil }
        let source = candidate.photoKey
        let bytes = try PhotoBytes(path: String(decoding: raw, as: UTF8.self), rawPath: raw, source: source)
        guard bytes.sha256 == expected else { return nil }
        let header = try Picture.header(of: bytes, source: source)
        let full = (width: header.width, height: header.height)
        guard candidate.width == nil || (candidate.width == full.width && candidate.height == full.height) else { return nil }
        let face = Alignment.place(
            box: candidate.box, landmarks: nil, eyeAngle: nil, mode: .none, size: settings.size, margin: settings.margin,
            width: full.width, height: full.height)
        let needed = CropGeometry.decodeScale(for: [face.square], outputSide: settings.size)
        let cover = CropGeometry.cover([face.square], grow: 0, width: full.width, height: full.height)
        let (picture, origin, size) = try Picture.load(bytes, header: header, minScale: min(needed, 1), covering: cover, source: source)
        let writer = WriteStage(settings: settings, outputRoot: "", temporaries: temporaries, journal: nil, gate: gate)
        let sx = Double(size.width) / Double(full.width)
        let sy = Double(size.height) / Double(full.height)
        return try writer.cut(face, from: picture, sx: sx, sy: sy, origin: origin, source: source).bytes
    }
}
