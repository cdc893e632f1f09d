import Foundation

/// Stage 5: cut, encode and write a photo's crops. A photo's crops are all
/// written or none: a failure part-way removes the ones already written.
struct WriteStage {
    var settings: CropSettings
    var outputRoot: String
    var temporaries: TemporaryFiles
    var journal: Journal?
    var gate: DecodeGate

    /// Writes the crops of `faces` as `placement` says; returns their records.
    func write(
        _ faces: [FoundFace], _ placement: Placement, from decoded: Decoded, detectionScale scale: Double,
        prefix: String, source: String
    ) throws(FaceCropError) -> [FaceRecord] {
        let full = decoded.full
        let needed = placement.decodeScale
        // Cut from the smallest decode that still gives every crop its full
        // resolution: the detection decode when it is enough. Otherwise a
        // JPEG/WebP decode at the decoder's reduction that still has every
        // crop's resolution (each crop is resized from it on its own), of
        // only the part of the photo the crops cover: the decoder stops at
        // its bottom row. A large one is decoded and cut while holding the
        // whole-decode gate, so at most one such picture is in memory at a time.
        let fresh = scale < needed * 0.999 && decoded.whole == nil
        let cover = placement.cover
        let freshPixels = fresh ? Double(cover.width * cover.height) * min(1, needed * needed) : 0
        return try gate.admit(pixels: Int(freshPixels)) { () throws(FaceCropError) in
            let picture: Picture
            var origin = (x: 0, y: 0)
            var size: (width: Int, height: Int)
            if !fresh {
                picture = scale >= needed * 0.999 ? decoded.small : (decoded.whole ?? decoded.small)
                size = (picture.width, picture.height)
            } else {
                (picture, origin, size) = try Picture.load(
                    decoded.bytes, header: decoded.header, minScale: min(needed, 1), covering: cover, source: source)
            }
            let sx = Double(size.width) / Double(full.width)
            let sy = Double(size.height) / Double(full.height)
            try prepare(placement.names, prefix: prefix, source: source)
            var written: [String] = []
            var finished = false
            defer {
                if !finished { for path in written { unlink(path) } }
            }
            var records: [FaceRecord] = []
            for (index, face) in faces.enumerated() {
                let square = placement.squares[index]
                var scaled = CropGeometry.scale(square, sx: sx, sy: sy)
                scaled.left -= origin.x
                scaled.top -= origin.y
                let angle = placement.angles[index]
                let encoded = try picture.encodeCrop(
                    scaled, pad: settings.pad, side: settings.size, format: settings.format, quality: settings.quality,
                    angle: angle ?? 0, source: source)
                written.append(try save(encoded, as: placement.names[index], source: source))
                records.append(
                    FaceRecord(
                        index: index, box: face.box, score: (face.score * 10_000).rounded() / 10_000,
                        target: settings.target, aligned: angle != nil, angle: angle ?? 0, sharpness: face.sharpness,
                        crop: placement.names[index], padded: square.reachesOutside(width: full.width, height: full.height)))
            }
            finished = true
            return records
        }
    }

    /// Makes the crops' folder and journals their names before any is written.
    private func prepare(_ names: [String], prefix: String, source: String) throws(FaceCropError) {
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
    private func save(_ encoded: [UInt8], as relative: String, source: String) throws(FaceCropError) -> String {
        let path = (outputRoot as NSString).appendingPathComponent(relative)
        do throws(WriteFailure) {
            try AtomicFile.write(encoded, to: path, temporaries: temporaries)
            return path
        } catch {
            let reason = "'\(relative)': \(error.reason)"
            throw error.isOutOfSpace ? .outputFull(source, reason: reason) : .writeFailed(source, reason: reason)
        }
    }
}
