/// Stage 2: the photo's header and the small upright decode detection runs
/// on (kept: the crops may be cut from it too).
struct Decoded {
    var bytes: PhotoBytes
    var header: PhotoHeader
    /// The detection decode.
    var small: Picture
    /// The whole photo at full size, when its format cannot shrink on load.
    var whole: Picture?
    /// Upright full-resolution size.
    var full: (width: Int, height: Int) { (header.width, header.height) }
}

enum DecodeStage {
    static func decode(_ bytes: PhotoBytes, settings: CropSettings, gate: DecodeGate, source: String)
        throws(FaceCropError) -> Decoded
    {
        let header = try Picture.header(of: bytes, source: source)
        // --max-pixels is checked here, from the header already read; the
        // decodes (maxPixels: 0) do not read the header again for it.
        guard header.storedWidth * header.storedHeight <= settings.maxPixels else {
            throw .tooLarge(source, reason: "\(header.storedWidth) x \(header.storedHeight) pixels is over the limit of \(settings.maxPixels) pixels (--max-pixels)")
        }
        // JPEG and WebP shrink while they load: the detection decode is the
        // decoder's own reduction that keeps at least 3/4 of --detect-size
        // (4032 px -> 1008 px, a 1/4 decode), resized only when it is still
        // larger. Other formats (HEIC, PNG, TIFF, AVIF) can only be decoded
        // whole, so they are decoded once, at full size, the detection copy
        // is made from that and the crops are cut from it: one decode, not two.
        let shrinksOnLoad = header.loader.hasPrefix("jpegload") || header.loader.hasPrefix("webpload")
        let detectScale = min(1, Double(settings.detectSize) / Double(max(header.width, header.height)))
        var whole: Picture?
        let small: Picture
        if shrinksOnLoad {
            small = try Picture.load(
                bytes, header: header, minScale: detectScale * 0.75, fittingIn: settings.detectSize,
                settings.detectSize, source: source)
        } else {
            let decoded = try gate.admit(pixels: header.storedWidth * header.storedHeight) { () throws(FaceCropError) in
                try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: source)
            }
            whole = decoded
            small = try decoded.fitting(settings.detectSize, settings.detectSize, source: source)
        }
        try small.materialize(source: source)
        return Decoded(bytes: bytes, header: header, small: small, whole: whole)
    }
}
