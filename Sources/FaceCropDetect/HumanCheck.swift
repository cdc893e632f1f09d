/// A region of a grayscale image, copied out, with where it was.
import FaceCropCore
import FaceCropImaging

package struct GrayCut {
    package var image: GrayImage
    package var x: Int
    package var y: Int

    /// `box` grown by a quarter of its width on every side, clipped to
    /// `gray`; nil when nothing of it lies inside.
    package init?(_ gray: GrayImage, around box: PixelRect) {
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
