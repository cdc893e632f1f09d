import Foundation
import FaceCropCore

/// A detection decode turned by any angle about its centre, onto a canvas
/// that holds all of it (as `vips similarity` does): where a face rolled in
/// the photo lies upright, for a detector that finds only upright faces.
/// A point found on the canvas maps back into the decode exactly
/// (`toImage`); the pixels are resampled bilinearly in integer steps of
/// 1/256, so a canvas has the same bytes on every run.
package struct Roll: Sendable, Equatable {
    /// Degrees the canvas is turned clockwise (image y grows down).
    package let degrees: Double
    /// The image's size and the canvas's.
    package let width: Int, height: Int
    package let canvasWidth: Int, canvasHeight: Int
    /// Image pixel centres -> canvas pixel centres.
    package let toCanvas: Affine2D

    package init(degrees: Double, width: Int, height: Int) {
        let r = degrees * .pi / 180
        let (c, s) = (cos(r), sin(r))
        (self.degrees, self.width, self.height) = (degrees, width, height)
        // (Less a hair: a quarter roll's cosine is 6e-17, not 0.)
        canvasWidth = Int((Double(width) * abs(c) + Double(height) * abs(s) - 1e-9).rounded(.up))
        canvasHeight = Int((Double(width) * abs(s) + Double(height) * abs(c) - 1e-9).rounded(.up))
        let (ix, iy) = (Double(width - 1) / 2, Double(height - 1) / 2)
        let (ox, oy) = (Double(canvasWidth - 1) / 2, Double(canvasHeight - 1) / 2)
        toCanvas = Affine2D(c, -s, ox - c * ix + s * iy, s, c, oy - s * ix - c * iy)
    }

    /// A `side` x `side` canvas about the image point `centre` (pixel
    /// centres), the image turned `degrees` clockwise about it: a face's
    /// chip, black past the image.
    package init(degrees: Double, about centre: Point2D, side: Int, width: Int, height: Int) {
        let r = degrees * .pi / 180
        let (c, s) = (cos(r), sin(r))
        (self.degrees, self.width, self.height) = (degrees, width, height)
        (canvasWidth, canvasHeight) = (side, side)
        let o = Double(side - 1) / 2
        toCanvas = Affine2D(c, -s, o - c * centre.x + s * centre.y, s, c, o - s * centre.x - c * centre.y)
    }

    /// Canvas pixel centres -> image pixel centres.
    package var toImage: Affine2D { toCanvas.inverse ?? .identity }

    /// `pixels` (`channels` bytes a pixel, rows packed, the image's size)
    /// on the canvas; black where the canvas lies past the image.
    package func canvas(_ pixels: [UInt8], channels: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: canvasWidth * canvasHeight * channels)
        let back = toImage
        let (w, h) = (width, height)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<canvasHeight {
                    for x in 0..<canvasWidth {
                        let p = back.apply(Point2D(Double(x), Double(y)))
                        // Fixed point: the four neighbours' weights in 1/256.
                        let fx = Int((p.x * 256).rounded(.down)), fy = Int((p.y * 256).rounded(.down))
                        let (x0, y0) = (fx >> 8, fy >> 8)
                        guard x0 >= -1, y0 >= -1, x0 < w, y0 < h else { continue }
                        let (ax, ay) = (fx & 255, fy & 255)
                        let (inX0, inX1) = (x0 >= 0, x0 + 1 < w), (inY0, inY1) = (y0 >= 0, y0 + 1 < h)
                        let d = (y * canvasWidth + x) * channels
                        for ch in 0..<channels {
                            // A neighbour past the image counts as black.
                            func at(_ sx: Int, _ sy: Int) -> Int { src[(sy * w + sx) * channels + ch].int }
                            let top = (inY0 ? (inX0 ? (256 - ax) * at(x0, y0) : 0) + (inX1 ? ax * at(x0 + 1, y0) : 0) : 0)
                            let low = (inY1 ? (inX0 ? (256 - ax) * at(x0, y0 + 1) : 0) + (inX1 ? ax * at(x0 + 1, y0 + 1) : 0) : 0)
                            dst[d + ch] = UInt8(((256 - ay) * top + ay * low + 32_768) >> 16)
                        }
                    }
                }
            }
        }
        return out
    }
}

extension UInt8 {
    fileprivate var int: Int { Int(self) }
}

extension GrayImage {
    /// The image on `roll`'s canvas.
    package func rolled(_ roll: Roll) -> GrayImage {
        GrayImage(width: roll.canvasWidth, height: roll.canvasHeight, pixels: roll.canvas(pixels, channels: 1))
    }
}

extension RGBImage {
    /// The image on `roll`'s canvas.
    package func rolled(_ roll: Roll) -> RGBImage {
        RGBImage(width: roll.canvasWidth, height: roll.canvasHeight, pixels: roll.canvas(pixels, channels: 3))
    }
}
