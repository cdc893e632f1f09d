import FaceCropCore

// A detection decode shrunk by a whole factor, each output pixel the mean of
// a `factor` x `factor` block (the rows and columns left over at the right
// and bottom edges are dropped): the small canvas a cheap look for a face
// runs on. Integer sums only, so the same pixels on every machine.

extension GrayImage {
    /// The image shrunk `factor` times (1: itself).
    package func shrunk(by factor: Int) -> GrayImage {
        guard factor > 1 else { return self }
        let (w, h) = (max(1, width / factor), max(1, height / factor))
        return GrayImage(width: w, height: h, pixels: ShrunkPixels.shrink(pixels, width: width, height: height, channels: 1, factor))
    }
}

extension RGBImage {
    /// The image shrunk `factor` times (1: itself).
    package func shrunk(by factor: Int) -> RGBImage {
        guard factor > 1 else { return self }
        let (w, h) = (max(1, width / factor), max(1, height / factor))
        return RGBImage(width: w, height: h, pixels: ShrunkPixels.shrink(pixels, width: width, height: height, channels: 3, factor))
    }
}

enum ShrunkPixels {
    /// `pixels` (`width` x `height`, `channels` bytes a pixel, rows packed)
    /// with each `factor` x `factor` block replaced by its rounded mean; an
    /// image smaller than a block is taken as one block.
    static func shrink(_ pixels: [UInt8], width: Int, height: Int, channels: Int, _ factor: Int) -> [UInt8] {
        let (w, h) = (max(1, width / factor), max(1, height / factor))
        let (bw, bh) = (min(factor, width), min(factor, height))
        let count = bw * bh
        var out = [UInt8](repeating: 0, count: w * h * channels)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                var sums = [Int](repeating: 0, count: w * channels)
                for y in 0..<h {
                    for i in sums.indices { sums[i] = 0 }
                    for row in (y * bh)..<(y * bh + bh) {
                        let base = row * width * channels
                        for x in 0..<w {
                            for dx in 0..<bw {
                                let at = base + (x * bw + dx) * channels
                                for c in 0..<channels { sums[x * channels + c] += Int(src[at + c]) }
                            }
                        }
                    }
                    for i in sums.indices { dst[y * w * channels + i] = UInt8((sums[i] + count / 2) / count) }
                }
            }
        }
        return out
    }
}
