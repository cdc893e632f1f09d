import Dispatch

/// Formats without shrink-on-load (HEIC above all: libheif's decoder
/// buffers and planes, ~65 MB at the peak for a 12 MP HEIC) are decoded
/// whole, and a JPEG whose crops need a large part of the photo at (nearly)
/// full resolution decodes that part. This gate lets one such large decode
/// run at a time (for a crop decode: until its crops are written); the other
/// workers go on detecting, cropping and decoding JPEGs meanwhile, so the
/// peak memory is one large decode, not `--jobs` of them, and throughput
/// hardly changes (decoding one photo overlaps detecting another).
///
/// Thread-safe: a semaphore; only photo workers (on Dispatch threads, not
/// the cooperative pool) wait on it.
final class DecodeGate: Sendable {
    /// Decodes of at most this many stored pixels pass without waiting.
    let smallPixels: Int
    private let slot = DispatchSemaphore(value: 1)

    init(smallPixels: Int = 4_000_000) {
        self.smallPixels = smallPixels
    }

    func admit<T>(pixels: Int, _ body: () throws(FaceCropError) -> T) throws(FaceCropError) -> T {
        guard pixels > smallPixels else { return try body() }
        slot.wait()
        defer { slot.signal() }
        return try body()
    }
}
