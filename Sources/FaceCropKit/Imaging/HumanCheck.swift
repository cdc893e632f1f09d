/// A region of a grayscale image, copied out, with where it was.
struct GrayCut {
    var image: GrayImage
    var x: Int
    var y: Int

    /// `box` grown by a quarter of its width on every side, clipped to
    /// `gray`; nil when nothing of it lies inside.
    init?(_ gray: GrayImage, around box: PixelRect) {
        let grow = box.width / 4
        let x0 = max(0, box.x - grow), y0 = max(0, box.y - grow)
        let x1 = min(gray.width, box.x + box.width + grow), y1 = min(gray.height, box.y + box.height + grow)
        guard x1 > x0, y1 > y0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: (x1 - x0) * (y1 - y0))
        for row in y0..<y1 {
            let from = row * gray.width + x0
            pixels.replaceSubrange((row - y0) * (x1 - x0)..<(row - y0 + 1) * (x1 - x0), with: gray.pixels[from..<from + x1 - x0])
        }
        image = GrayImage(width: x1 - x0, height: y1 - y0, pixels: pixels)
        x = x0
        y = y0
    }
}

extension PixelRect {
    /// Intersection over union with `other` (0 when they do not touch).
    func iou(_ other: PixelRect) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        let shared = Double(w * h)
        return shared / (Double(width * height + other.width * other.height) - shared)
    }
}
