import CVipsShim
import Foundation
import FaceCropCore

/// libvips, started once per process with its own threading turned down:
/// facecrop runs one level of parallelism (`--jobs` workers), not two.
package enum Vips {
    private static let started: String? = {
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_Init("facecrop", 1, 0, &message)
        return status == 0 ? nil : takeMessage(message, fallback: "libvips failed to start")
    }()

    /// Starts libvips if it hasn't started; throws if it can't.
    package static func start() throws(FaceCropError) {
        if let failure = started {
            throw .libraryFailed(failure)
        }
    }

    /// Gives malloc's free pages back to the system (`malloc_trim`).
    package static func trimMemory() {
        CVipsShim_TrimMemory()
    }

    package static func sha256(_ bytes: UnsafeRawBufferPointer) -> String {
        var hex = [CChar](repeating: 0, count: 65)
        CVipsShim_SHA256(bytes.baseAddress, bytes.count, &hex)
        return String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Vips {
    /// The error for a failed shim call. A failed encode and a refused image
    /// keep their kind (`CVipsShim_Status`); any other failure is `kind`,
    /// what the call was doing (reading a header, decoding).
    package static func error(
        _ status: Int32, _ message: UnsafeMutablePointer<CChar>?, source: String, fallback: String,
        otherwise kind: (String, String) -> FaceCropError = FaceCropError.decodeFailed
    ) -> FaceCropError {
        let reason = takeMessage(message, fallback: fallback)
        switch Int(status) {
        case Int(CVipsShim_EncodeFailed.rawValue): return .encodeFailed(source, reason: reason)
        case Int(CVipsShim_TooLarge.rawValue): return .tooLarge(source, reason: reason)
        default: return kind(source, reason)
        }
    }
}

/// What a photo's header says, read without decoding pixels.
package struct PhotoHeader: Sendable {
    /// Upright size, EXIF orientation applied.
    package var width: Int { Int(raw.width) }
    package var height: Int { Int(raw.height) }
    package var storedWidth: Int { Int(raw.stored_width) }
    package var storedHeight: Int { Int(raw.stored_height) }
    /// Decoded from the file in bounded memory (JPEG, WebP, upright PNG and
    /// TIFF); otherwise decoded whole, from the bytes in memory.
    package var streams: Bool { raw.streams != 0 }
    /// Bytes of one decoded pixel.
    package var pixelBytes: Int { Int(max(raw.bands, 1)) * Int(max(raw.sample_bytes, 1)) }
    /// Bytes a whole decode of the stored pixels takes.
    package var decodedBytes: Int { storedWidth * storedHeight * pixelBytes }
    /// The decoder reduces while decoding (JPEG, WebP); the rest are decoded
    /// at full size.
    package var shrinksOnLoad: Bool { raw.shrinks_on_load != 0 }
    /// What a photo read from the file at full size (PNG, TIFF) holds in
    /// libvips' line caches while it is read top to bottom: about 512 rows
    /// as stored (four 128-row strips; libvips 8.14's sequential reader).
    package var lineCacheBytes: Int { shrinksOnLoad ? 0 : storedWidth * 512 * pixelBytes }
    /// What the detection decode of a photo that streams at full size (PNG,
    /// TIFF) holds at its peak: the line cache, and about 2,000 full-width
    /// rows of the 8-bit copy the shrink works on. Measured as libvips'
    /// tracked high water of that decode: 22 / 45 / 63 MB for 8-bit photos
    /// 4000 / 8000 / 11648 px wide, 33 / 57 / 81 MB for 16-bit ones; this
    /// says 30 / 60 / 87 and 36 / 73 / 106 MB. JPEG and WebP: 0 (a few MB).
    package var streamingBytes: Int { shrinksOnLoad ? 0 : lineCacheBytes + storedWidth * 2_000 * 3 }
    package let loader: String
    /// EXIF DateTimeOriginal with OffsetTimeOriginal, when the photo has them.
    package var taken: CaptureTime? {
        let date = withUnsafeBytes(of: raw.date_time_original) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let offset = withUnsafeBytes(of: raw.offset_time_original) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        return CaptureTime(exifDate: date, offset: offset)
    }
    /// As the shim read it, handed back to it for the decodes.
    fileprivate let raw: CVipsShim_Header
    /// The embedded XMP packet, when the photo has one (read with the header).
    package var xmp: [UInt8]?
    /// EXIF orientation 1...8.
    package var orientation: Int { Int(raw.orientation) }

    fileprivate init(loader: String, raw: CVipsShim_Header) {
        self.loader = loader
        self.raw = raw
    }
}

/// A decoded (or lazily decodable) upright image. Not thread-safe: owned by
/// the one task processing its photo.
package final class Picture {
    /// The shim's image; only `Picture` methods (here and in Warp.swift) use it.
    package let handle: OpaquePointer
    /// Keeps the encoded bytes alive while libvips may still read them (nil
    /// for a video frame, which libvips holds a copy of).
    private let bytes: PhotoBytes?
    package let width: Int
    package let height: Int

    private init(handle: OpaquePointer, bytes: PhotoBytes?) {
        self.handle = handle
        self.bytes = bytes
        var w: Int32 = 0
        var h: Int32 = 0
        CVipsShim_ImageSize(handle, &w, &h)
        width = Int(w)
        height = Int(h)
    }

    deinit { CVipsShim_ImageFree(handle) }

    package static func header(of bytes: PhotoBytes, source: String) throws(FaceCropError) -> PhotoHeader {
        var header = CVipsShim_Header()
        var message: UnsafeMutablePointer<CChar>?
        var xmp: UnsafeMutablePointer<CChar>?
        var xmpLength = 0
        let status = CVipsShim_ReadHeaderFileXMP(bytes.decodePath, &header, &xmp, &xmpLength, &message)
        defer { CVipsShim_Free(xmp) }
        guard status == 0 else {
            throw Vips.error(status, message, source: source, fallback: "not an image", otherwise: FaceCropError.notAnImage)
        }
        let loader = withUnsafeBytes(of: header.loader) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        var read = PhotoHeader(loader: loader, raw: header)
        if let xmp, xmpLength > 0 {
            read.xmp = Array(UnsafeRawBufferPointer(start: xmp, count: xmpLength))
        }
        return read
    }

    /// Decodes the photo upright to fit in `maxWidth` x `maxHeight`, never
    /// enlarging. JPEG and WebP are reduced by the decoder itself as far as
    /// that keeps at least `minScale` of the upright size; the rest of the way
    /// is a resize; PNG and TIFF that stream are read from the file and
    /// shrunk on the way. `minScale` >= 1: decoded whole, into memory, now.
    package static func load(
        _ bytes: PhotoBytes, header: PhotoHeader, minScale: Double, fittingIn maxWidth: Int, _ maxHeight: Int,
        source: String
    ) throws(FaceCropError) -> Picture {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        var raw = header.raw
        let status =
            header.streams && minScale < 1
            ? CVipsShim_LoadScaledFile(
                bytes.decodePath, &raw, minScale, Int32(clamping: maxWidth), Int32(clamping: maxHeight), &handle,
                &message)
            : try bytes.withBytes {
                CVipsShim_LoadScaled(
                    $0.baseAddress, $0.count, &raw, minScale, Int32(clamping: maxWidth), Int32(clamping: maxHeight),
                    &handle, &message)
            }
        guard status == 0, let handle else {
            throw Vips.error(status, message, source: source, fallback: "could not decode")
        }
        return Picture(handle: handle, bytes: bytes)
    }

    /// Decodes the part of the photo that covers `region` (upright pixels of
    /// the full-size photo), at the decoder's largest reduction that keeps at
    /// least `minScale`. Photos that stream (JPEG, WebP, upright PNG and
    /// TIFF) are read only as far down as the region reaches and only the
    /// region is kept; other photos are decoded whole.
    /// Returns the picture and where it lies in the upright decode of the
    /// whole photo at that scale.
    package static func load(
        _ bytes: PhotoBytes, header: PhotoHeader, minScale: Double, covering region: PixelRect, source: String
    ) throws(FaceCropError) -> (picture: Picture, origin: (x: Int, y: Int), decodeSize: (width: Int, height: Int)) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        var raw = header.raw
        var place = CVipsShim_Region()
        let (x, y) = (Int32(clamping: region.x), Int32(clamping: region.y))
        let (w, h) = (Int32(clamping: region.width), Int32(clamping: region.height))
        let status =
            header.streams
            ? CVipsShim_LoadRegionFile(bytes.decodePath, &raw, minScale, x, y, w, h, &handle, &place, &message)
            : try bytes.withBytes {
                CVipsShim_LoadRegion($0.baseAddress, $0.count, &raw, minScale, x, y, w, h, &handle, &place, &message)
            }
        guard status == 0, let handle else {
            throw Vips.error(status, message, source: source, fallback: "could not decode")
        }
        return (
            Picture(handle: handle, bytes: bytes), (Int(place.left), Int(place.top)),
            (Int(place.decode_width), Int(place.decode_height))
        )
    }

    /// A video frame: `width` x `height` packed 8-bit RGB, copied.
    package static func frame(rgb: UnsafeRawBufferPointer, width: Int, height: Int, source: String) throws(FaceCropError) -> Picture {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        guard rgb.count >= width * height * 3 else { throw FaceCropError.shortVideoFrame(source) }
        let status = CVipsShim_ImageFromRGB(
            rgb.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(clamping: width), Int32(clamping: height), &handle,
            &message)
        guard status == 0, let handle else {
            throw Vips.error(status, message, source: source, fallback: "could not make an image of a video frame")
        }
        return Picture(handle: handle, bytes: nil)
    }

    /// A smaller copy fitting in `maxWidth` x `maxHeight` (never enlarged).
    package func fitting(_ maxWidth: Int, _ maxHeight: Int, source: String) throws(FaceCropError) -> Picture {
        var made: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_ImageFitting(handle, Int32(clamping: maxWidth), Int32(clamping: maxHeight), &made, &message)
        guard status == 0, let made else {
            throw Vips.error(status, message, source: source, fallback: "could not resize")
        }
        return Picture(handle: made, bytes: bytes)
    }

    /// Decodes into memory now so that several regions can be read from it.
    package func materialize(source: String) throws(FaceCropError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_ImageMaterialize(handle, &message)
        guard status == 0 else {
            throw Vips.error(status, message, source: source, fallback: "could not decode")
        }
    }

    /// 8-bit grayscale pixels, rows packed.
    package func grayPixels(source: String) throws(FaceCropError) -> GrayImage {
        let (width, height, data) = try pixels(bands: 1, source: source)
        return GrayImage(width: width, height: height, pixels: data)
    }

    /// 8-bit sRGB pixels, 3 bytes a pixel, rows packed.
    package func rgbPixels(source: String) throws(FaceCropError) -> RGBImage {
        let (width, height, data) = try pixels(bands: 3, source: source)
        return RGBImage(width: width, height: height, pixels: data)
    }

    /// The pixels in grayscale (1 band) or sRGB (3), copied out of the shim's memory.
    private func pixels(bands: Int, source: String) throws(FaceCropError) -> (Int, Int, [UInt8]) {
        var pixels: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0
        var h: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = bands == 1
            ? CVipsShim_ImageGray(handle, &pixels, &w, &h, &message)
            : CVipsShim_ImageRGB(handle, &pixels, &w, &h, &message)
        guard status == 0, let pixels else {
            throw Vips.error(status, message, source: source, fallback: "could not decode")
        }
        defer { CVipsShim_Free(pixels) }
        return (Int(w), Int(h), [UInt8](UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h) * bands)))
    }

    /// Cuts `square` (in this picture's pixels), resizes it to `side` pixels
    /// and encodes it.
    package func encodeCrop(
        _ square: PixelSquare, pad: PadMode, side: Int, format: OutputFormat, quality: Int, angle: Double = 0,
        source: String
    ) throws(FaceCropError) -> [UInt8] {
        var spec = CVipsShim_CropSpec(
            left: Int32(clamping: square.left), top: Int32(clamping: square.top),
            side: Int32(clamping: square.side),
            pad: pad == .black ? CVipsShim_PadBlack : pad == .reflect ? CVipsShim_PadReflect : CVipsShim_PadEdge,
            output_side: Int32(clamping: side),
            format: format.shimFormat, quality: Int32(clamping: quality), angle: angle)
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_CropEncode(handle, &spec, &bytes, &length, &message)
        guard status == 0, let bytes else {
            throw Vips.error(status, message, source: source, fallback: "could not cut crop")
        }
        defer { CVipsShim_Free(bytes) }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: length))
    }
}

