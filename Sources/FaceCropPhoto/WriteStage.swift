import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropOutput

/// Stage 5: cut, encode and write a photo's crops. A photo's crops are all
/// written or none: a failure part-way removes the ones already written.
package struct WriteStage {
    package var settings: CropSettings
    package var outputRoot: String
    package var temporaries: TemporaryFiles
    package var journal: Journal?
    package var gate: DecodeGate

    /// Writes the crops of `faces` as `placement` says, but none for the
    /// faces whose status is not `.ok` (rejected by a person, or below the
    /// quality floor); returns their records.
    package func write(
        _ faces: [FoundFace], _ placement: Placement, statuses: [FaceStatus], from decoded: Decoded,
        detectionScale scale: Double, prefix: String, source: String, embedder: Embedder? = nil
    ) throws(FaceCropError) -> [FaceRecord] {
        var records = faces.enumerated().map { index, face in
            FaceRecord(index: index, found: face, placed: placement.faces[index], status: statuses[index], target: settings.target)
        }
        guard statuses.contains(.ok) else { return records }
        let needed = placement.decodeScale
        // Cut from the smallest decode that still gives every crop its full
        // resolution: the detection decode when it is enough. Otherwise a
        // decode from the file (JPEG/WebP at the decoder's reduction that
        // still has every crop's resolution, PNG/TIFF at full size and bit
        // depth; each crop is resized from it on its own) of only the part
        // of the photo the crops cover: the decoder stops at its bottom row.
        // A large one is decoded and cut within the gate's byte budget.
        let fresh = scale < needed * 0.999 && decoded.whole == nil
        let freshBytes = fresh ? Self.freshBytes(decoded.header, cover: placement.cover, scale: needed) : 0
        return try gate.admit(bytes: Int(freshBytes)) { () throws(FaceCropError) in
            let picture: Picture
            var origin = (x: 0, y: 0)
            var size: (width: Int, height: Int)
            if !fresh {
                picture = scale >= needed * 0.999 ? decoded.small : (decoded.whole ?? decoded.small)
                size = (picture.width, picture.height)
            } else {
                (picture, origin, size) = try Picture.load(
                    decoded.bytes, header: decoded.header, minScale: min(needed, 1), covering: placement.cover,
                    source: source)
            }
            let cut = Decode(
                picture: picture, sx: Double(size.width) / Double(decoded.full.width),
                sy: Double(size.height) / Double(decoded.full.height), origin: origin)
            try cutAll(faces, placement, statuses: statuses, from: cut, into: &records, prefix: prefix, source: source,
                embedder: embedder)
            return records
        }
    }

    /// What a fresh decode of the part `cover` of a photo costs: JPEG and
    /// WebP at the decoder's reduction; PNG and TIFF at full size, through
    /// libvips' line cache.
    private static func freshBytes(_ header: PhotoHeader, cover: PixelRect, scale: Double) -> Double {
        let reduction = header.shrinksOnLoad ? min(1, scale * scale) : 1
        return Double(cover.width * cover.height * header.pixelBytes) * reduction + Double(header.lineCacheBytes)
    }

    /// The decode crops are cut from, and where the photo lies in it.
    private struct Decode {
        var picture: Picture
        var sx: Double
        var sy: Double
        var origin: (x: Int, y: Int)
    }

    /// Cuts and writes the `.ok` faces' crops from `decode`, all or none:
    /// a failure part-way removes the ones already written.
    private func cutAll(
        _ faces: [FoundFace], _ placement: Placement, statuses: [FaceStatus], from decode: Decode,
        into records: inout [FaceRecord], prefix: String, source: String, embedder: Embedder?
    ) throws(FaceCropError) {
        try prepare(zip(placement.names, statuses).filter { $0.1 == .ok }.map(\.0), prefix: prefix, source: source)
        var written: [String] = []
        var finished = false
        defer {
            if !finished { for path in written { unlink(path) } }
        }
        let (picture, sx, sy, origin) = (decode.picture, decode.sx, decode.sy, decode.origin)
        for index in faces.indices where statuses[index] == .ok {
            let (encoded, transform) = try cut(placement.faces[index], from: picture, sx: sx, sy: sy, origin: origin, source: source)
            written.append(try save(encoded, as: placement.names[index], source: source))
            records[index].crop = placement.names[index]
            records[index].transform = AlignmentJSON.rounded(transform)
            records[index].phash = try PerceptualHash(encoded: encoded, source: source)
            if let embedder {
                records[index].embedding = try Self.embedding(
                    of: faces[index].box, landmarks: faces[index].landmarks, from: picture, sx: sx, sy: sy, origin: origin,
                    embedder: embedder, source: source, turned: faces[index].turned)
            }
        }
        finished = true
    }

    /// `--people`: the descriptor of the face `box` (photo pixels), dlib
    /// given the face resampled from the decode the crop is cut from
    /// (`sx`, `sy`, `origin` place the photo in it), upright, the box half
    /// the region's side; a `turned` face turned upright. A photo's and a
    /// video frame's faces alike.
    package static func embedding(
        of box: PixelRect, landmarks: FaceLandmarks?, from picture: Picture, sx: Double, sy: Double, origin: (x: Int, y: Int),
        embedder: Embedder, source: String, turned: QuarterTurn = .upright
    ) throws(FaceCropError) -> Embedding? {
        let toDecode = Alignment.photoToDecode(sx: sx, sy: sy, origin: origin)
        guard let fromDecode = toDecode.inverse else { return nil }
        let region = try picture.warpRGB(
            fromDecode.then(Embedder.region(of: box, turned: turned)), side: Embedder.regionSide, fill: .edge, source: source)
        return try embedder.embed(
            region, box: box, landmarks: Embedder.chipLandmarks(landmarks), turned: turned, source: source)
    }

    /// One crop, encoded, and its photo -> crop transform: a turned crop is
    /// warped from the decode, a plain one cut from it (as it always was).
    package func cut(
        _ face: AlignedFace, from picture: Picture, sx: Double, sy: Double, origin: (x: Int, y: Int), source: String
    ) throws(FaceCropError) -> (bytes: [UInt8], transform: Affine2D) {
        let toDecode = Alignment.photoToDecode(sx: sx, sy: sy, origin: origin)
        if let warp = face.warp, let fromDecode = toDecode.inverse {
            let bytes = try picture.encodeWarp(
                fromDecode.then(warp), side: settings.size, fill: settings.fill, format: settings.format,
                quality: settings.quality, source: source)
            return (bytes, warp)
        }
        var scaled = CropGeometry.scale(face.square, sx: sx, sy: sy)
        scaled.left -= origin.x
        scaled.top -= origin.y
        let bytes = try picture.encodeCrop(
            scaled, pad: settings.pad, side: settings.size, format: settings.format, quality: settings.quality,
            source: source)
        return (bytes, Alignment.cutTransform(scaled, side: settings.size, toDecode: toDecode))
    }

    /// Makes the crops' folder and journals their names before any is written.
    package func prepare(_ names: [String], prefix: String, source: String) throws(FaceCropError) {
        let folder = (outputRoot as NSString).appendingPathComponent((prefix as NSString).deletingLastPathComponent)
        do throws(WriteFailure) {
            try AtomicFile.makeFolder(folder)
        } catch {
            throw .writeFailed(source, reason: error.reason)
        }
        do throws(WriteFailure) {
            try journal?.begin(names)
        } catch {
            throw error.isOutOfSpace ? .outputFull(source, reason: error.reason) : .writeFailed(source, reason: error.reason)
        }
    }

    /// Writes one crop atomically; returns its path.
    package func save(_ encoded: [UInt8], as relative: String, source: String) throws(FaceCropError) -> String {
        let path = (outputRoot as NSString).appendingPathComponent(relative)
        do throws(WriteFailure) {
            try AtomicFile.write(encoded, to: path, temporaries: temporaries)
            return path
        } catch {
            let reason = "'\(relative)': \(error.reason)"
            throw error.isOutOfSpace ? .outputFull(source, reason: reason) : .writeFailed(source, reason: reason)
        }
    }

    package init(settings: CropSettings, outputRoot: String, temporaries: TemporaryFiles, journal: Journal? = nil,
        gate: DecodeGate) {
        (self.settings, self.outputRoot, self.temporaries) = (settings, outputRoot, temporaries)
        (self.journal, self.gate) = (journal, gate)
    }
}

extension FaceRecord {
    /// A face's record before its crop is cut: what detection found and
    /// placement made of it (a photo's face and a video sample's alike).
    package init(index: Int, found face: FoundFace, placed aligned: AlignedFace, status: FaceStatus, target: Target) {
        self.init(
            index: index, box: face.box, score: (face.score * 10_000).rounded() / 10_000, target: target,
            aligned: aligned.aligned, angle: aligned.aligned ? aligned.recordedAngle : 0, sharpness: face.sharpness,
            quality: face.quality, padded: aligned.padded, marginUsed: aligned.marginUsed,
            landmarks: face.landmarks.map(AlignmentJSON.rounded),
            status: status)
        turned = face.turned
    }
}
