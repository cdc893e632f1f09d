import FaceCropCore

// A detection decode turned by a quarter turn: the canvas a turned face is
// found again on, and the one its quality is measured on. Pure pixel moves
// (no resampling), so a face found on it maps back exactly.

extension GrayImage {
    /// The image turned `turn.degrees` clockwise.
    package func turned(_ turn: QuarterTurn) -> GrayImage {
        guard !turn.isUpright else { return self }
        let (w, h) = turn.size(width: width, height: height)
        return GrayImage(width: w, height: h, pixels: TurnedPixels.turn(pixels, width: width, height: height, channels: 1, turn))
    }
}

extension RGBImage {
    /// The image turned `turn.degrees` clockwise.
    package func turned(_ turn: QuarterTurn) -> RGBImage {
        guard !turn.isUpright else { return self }
        let (w, h) = turn.size(width: width, height: height)
        return RGBImage(width: w, height: h, pixels: TurnedPixels.turn(pixels, width: width, height: height, channels: 3, turn))
    }
}

enum TurnedPixels {
    /// `pixels` (`width` x `height`, `channels` bytes a pixel, rows packed)
    /// turned clockwise: each output pixel is read from the source pixel
    /// `turn.turning` maps onto it.
    static func turn(_ pixels: [UInt8], width: Int, height: Int, channels: Int, _ turn: QuarterTurn) -> [UInt8] {
        let (w, h) = turn.size(width: width, height: height)
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        // The source of output pixel (x, y), by the inverse of `turning`.
                        let (sx, sy): (Int, Int)
                        switch turn.quarters {
                        case 1: (sx, sy) = (y, height - 1 - x)
                        case 2: (sx, sy) = (width - 1 - x, height - 1 - y)
                        default: (sx, sy) = (width - 1 - y, x)
                        }
                        let s = (sy * width + sx) * channels, d = (y * w + x) * channels
                        for c in 0..<channels { dst[d + c] = src[s + c] }
                    }
                }
            }
        }
        return out
    }
}
