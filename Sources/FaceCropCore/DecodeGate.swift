import Foundation

/// A budget in bytes for the decodes that hold much of a photo in memory at
/// once: a photo whose format can only be decoded whole (HEIC and AVIF
/// above all: libheif's buffers and planes, ~65 MB at the peak for a 12 MP
/// HEIC; GIF; a PNG or TIFF stored turned), the region a photo's crops
/// need at (nearly) full resolution (a JPEG's at its decoder's reduction, a
/// PNG's or TIFF's at full size and bit depth, plus libvips' line cache),
/// and the detection decode of an upright PNG or TIFF, read from the file
/// at full size and shrunk on the way (libvips' line caches: 57 MB for a
/// 48 MP 16-bit TIFF; `PhotoHeader.streamingBytes`). JPEG and WebP are
/// decoded for detection by their decoder's reduction and do not pass
/// through here.
///
/// Decodes of at most `smallBytes` pass at once. Larger ones run while the
/// bytes they hold together stay within `budget`; one larger than the whole
/// budget waits until no other large decode holds any and then runs alone.
/// The other workers go on detecting, cropping and decoding small photos
/// meanwhile, so the peak memory is about one budget, not `--jobs` large
/// decodes, and throughput hardly changes.
///
/// Thread-safe: a condition lock; only photo workers (on Dispatch threads,
/// not the cooperative pool) wait on it.
package final class DecodeGate: @unchecked Sendable {
    /// Decodes of at most this many bytes pass without waiting.
    package let smallBytes: Int
    /// What the large decodes may hold together.
    package let budget: Int
    private let condition = NSCondition()
    private var held = 0

    /// 12 MB passes freely (a 4 MP 8-bit RGB decode); the budget, 64 MiB,
    /// lets one 12 MP HEIC decode (36 MB of pixels) run at a time as before.
    package init(smallBytes: Int = 12_000_000, budget: Int = 64 << 20) {
        (self.smallBytes, self.budget) = (smallBytes, budget)
    }

    package func admit<T>(bytes: Int, _ body: () throws(FaceCropError) -> T) throws(FaceCropError) -> T {
        guard bytes > smallBytes else { return try body() }
        let claim = min(bytes, budget)
        condition.lock()
        while held + claim > budget { condition.wait() }
        held += claim
        condition.unlock()
        defer {
            condition.lock()
            held -= claim
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
