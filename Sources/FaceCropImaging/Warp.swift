import CVipsShim
import FaceCropCore

extension Picture {
    /// The crop `transform` makes (picture pixels -> crop pixels, pixel
    /// centres at whole numbers), `side` x `side`, encoded.
    package func encodeWarp(
        _ transform: Affine2D, side: Int, fill: WarpFill, format: OutputFormat, quality: Int, source: String
    ) throws(FaceCropError) -> [UInt8] {
        var spec = Self.warpSpec(transform, side: side, fill: fill, format: format, quality: quality)
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        var message: UnsafeMutablePointer<CChar>?
        guard CVipsShim_WarpEncode(handle, &spec, &bytes, &length, &message) == 0, let bytes else {
            throw .decodeFailed(source, reason: takeMessage(message, fallback: "could not warp crop"))
        }
        defer { CVipsShim_Free(bytes) }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// The same crop as 8-bit sRGB pixels.
    package func warpRGB(_ transform: Affine2D, side: Int, fill: WarpFill = .edge, source: String) throws(FaceCropError) -> RGBImage {
        var spec = Self.warpSpec(transform, side: side, fill: fill, format: .png, quality: 90)
        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        var message: UnsafeMutablePointer<CChar>?
        let status = pixels.withUnsafeMutableBufferPointer {
            CVipsShim_WarpRGB(handle, &spec, $0.baseAddress, $0.count, &message)
        }
        guard status == 0 else {
            throw .decodeFailed(source, reason: takeMessage(message, fallback: "could not warp crop"))
        }
        return RGBImage(width: side, height: side, pixels: pixels)
    }

    private static func warpSpec(_ t: Affine2D, side: Int, fill: WarpFill, format: OutputFormat, quality: Int)
        -> CVipsShim_WarpSpec
    {
        let pad: CVipsShim_Pad
        switch fill {
        case .edge: pad = CVipsShim_PadEdge
        case .black: pad = CVipsShim_PadBlack
        case .reflect, .reflectBlurred: pad = CVipsShim_PadReflect
        }
        return CVipsShim_WarpSpec(
            matrix: (t.a, t.b, t.c, t.d, t.e, t.f), output_side: Int32(clamping: side), pad: pad,
            blur_padding: fill == .reflectBlurred ? 1 : 0, format: format.shimFormat, quality: Int32(clamping: quality))
    }
}
