import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropOutput
import FaceCropPhoto

/// Why a crop could not be cut again from its photo or video.
package struct PickMiss: Error {
    package var reason: String
}

/// A picked crop's bytes: cut again from its photo at pick's `--size`,
/// `--margin` and `--pad` when the photo is still where the dataset found it
/// with the same content (SHA-256), through the main run's crop path (the
/// square of `CropGeometry.cropSquare`, a region decode, `WriteStage.cut`);
/// a video's crop from the frame at its time, taken by ffmpeg (`PickVideo`).
/// Otherwise the dataset's own crop, copied, when it has the set's size. The
/// dataset does not record where its photos were (it can be moved), so
/// `--photos` says: the folders the run was given, in the same order.
package struct PickCutter {
    /// `--photos`, and the label each gets under `-o` (as the run gave them).
    package var photos: [String]
    package var labels: [String]
    package var settings: CropSettings
    /// How pick's crops are sized, and how the dataset's were (for a copy).
    package var sizing: PickSizing
    package var datasetSizing: PickSizing
    package var maxUpscale: Double
    /// Where a video frame is put for a moment: pick's output folder.
    package var scratch: String
    package var temporaries: TemporaryFiles
    private let gate = DecodeGate()

    package init(
        photos: [String], settings: CropSettings, datasetSizing: PickSizing, maxUpscale: Double, scratch: String,
        temporaries: TemporaryFiles
    ) {
        self.photos = photos
        labels = PhotoFinder.labels(for: photos)
        self.settings = settings
        sizing = PickSizing(size: settings.size, margin: settings.margin, pad: settings.pad)
        (self.datasetSizing, self.maxUpscale, self.scratch) = (datasetSizing, maxUpscale, scratch)
        self.temporaries = temporaries
    }

    /// What became of one chosen crop.
    package enum Outcome {
        /// Its bytes, whether cut again (false: copied), and its sizing.
        case written(bytes: [UInt8], cut: Bool, enlargement: Double, margin: Double)
        case leftOut(String)
    }

    /// The crop cut again, or copied when the dataset's crop has the set's
    /// size and is not enlarged past `--max-upscale`; otherwise left out.
    package func outcome(for candidate: PickCandidate, dataset: String) throws(FaceCropError) -> Outcome {
        let miss: PickMiss
        do throws(PickMiss) {
            let bytes = candidate.isVideo ? try recutVideo(candidate) : try recut(candidate)
            return .written(bytes: bytes, cut: true, enlargement: sizing.enlargement(candidate), margin: sizing.marginUsed(candidate))
        } catch { miss = error }
        guard datasetSizing.size == sizing.size else {
            return .leftOut("not cut again (\(miss.reason)), and the dataset's crop is \(datasetSizing.size) px, not \(sizing.size): a set never mixes sizes")
        }
        let factor = datasetSizing.enlargement(candidate)
        if factor > maxUpscale + 1e-9 {
            return .leftOut(PickSizing.upscaleReason(factor, side: datasetSizing.sourceSide(candidate), size: sizing.size, limit: maxUpscale) + " (the dataset's crop; not cut again: \(miss.reason))")
        }
        guard let copied = FileManager.default.contents(atPath: dataset + "/" + candidate.crop) else {
            throw .inputMissing(dataset, reason: "cannot read crop '\(candidate.crop)' named in \(Manifest.fileName); run facecrop on it again")
        }
        return .written(bytes: Array(copied), cut: false, enlargement: factor, margin: datasetSizing.marginUsed(candidate))
    }

    /// The photo's (or video's) path bytes under `--photos`.
    package func photoPath(_ candidate: PickCandidate) throws(PickMiss) -> [UInt8] {
        guard !photos.isEmpty else { throw PickMiss(reason: "no --photos given") }
        guard let index = labels.firstIndex(of: candidate.input) else { throw PickMiss(reason: "its input is not among --photos") }
        let root = photos[index]
        var info = stat()
        if stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { return Array(root.utf8) }
        return Array((root.hasSuffix("/") ? root : root + "/").utf8) + (candidate.sourceBytes ?? Array(candidate.source.utf8))
    }

    /// The file the dataset was made from, open and checked: there, and the
    /// same content (SHA-256) as the manifest says.
    package func source(_ candidate: PickCandidate) throws(PickMiss) -> PhotoBytes {
        let raw = try photoPath(candidate)
        guard let expected = candidate.sha256 else { throw PickMiss(reason: "the dataset has no sha256 for it") }
        let bytes: PhotoBytes
        do throws(FaceCropError) {
            bytes = try PhotoBytes(path: String(decoding: raw, as: UTF8.self), rawPath: raw, source: candidate.photoKey)
        } catch { throw PickMiss(reason: "not found under --photos (\(error.reason))") }
        guard bytes.sha256 == expected else { throw PickMiss(reason: "changed since the dataset was made") }
        return bytes
    }

    /// The crop cut again from the photo.
    package func recut(_ candidate: PickCandidate) throws(PickMiss) -> [UInt8] {
        let bytes = try source(candidate)
        do throws(FaceCropError) {
            return try cut(candidate, from: bytes, source: candidate.photoKey)
        } catch { throw PickMiss(reason: error.description) }
    }

    /// Cuts the candidate's square out of `bytes` (a photo, or a video's
    /// frame), whose size must be the one the manifest records.
    package func cut(_ candidate: PickCandidate, from bytes: PhotoBytes, source: String) throws(FaceCropError) -> [UInt8] {
        let header = try Picture.header(of: bytes, source: source)
        let full = (width: header.width, height: header.height)
        guard candidate.width == nil || (candidate.width == full.width && candidate.height == full.height) else {
            throw .decodeFailed(source, reason: "\(full.width) x \(full.height), not the dataset's \(candidate.width ?? 0) x \(candidate.height ?? 0)")
        }
        let face = Alignment.place(
            box: candidate.box, landmarks: nil, eyeAngle: nil, mode: .none, size: settings.size, margin: settings.margin,
            width: full.width, height: full.height, inside: settings.pad.keepsInside, turned: candidate.turned)
        let needed = CropGeometry.decodeScale(for: [face.square], outputSide: settings.size)
        let cover = CropGeometry.cover([face.square], grow: 0, width: full.width, height: full.height)
        let (picture, origin, size) = try Picture.load(bytes, header: header, minScale: min(needed, 1), covering: cover, source: source)
        let writer = WriteStage(settings: settings, outputRoot: "", temporaries: temporaries, journal: nil, gate: gate)
        let sx = Double(size.width) / Double(full.width)
        let sy = Double(size.height) / Double(full.height)
        return try writer.cut(face, from: picture, sx: sx, sy: sy, origin: origin, source: source).bytes
    }
}
