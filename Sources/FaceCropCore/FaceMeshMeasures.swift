import Foundation

/// What the quality record reads from the face mesh (MediaPipe's Face Mesh
/// and iris networks; `FaceMesh` runs them) and the chip they run on: an
/// upright square around the face, cut from its two eye centres and a point
/// below them (the nose or the mouth).
package enum FaceMeshMeasures {
    /// The iris network's eye contour (71 points an eye; MediaPipe's
    /// iris_landmark): points 0-8 run along the lower lid from one corner (0)
    /// to the other (8), 9-15 along the upper lid; 3, 4, 5 face 11, 12, 13.
    static let corners = (0, 8)
    static let lids = [(3, 11), (4, 12), (5, 13)]

    /// How open an eye is: the mean gap between its lids over the distance
    /// between its corners (about 0.3 for an open eye, under 0.15 for a
    /// closed one), to 0.001; nil for fewer than 16 points.
    package static func openness(_ eye: [Point2D]) -> Double? {
        guard eye.count >= 16 else { return nil }
        func gap(_ i: Int, _ j: Int) -> Double { hypot(eye[i].x - eye[j].x, eye[i].y - eye[j].y) }
        let width = gap(corners.0, corners.1)
        guard width > 0 else { return 0 }
        let lids = self.lids.map { gap($0.0, $0.1) }.reduce(0, +) / Double(self.lids.count)
        return (lids / width * 1000).rounded() / 1000
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
