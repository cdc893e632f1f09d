import Foundation

/// How a face lies in its photo when it is not upright: turned a quarter,
/// a half or three quarters clockwise, as in a photo stored sideways or
/// upside down without an EXIF orientation (a scan, a messenger's copy).
///
/// The one place a turned face is expressed. Everything of a face stays in
/// the photo's upright pixel frame (EXIF orientation applied), as for every
/// other face: its box, its landmarks, its crop's transform. What is turned
/// is said here, once: `degrees` (the manifest's `turned`), and the mapping
/// `toUpright` onto the face's own upright frame, the photo turned back by
/// `degrees` anticlockwise, in which its pose and quality are measured and
/// its descriptor's pixels are cut (Imaging's `GrayImage.turned` and
/// `RGBImage.turned` turn the pixels). A step that reads a face's pixels or
/// points (dense landmarks, a descriptor) maps them with these.
public struct QuarterTurn: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// 0, 90, 180 or 270: degrees the face is turned clockwise in the photo.
    public let degrees: Int

    public static let upright = QuarterTurn(quarters: 0)

    /// `quarters` clockwise quarter turns (any integer, taken modulo 4).
    public init(quarters: Int) {
        degrees = ((quarters % 4 + 4) % 4) * 90
    }

    /// From the manifest's value; nil for anything but 0, 90, 180, 270.
    public init?(degrees: Int) {
        guard degrees % 90 == 0, (0..<360).contains(degrees) else { return nil }
        self.degrees = degrees
    }

    public var quarters: Int { degrees / 90 }
    public var isUpright: Bool { degrees == 0 }
    public var description: String { "\(degrees)" }

    /// The turn that undoes this one.
    public var reversed: QuarterTurn { QuarterTurn(quarters: -quarters) }

    /// The size of a `width` x `height` image turned this way.
    public func size(width: Int, height: Int) -> (width: Int, height: Int) {
        quarters % 2 == 0 ? (width, height) : (height, width)
    }

    /// Pixel centres of a `width` x `height` image -> those of the image
    /// turned `degrees` clockwise (pixel-centre coordinates, as
    /// Alignment.swift's convention).
    public func turning(width: Int, height: Int) -> Affine2D {
        let (w, h) = (Double(width - 1), Double(height - 1))
        switch quarters {
        case 1: return Affine2D(0, -1, h, 1, 0, 0)
        case 2: return Affine2D(-1, 0, w, 0, -1, h)
        case 3: return Affine2D(0, 1, 0, -1, 0, w)
        default: return .identity
        }
    }

    /// Upright photo pixels (`width` x `height`) -> the face's upright
    /// frame: the photo turned `degrees` anticlockwise.
    public func toUpright(width: Int, height: Int) -> Affine2D {
        reversed.turning(width: width, height: height)
    }

    /// A box of a `width` x `height` image, in the image turned `degrees`
    /// clockwise (pixel edges).
    public func turn(_ box: PixelRect, width: Int, height: Int) -> PixelRect {
        let (x0, y0, x1, y1) = (box.x, box.y, box.x + box.width, box.y + box.height)
        switch quarters {
        case 1: return PixelRect(x: height - y1, y: x0, width: box.height, height: box.width)
        case 2: return PixelRect(x: width - x1, y: height - y1, width: box.width, height: box.height)
        case 3: return PixelRect(x: y0, y: width - x1, width: box.height, height: box.width)
        default: return box
        }
    }

    /// Degrees a face with these landmarks is turned clockwise from upright
    /// (-180...180): the line from eye to eye, pointed so that the mouth lies
    /// on its clockwise side, as it does below the eyes of an upright face.
    /// Nil when the points give no direction.
    public static func roll(of landmarks: FaceLandmarks) -> Double? {
        let eyes = 0.5 * (landmarks[.leftEye] + landmarks[.rightEye])
        let down = 0.5 * (landmarks[.mouthLeft] + landmarks[.mouthRight]) - eyes
        var across = landmarks[.rightEye] - landmarks[.leftEye]
        if across.rot90.x * down.x + across.rot90.y * down.y < 0 { across = -1 * across }
        guard across.length > 1e-9 else { return nil }
        return atan2(across.y, across.x) * 180 / .pi
    }

    /// The quarter turn of a face turned `roll` degrees clockwise: upright
    /// within `upTo` degrees either way (a tilted head, which `--align level`
    /// levels), else the nearest quarter.
    public static func nearest(roll: Double, upTo limit: Double = 60) -> QuarterTurn {
        abs(roll) <= limit ? .upright : QuarterTurn(quarters: Int((roll / 90).rounded()))
    }

    /// `angle` (degrees) less this turn, in -180...180: what is left to level
    /// once the face is turned upright.
    public func residual(_ angle: Double) -> Double {
        var r = (angle - Double(degrees)).truncatingRemainder(dividingBy: 360)
        if r > 180 { r -= 360 } else if r <= -180 { r += 360 }
        return r
    }
}
