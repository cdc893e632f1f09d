import Foundation

/// An axis-aligned rectangle in integer pixels.
public struct PixelRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var area: Int { width * height }
    public var description: String { "[\(x), \(y), \(width), \(height)]" }
}

/// A square region; it may reach outside the image it belongs to.
public struct PixelSquare: Sendable, Equatable, CustomStringConvertible {
    public var left: Int
    public var top: Int
    public var side: Int

    public init(left: Int, top: Int, side: Int) {
        self.left = left
        self.top = top
        self.side = side
    }

    public var description: String { "square(\(left), \(top), \(side))" }

    /// Whether any of it lies outside a `width` x `height` image.
    public func reachesOutside(width: Int, height: Int) -> Bool {
        left < 0 || top < 0 || left + side > width || top + side > height
    }
}

/// Crop geometry: pure functions, all in upright pixels.
public enum CropGeometry {
    /// Maps a box found in a `from` sized image onto a `to` sized image of the
    /// same photo, clamped to the target image.
    public static func map(
        _ box: PixelRect, from: (width: Int, height: Int), to: (width: Int, height: Int)
    ) -> PixelRect {
        let sx = Double(to.width) / Double(from.width)
        let sy = Double(to.height) / Double(from.height)
        let x0 = max(0, min(to.width, Int((Double(box.x) * sx).rounded())))
        let y0 = max(0, min(to.height, Int((Double(box.y) * sy).rounded())))
        let x1 = max(x0, min(to.width, Int((Double(box.x + box.width) * sx).rounded())))
        let y1 = max(y0, min(to.height, Int((Double(box.y + box.height) * sy).rounded())))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The square to cut around `face`: its longer side plus `margin` of that
    /// side on every edge, centred on the face, then shifted to lie inside the
    /// image. Where the square is larger than the image in a direction, it is
    /// centred on the image in that direction and the rest is padding; with
    /// `inside` it is shrunk to the image's shorter side instead (so less
    /// margin, never padding), and placed as close to the face's centre as
    /// the image allows.
    public static func cropSquare(
        around face: PixelRect, margin: Double, imageWidth: Int, imageHeight: Int, inside: Bool = false
    ) -> PixelSquare {
        var side = squareSide(around: face, margin: margin)
        if inside { side = max(1, min(side, imageWidth, imageHeight)) }
        let centreX = Double(face.x) + Double(face.width) / 2
        let centreY = Double(face.y) + Double(face.height) / 2
        let left = place(start: Int((centreX - Double(side) / 2).rounded(.down)), side: side, extent: imageWidth)
        let top = place(start: Int((centreY - Double(side) / 2).rounded(.down)), side: side, extent: imageHeight)
        return PixelSquare(left: left, top: top, side: side)
    }

    /// The side of the square `margin` asks for around `face` (before any
    /// shrinking to fit the photo).
    public static func squareSide(around face: PixelRect, margin: Double) -> Int {
        max(1, Int((Double(max(face.width, face.height)) * (1 + 2 * margin)).rounded()))
    }

    /// The margin a square of `side` gives a face of `face`'s longer side,
    /// `margin` having been asked: `margin` itself where `side` is the side
    /// it asks for (its rounding to whole pixels is no change of margin),
    /// else the smaller margin of a square shrunk to fit the photo.
    public static func marginUsed(side: Int, face: PixelRect, asked margin: Double) -> Double {
        guard side != squareSide(around: face, margin: margin) else { return margin }
        let faceSide = Double(max(face.width, face.height, 1))
        return max(0, (Double(side) / faceSide - 1) / 2)
    }

    private static func place(start: Int, side: Int, extent: Int) -> Int {
        if side <= extent {
            return min(max(start, 0), extent - side)
        }
        // Too large: centre it; the caller pads both ends.
        return -((side - extent) / 2)
    }

    /// The decode scale (at most 1) at which every square still has at least
    /// `outputSide` pixels, so no crop is enlarged that didn't have to be.
    public static func decodeScale(for squares: [PixelSquare], outputSide: Int) -> Double {
        var scale = 0.0
        for square in squares {
            scale = max(scale, min(1, Double(outputSide) / Double(square.side)))
        }
        return scale
    }

    /// The part of a `width` x `height` photo the crops of `squares` are cut
    /// from: every square, grown on each side by `grow` times its side plus 2
    /// pixels (room for a turned crop's corners), within the photo. A square
    /// that reaches past the photo's edge makes this reach that edge, so a
    /// crop padded from the edge pixels of this part is padded as from the
    /// photo's.
    public static func cover(_ squares: [PixelSquare], grow: Double, width: Int, height: Int) -> PixelRect {
        var left = width, top = height, right = 0, bottom = 0
        for square in squares {
            let extra = grow > 0 ? Int((Double(square.side) * grow).rounded(.up)) + 2 : 0
            left = min(left, max(0, square.left - extra))
            top = min(top, max(0, square.top - extra))
            right = max(right, min(width, square.left + square.side + extra))
            bottom = max(bottom, min(height, square.top + square.side + extra))
        }
        guard right > left, bottom > top else { return PixelRect(x: 0, y: 0, width: width, height: height) }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// `square` in the pixels of a copy of the image scaled by `sx`, `sy`.
    public static func scale(_ square: PixelSquare, sx: Double, sy: Double) -> PixelSquare {
        let left = Int((Double(square.left) * sx).rounded())
        let top = Int((Double(square.top) * sy).rounded())
        let side = max(1, Int((Double(square.side) * max(sx, sy)).rounded()))
        return PixelSquare(left: left, top: top, side: side)
    }
}

extension PixelRect {
    /// Intersection over union with `other` (0 when they do not touch).
    public func iou(_ other: PixelRect) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        let overlap = Double(w) * Double(h)
        return overlap / (Double(area) + Double(other.area) - overlap)
    }

    /// The share of the smaller of the two boxes that lies inside the other
    /// (0 when they do not touch, 1 when one holds the other).
    public func coverOfSmaller(_ other: PixelRect) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0, area > 0, other.area > 0 else { return 0 }
        return Double(w) * Double(h) / Double(min(area, other.area))
    }