/// 8-bit grayscale pixels with packed rows.
package struct GrayImage: Sendable {
    package var width: Int
    package var height: Int
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }
}

package struct RGBImage: Sendable {
    package var width: Int
    package var height: Int
    /// R, G, B bytes, rows packed.
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }
}

extension OutputFormat {
    package var shimFormat: CVipsShim_Format {
        switch self {
        case .jpg: CVipsShim_JPEG
        case .png: CVipsShim_PNG
        case .webp: CVipsShim_WebP
        }
    }
}

extension Vips {
    /// Loads the image file at `path` resized to exactly `side` x `side`, as
    /// packed 8-bit sRGB into `rgb` (reused from frame to frame, so a clip of
    /// any length needs one buffer).
    package static func loadRGB(_ path: String, side: Int, into rgb: inout [UInt8]) throws(FaceCropError) {
        let needed = side * side * 3
        if rgb.count != needed { rgb = [UInt8](repeating: 0, count: needed) }
        var message: UnsafeMutablePointer<CChar>?
        let status = rgb.withUnsafeMutableBufferPointer {
            CVipsShim_LoadRGB(path, Int32(clamping: side), $0.baseAddress, $0.count, &message)
        }
        guard status == 0 else {
            throw Vips.error(status, message, source: path, fallback: "could not decode")
        }
    }
}
