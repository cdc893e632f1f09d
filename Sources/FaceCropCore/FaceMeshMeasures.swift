import Foundation

/// What the quality record reads from the face mesh's 468 points (MediaPipe's
/// Face Mesh topology; `FaceMesh` runs the network) and the chip they are
/// found on: an upright square around the face, cut from its two eye centres
/// and a point below them (the nose or the mouth).
package enum FaceMeshMeasures {
    /// An eye's contour points in the mesh: its two corners, and three pairs
    /// of points facing each other across the eyelids. `nearLeft` is the eye
    /// nearer the chip's left (the person's right eye in an upright photo).
    struct EyeContour {
        var corners: (Int, Int)
        var lids: [(Int, Int)]
    }

    static let nearLeft = EyeContour(corners: (33, 133), lids: [(160, 144), (159, 145), (158, 153)])
    static let nearRight = EyeContour(corners: (362, 263), lids: [(385, 380), (386, 374), (387, 373)])

    /// How open an eye is: the mean gap between its lids over the distance
    /// between its corners (about 0.3 for an open eye, under 0.1 for a closed
    /// one), to 0.001.
    static func openness(_ eye: EyeContour, points: [Point2D]) -> Double {
        func gap(_ i: Int, _ j: Int) -> Double { hypot(points[i].x - points[j].x, points[i].y - points[j].y) }
        let width = gap(eye.corners.0, eye.corners.1)
        guard width > 0 else { return 0 }
        let lids = eye.lids.map { gap($0.0, $0.1) }.reduce(0, +) / Double(eye.lids.count)
        return (lids / width * 1000).rounded() / 1000
    }

    /// Each eye's openness, the chip's left one first; nil for fewer than
    /// the mesh's 468 points.
    package static func eyesOpen(_ points: [Point2D]) -> [Double]? {
        guard points.count >= 468 else { return nil }
        return [openness(nearLeft, points: points), openness(nearRight, points: points)]
    }

    /// The chip's side in eye distances, and how far below the eyes' midpoint
    /// its centre lies (in eye distances): the face from brow to chin with a
    /// margin, as MediaPipe gives the network a face box enlarged 1.5 times.
    package static let chipSide = 3.6
    package static let chipDrop = 0.45

    /// Chip pixels (a `side` px square) -> image pixels, for a face whose eye
    /// centres are `eyeA` and `eyeB` (either order) and whose `below` (nose
    /// or mouth) lies below them: the chip is upright however the face is
    /// turned in the image. nil where the eyes coincide.
    package static func chip(eyeA: Point2D, eyeB: Point2D, below: Point2D, side: Int) -> Affine2D? {
        var (ex, ey) = (eyeB.x - eyeA.x, eyeB.y - eyeA.y)
        let mid = Point2D((eyeA.x + eyeB.x) / 2, (eyeA.y + eyeB.y) / 2)
        // Down the face, perpendicular to the eye line: the side `below` is on.
        if -ey * (below.x - mid.x) + ex * (below.y - mid.y) < 0 { (ex, ey) = (-ex, -ey) }
        let distance = hypot(ex, ey)
        guard distance > 0.5 else { return nil }
        let (ux, uy) = (ex / distance, ey / distance)
        let (nx, ny) = (-uy, ux)
        let centre = Point2D(mid.x + nx * chipDrop * distance, mid.y + ny * chipDrop * distance)
        let k = chipSide * distance / Double(side)
        let half = Double(side - 1) / 2
        // x along the eye line, y down the face, both k image pixels a chip pixel.
        return Affine2D(
            k * ux, k * nx, centre.x - k * (ux * half + nx * half),
            k * uy, k * ny, centre.y - k * (uy * half + ny * half))
    }
}
