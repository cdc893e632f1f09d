/// Stage 2: the photo's header and the small upright decode detection runs
/// on (kept: the crops may be cut from it too).
import FaceCropCore
import FaceCropImaging
import FaceCropDetect

package struct Decoded {
    package var bytes: PhotoBytes
    package var header: PhotoHeader
    /// The detection decode.
    package var small: Picture
    /// The whole photo at full size, when it cannot be decoded from the file
    /// in bounded memory (`PhotoHeader.streams` false).
    package var whole: Picture?
    /// Upright full-resolution size.
    package var full: (width: Int, height: Int) { (header.width, header.height) }
}

package enum DecodeStage {
    package static func decode(
        _ bytes: PhotoBytes, header known: PhotoHeader? = nil, settings: CropSettings, gate: DecodeGate, source: String
    ) throws(FaceCropError) -> Decoded {
        let header: PhotoHeader
        if let known { header = known } else { header = try Picture.header(of: bytes, source: source) }
        // --max-pixels is checked here, from the header already read; the
        // decodes (maxPixels: 0) do not read the header again for it.
        guard header.storedWidth * header.storedHeight <= settings.maxPixels else {
            throw .tooLarge(source, reason: "\(header.storedWidth) x \(header.storedHeight) pixels is over the limit of \(settings.maxPixels) pixels (--max-pixels)")
        }
        // Photos that stream (JPEG, WebP, upright PNG and TIFF) are decoded
        // from the file at detection size: JPEG and WebP by the decoder's own
        // reduction that keeps at least 3/4 of --detect-size (4032 px ->
        // 1008 px, a 1/4 decode), resized only when it is still larger; PNG
        // and TIFF read top to bottom and shrunk on the way. Other formats
        // (HEIC, AVIF, ...) can only be decoded whole, so they are decoded
        // once, at full size, within the gate's byte budget, the detection
        // copy is made from that and the crops are cut from it: one decode,
        // not two.
        let detectSide = settings.detectSide(longSide: max(header.width, header.height))
        let detectScale = min(1, Double(detectSide) / Double(max(header.width, header.height)))
        var whole: Picture?
        let small: Picture
        if header.streams {
            // A PNG or TIFF read at full size holds ~2,500 full-width rows in
            // libvips' caches while it is shrunk: within the budget (it is
            // decoded here, by materialize). JPEG and WebP pass.
            small = try gate.admit(bytes: header.streamingBytes) { () throws(FaceCropError) in
                let small = try Picture.load(
                    bytes, header: header, minScale: detectScale * 0.75, fittingIn: detectSide, detectSide,
                    source: source)
                try small.materialize(source: source)
                return small
            }
            // Its caches are freed by now, some of them (tiles under the mmap
            // threshold) on malloc's heap: given back before the next
            // photo's (after a large photo only: each trim costs a little).
            if header.streamingBytes > gate.smallBytes { Vips.trimMemory() }
        } else {
            let decoded = try gate.admit(bytes: header.decodedBytes) { () throws(FaceCropError) in
                try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: source)
            }
            whole = decoded
            small = try decoded.fitting(detectSide, detectSide, source: source)
            try small.materialize(source: source)
        }
        return Decoded(bytes: bytes, header: header, small: small, whole: whole)
    }
}
