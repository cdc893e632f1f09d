import CVipsShim
import Foundation

/// libvips, started once per process with its own threading turned down:
/// facecrop runs one level of parallelism (`--jobs` workers), not two.
enum Vips {
    private static let started: String? = {
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_Init("facecrop", 1, 0, &message)
        return status == 0 ? nil : takeMessage(message, fallback: "libvips failed to start")
    }()

    /// Starts libvips if it hasn't started; throws if it can't.
    static func start() throws(FaceCropError) {
        if let failure = started {
            throw .libraryFailed(failure)
        }
    }

    static func sha256(_ bytes: UnsafeRawBufferPointer) -> String {
        var hex = [CChar](repeating: 0, count: 65)
        CVipsShim_SHA256(bytes.baseAddress, bytes.count, &hex)
        return String(decoding: hex.prefix(64).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Vips {
    /// The error for a failed shim call. A failed encode and a refused image
    /// keep their kind (`CVipsShim_Status`); any other failure is `kind`,
    /// what the call was doing (reading a header, decoding).
    static func error(
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

/// The bytes of one photo file, read once and kept for every decode of it.
///
/// libvips decodes lazily from this memory, so every `Picture` made from it
/// holds a reference and the bytes outlive the images. Not thread-safe: owned
/// by the one task processing the photo.
final class PhotoBytes {
    let count: Int
    private let storage: UnsafeMutableRawPointer

    /// Reads the whole file at `path` (`rawPath`: its exact bytes, when given).
    init(path: String, rawPath: [UInt8]? = nil, source: String) throws(FaceCropError) {
        let fd = FileName.withCPath(rawPath ?? Array(path.utf8)) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .unreadable(source, reason: systemError(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(source, reason: systemError(errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .unreadable(source, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        guard size > 0 else { throw .notAnImage(source, reason: "empty file (0 bytes)") }
        storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        var filled = 0
        while filled < size {
            let got = read(fd, storage + filled, size - filled)
            if got < 0 {
                if errno == EINTR { continue }
                let reason = systemError(errno)
                storage.deallocate()
                throw .unreadable(source, reason: reason)
            }
            if got == 0 { break }  // the file shrank while we read it
            filled += got
        }
        count = filled
        if filled == 0 {
            storage.deallocate()
            throw .notAnImage(source, reason: "empty file (0 bytes)")
        }
    }

    deinit { storage.deallocate() }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    var sha256: String { withBytes { Vips.sha256($0) } }
}

/// What a photo's header says, read without decoding pixels.
struct PhotoHeader: Sendable {
    /// Upright size, EXIF orientation applied.
    var width: Int { Int(raw.width) }
    var height: Int { Int(raw.height) }
    var storedWidth: Int { Int(raw.stored_width) }
    var storedHeight: Int { Int(raw.stored_height) }
    let loader: String
    /// As the shim read it, handed back to it for the decodes.
    fileprivate let raw: CVipsShim_Header
}

/// A decoded (or lazily decodable) upright image. Not thread-safe: owned by
/// the one task processing its photo.
final class Picture {
    private let handle: OpaquePointer
    /// Keeps the encoded bytes alive while libvips may still read them.
    private let bytes: PhotoBytes
    let width: Int
    let height: Int

    private init(handle: OpaquePointer, bytes: PhotoBytes) {
        self.handle = handle
        self.bytes = bytes
        var w: Int32 = 0
        var h: Int32 = 0
        CVipsShim_ImageSize(handle, &w, &h)
        width = Int(w)
        height = Int(h)
    }

    deinit { CVipsShim_ImageFree(handle) }

    static func header(of bytes: PhotoBytes, source: String) throws(FaceCropError) -> PhotoHeader {
        var header = CVipsShim_Header()
        var message: UnsafeMutablePointer<CChar>?
        let status = bytes.withBytes { CVipsShim_ReadHeader($0.baseAddress, $0.count, &header, &message) }
        guard status == 0 else {
            throw Vips.error(status, message, source: source, fallback: "not an image", otherwise: FaceCropError.notAnImage)
        }
        let loader = withUnsafeBytes(of: header.loader) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return PhotoHeader(loader: loader, raw: header)
    }

    /// Decodes the photo upright to fit in `maxWidth` x `maxHeight`, never
    /// enlarging. JPEG and WebP are reduced by the decoder itself as far as
    /// that keeps at least `minScale` of the upright size; the rest of the way
    /// is a resize. `minScale` >= 1: decoded whole, into memory, now.
    static func load(
        _ bytes: PhotoBytes, header: PhotoHeader, minScale: Double, fittingIn maxWidth: Int, _ maxHeight: Int,
        source: String
    ) throws(FaceCropError) -> Picture {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        var raw = header.raw
        let status = bytes.withBytes {
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
    /// least `minScale`. JPEG and WebP are read only as far down as the region
    /// reaches and only the region is kept; other photos are decoded whole.
    /// Returns the picture and where it lies in the upright decode of the
    /// whole photo at that scale.
    static func load(
        _ bytes: PhotoBytes, header: PhotoHeader, minScale: Double, covering region: PixelRect, source: String
    ) throws(FaceCropError) -> (picture: Picture, origin: (x: Int, y: Int), decodeSize: (width: Int, height: Int)) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        var raw = header.raw
        var place = CVipsShim_Region()
        let status = bytes.withBytes {
            CVipsShim_LoadRegion(
                $0.baseAddress, $0.count, &raw, minScale, Int32(clamping: region.x), Int32(clamping: region.y),
                Int32(clamping: region.width), Int32(clamping: region.height), &handle, &place, &message)
        }
        guard status == 0, let handle else {
            throw Vips.error(status, message, source: source, fallback: "could not decode")
        }
        return (
            Picture(handle: handle, bytes: bytes), (Int(place.left), Int(place.top)),
            (Int(place.decode_width), Int(place.decode_height))
        )
    }

    /// A smaller copy fitting in `maxWidth` x `maxHeight` (never enlarged).
    func fitting(_ maxWidth: Int, _ maxHeight: Int, source: String) throws(FaceCropError) -> Picture {
        var made: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_ImageFitting(handle, Int32(clamping: maxWidth), Int32(clamping: maxHeight), &made, &message)
        guard status == 0, let made else {
            throw Vips.error(status, message, source: source, fallback: "could not resize")
        }
        return Picture(handle: made, bytes: bytes)
    }

    /// Decodes into memory now so that several regions can be read from it.
    func materialize(source: String) throws(FaceCropError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_ImageMaterialize(handle, &message)
        guard status == 0 else {
            throw Vips.error(status, message, source: source, fallback: "could not decode")
        }
    }

    /// 8-bit grayscale pixels, rows packed.
    func grayPixels(source: String) throws(FaceCropError) -> GrayImage {
        let (width, height, data) = try pixels(bands: 1, source: source)
        return GrayImage(width: width, height: height, pixels: data)
    }

    /// 8-bit sRGB pixels, 3 bytes a pixel, rows packed.
    func rgbPixels(source: String) throws(FaceCropError) -> RGBImage {
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
    func encodeCrop(
        _ square: PixelSquare, pad: PadMode, side: Int, format: OutputFormat, quality: Int, angle: Double = 0,
        source: String
    ) throws(FaceCropError) -> [UInt8] {
        var spec = CVipsShim_CropSpec(
            left: Int32(clamping: square.left), top: Int32(clamping: square.top),
            side: Int32(clamping: square.side),
            pad: pad == .black ? CVipsShim_PadBlack : CVipsShim_PadEdge,
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
struct GrayImage: Sendable {
    var width: Int
    var height: Int
    var pixels: [UInt8]
}

struct RGBImage: Sendable {
    var width: Int
    var height: Int
    /// R, G, B bytes, rows packed.
    var pixels: [UInt8]
}

extension OutputFormat {
    fileprivate var shimFormat: CVipsShim_Format {
        switch self {
        case .jpg: CVipsShim_JPEG
        case .png: CVipsShim_PNG
        case .webp: CVipsShim_WebP
        }
    }
}

func systemError(_ code: Int32) -> String {
    String(cString: strerror(code))
}

extension Vips {
    /// Loads the image file at `path` resized to exactly `side` x `side`, as
    /// packed 8-bit sRGB into `rgb` (reused from frame to frame, so a clip of
    /// any length needs one buffer).
    static func loadRGB(_ path: String, side: Int, into rgb: inout [UInt8]) throws(FaceCropError) {
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