    /// Whether the centre of `other` lies inside this box.
    public func holdsCentre(of other: PixelRect) -> Bool {
        let (cx, cy) = (2 * other.x + other.width, 2 * other.y + other.height)
        return cx >= 2 * x && cx <= 2 * (x + width) && cy >= 2 * y && cy <= 2 * (y + height)
    }
}

/// A 2 x 3 affine matrix `[[a, b, c], [d, e, f]]`:
/// `x' = a x + b y + c`, `y' = d x + e y + f`.
public struct Affine2D: Sendable, Equatable, CustomStringConvertible {
    public var a, b, c, d, e, f: Double

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    public static let identity = Affine2D(1, 0, 0, 0, 1, 0)

    /// Scale by `k` about the origin, then move by (`tx`, `ty`).
    package static func scaling(_ k: Double, tx: Double = 0, ty: Double = 0) -> Affine2D {
        Affine2D(k, 0, tx, 0, k, ty)
    }

    public var rows: [[Double]] { [[a, b, c], [d, e, f]] }
    public var description: String { "[[\(a), \(b), \(c)], [\(d), \(e), \(f)]]" }

    public func apply(_ p: Point2D) -> Point2D {
        Point2D(a * p.x + b * p.y + c, d * p.x + e * p.y + f)
    }

    package var determinant: Double { a * e - b * d }

    /// How much lengths grow (the geometric mean of the two axes).
    package var scale: Double { abs(determinant).squareRoot() }

    /// Degrees the transform turns anticlockwise on screen (y down).
    package var angle: Double { -atan2(d, a) * 180 / .pi }

    /// The reverse mapping, or nil when the matrix is singular.
    public var inverse: Affine2D? {
        let det = determinant
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        let ia = e / det, ib = -b / det, id = -d / det, ie = a / det
        return Affine2D(ia, ib, -(ia * c + ib * f), id, ie, -(id * c + ie * f))
    }

    /// This mapping followed by `next`.
    package func then(_ next: Affine2D) -> Affine2D {
        Affine2D(
            next.a * a + next.b * d, next.a * b + next.b * e, next.a * c + next.b * f + next.c,
            next.d * a + next.e * d, next.d * b + next.e * e, next.d * c + next.e * f + next.f)
    }
}

/// The five face landmarks, named by where they lie in the image, not on the
/// person: `leftEye` is the eye nearer the image's left edge (the person's
/// right eye in a frontal photo), `mouthLeft` the mouth corner nearer it.
/// ArcFace's template and YuNet's output are in this order.
public struct FaceLandmarks: Sendable, Equatable {
    public enum Name: String, CaseIterable, Sendable {
        case leftEye = "left_eye", rightEye = "right_eye", nose, mouthLeft = "mouth_left", mouthRight = "mouth_right"
    }

    /// In `Name` order.
    public var points: [Point2D]
    /// Which points were estimated from the others rather than found.
    public var estimated: Set<Name>

    public init(_ points: [Point2D], estimated: Set<Name> = []) {
        precondition(points.count == 5, "five landmarks")
        self.points = points
        self.estimated = estimated
    }

    public subscript(_ name: Name) -> Point2D {
        points[Name.allCases.firstIndex(of: name)!]
    }

    /// The points that were found, in `Name` order.
    package var found: [(name: Name, point: Point2D)] {
        zip(Name.allCases, points).filter { !estimated.contains($0.0) }.map { ($0.0, $0.1) }
    }

    /// The same landmarks in another image's pixels.
    package func mapped(_ transform: Affine2D) -> FaceLandmarks {
        FaceLandmarks(points.map(transform.apply), estimated: estimated)
    }
}

/// A point in pixels (see the convention above).
public struct Point2D: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }

    package static func + (p: Point2D, q: Point2D) -> Point2D { Point2D(p.x + q.x, p.y + q.y) }
    package static func - (p: Point2D, q: Point2D) -> Point2D { Point2D(p.x - q.x, p.y - q.y) }
    package static func * (k: Double, p: Point2D) -> Point2D { Point2D(k * p.x, k * p.y) }

    /// Length of the vector.
    package var length: Double { (x * x + y * y).squareRoot() }
    /// The vector turned a quarter towards +y (clockwise on screen): `(-y, x)`,
    /// numpy's `flipud(v) * [-1, 1]`.
    package var rot90: Point2D { Point2D(-y, x) }

    package func distance(to other: Point2D) -> Double { (self - other).length }
}
