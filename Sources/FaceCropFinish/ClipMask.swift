import Foundation
import FaceCropCore

/// A rectangle in a frame's pixels, with fractional edges.
package struct FrameBox: Sendable, Equatable {
    package var x: Double
    package var y: Double
    package var width: Double
    package var height: Double

    package init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}

/// The alpha mask of one clip frame: pure geometry, no pixels read.
///
/// Alpha is 255 on and inside the shape and falls linearly to 0 over a
/// feather band outside it, so the whole detected face stays opaque.
package enum ClipMask {
    /// The feather band's width as a fraction of the face box's shorter side.
    package static let featherFraction = 0.08

    /// Where the face sits in a crop rendered at `side` x `side`: the crop
    /// square is recomputed from the manifest's bbox (photo pixels), the
    /// photo's size and the margin, exactly as the crop was cut.
    package static func faceBox(
        bbox: PixelRect, photoWidth: Int, photoHeight: Int, margin: Double, inside: Bool = false, side: Int
    ) -> FrameBox {
        let square = CropGeometry.cropSquare(
            around: bbox, margin: margin, imageWidth: photoWidth, imageHeight: photoHeight, inside: inside)
        let scale = Double(side) / Double(square.side)
        return FrameBox(
            x: Double(bbox.x - square.left) * scale, y: Double(bbox.y - square.top) * scale,
            width: Double(bbox.width) * scale, height: Double(bbox.height) * scale)
    }

    /// The alpha value (0...255) of every pixel of a `side` x `side` frame,
    /// rows packed, written into `alpha` (reused from frame to frame).
    package static func render(_ shape: ClipMaskShape, face: FrameBox, side: Int, into alpha: inout [UInt8]) {
        let count = side * side
        if alpha.count != count { alpha = [UInt8](repeating: 0, count: count) }
        if shape == .none {
            for i in 0..<count { alpha[i] = 255 }
            return
        }
        let feather = max(1.0, featherFraction * min(face.width, face.height))
        let centreX = face.x + face.width / 2
        let centreY = face.y + face.height / 2
        // An ellipse of the box's proportions through its four corners.
        let radiusX = max(0.5, face.width / 2 * 2.0.squareRoot())
        let radiusY = max(0.5, face.height / 2 * 2.0.squareRoot())
        let halfWidth = face.width / 2
        let halfHeight = face.height / 2
        for row in 0..<side {
            let dy = Double(row) + 0.5 - centreY
            for column in 0..<side {
                let dx = Double(column) + 0.5 - centreX
                let outside: Double  // distance outside the shape, in pixels
                switch shape {
                case .oval:
                    let r = ((dx / radiusX) * (dx / radiusX) + (dy / radiusY) * (dy / radiusY)).squareRoot()
                    // Radial distance, exact for a circle and close for an ellipse.
                    outside = (r - 1) * (r > 0 ? (dx * dx + dy * dy).squareRoot() / r : 0)
                case .rect:
                    let ox = max(0, abs(dx) - halfWidth)
                    let oy = max(0, abs(dy) - halfHeight)
                    outside = (ox * ox + oy * oy).squareRoot()
                case .none:
                    outside = 0
                }
                alpha[row * side + column] = level(outside: outside, feather: feather)
            }
        }
    }

    private static func level(outside: Double, feather: Double) -> UInt8 {
        if outside <= 0 { return 255 }
        if outside >= feather { return 0 }
        return UInt8(((1 - outside / feather) * 255).rounded())
    }
}

extension ClipMask {
    /// Where the face sits in a turned crop (`--align level`, `arcface`,
    /// `ffhq`) rendered at `side` x `side`: the box's centre and size put
    /// through the crop's transform (for a crop of `cropSize` pixels), kept
    /// upright in the frame.
    package static func faceBox(bbox: PixelRect, transform: Affine2D, cropSize: Int, side: Int) -> FrameBox {
        let k = Double(side) / Double(cropSize)
        // Box centre in pixel-centre coordinates, then its crop pixel edge position.
        let centre = transform.apply(
            Point2D(Double(bbox.x) + Double(bbox.width) / 2 - 0.5, Double(bbox.y) + Double(bbox.height) / 2 - 0.5))
        let width = Double(bbox.width) * transform.scale * k, height = Double(bbox.height) * transform.scale * k
        return FrameBox(x: (centre.x + 0.5) * k - width / 2, y: (centre.y + 0.5) * k - height / 2, width: width, height: height)
    }
}
