import CVipsShim
import Foundation
import FaceCropCore

// How a crop or a photo is hashed: libvips decodes it to the gray pixels the hash is made of.
extension PerceptualHash {
    /// The hash of an encoded crop (JPEG, PNG or WebP bytes), decoded with libvips.
    public init(encoded bytes: [UInt8], source: String = "crop") throws(FaceCropError) {
        try Vips.start()
        var pixels = [UInt8](repeating: 0, count: Self.side * Self.side)
        var message: UnsafeMutablePointer<CChar>?
        let status = bytes.withUnsafeBytes { raw in
            pixels.withUnsafeMutableBufferPointer { CVipsShim_HashPixels(raw.baseAddress, raw.count, $0.baseAddress, &message) }
        }
        guard status == 0 else {
            throw Vips.error(status, message, source: source, fallback: "could not decode crop")
        }
        self.init(gray: pixels)
    }

    /// The hash of a whole photo, from its gray detection decode: each of
    /// 32 x 32 cells the mean of the pixels it covers (the aspect ratio is
    /// not kept, as for a crop), then the same DCT. A resized or re-encoded
    /// copy of a photo hashes alike; `--dedup` compares faces that sit at the
    /// same place in such photos with a looser threshold (see `Dedup`).
    package init(photo gray: GrayImage) {
        let n = Self.side
        guard gray.width > 0, gray.height > 0 else {
            self.init(gray: [UInt8](repeating: 0, count: n * n))
            return
        }
        // The pixels of each cell's column and row (at least one, for a photo under 32 px).
        let spans = { (length: Int) in
            (0..<n).map { cell -> Range<Int> in
                let start = min(cell * length / n, length - 1)
                return start..<max((cell + 1) * length / n, start + 1)
            }
        }
        let columns = spans(gray.width), rows = spans(gray.height)
        var sums = [Int](repeating: 0, count: gray.height * n)  // each row summed into its n column cells
        for y in 0..<gray.height {
            let row = y * gray.width
            for (x, span) in columns.enumerated() {
                var sum = 0
                for at in span { sum += Int(gray.pixels[row + at]) }
                sums[y * n + x] = sum
            }
        }
        var pixels = [UInt8](repeating: 0, count: n * n)
        for (y, span) in rows.enumerated() {
            for x in 0..<n {
                var sum = 0
                for row in span { sum += sums[row * n + x] }
                let cells = span.count * columns[x].count
                pixels[y * n + x] = UInt8((sum + cells / 2) / cells)
            }
        }
        self.init(gray: pixels)
    }
}
