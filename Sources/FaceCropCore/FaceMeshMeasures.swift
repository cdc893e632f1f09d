import Foundation

/// What the quality record reads from the face mesh (MediaPipe's Face Mesh
/// and iris networks; `FaceMesh` runs them) and the chip they run on: an
/// upright square around the face, cut from its two eye centres and a point
/// below them (the nose or the mouth).
package enum FaceMeshMeasures {
    /// The iris network's eye contour (71 points an eye; MediaPipe's
    /// iris_landmark): points 0-8 run along the lower lid from one corner (0)
    /// to the other (8), 9-15 along the upper lid; 11, 12, 13 are the upper
    /// lid's middle.
    static let corners = (0, 8)
    static let upperLid = [11, 12, 13]

    /// How open an eye is: the height of its upper lid's middle above the
    /// line between its corners, over the corners' distance (about 0.2 for
    /// an open eye, under 0.1 for a closed one, 0 at least), to 0.001; nil
    /// for fewer than 16 points. `eye` is in upright chip pixels (y down the
    /// face). The upper lid alone, not the gap between the lids: a smile's
    /// cheeks raise the lower lid and narrow the gap (a broad smile's eyes
    /// read as a blink's), while a blink brings the upper lid down to the
    /// corners' line. On the tuning half of the eye set below it ranks open
    /// over closed with AUC 0.994 against the gap's 0.985 (docs/quality.md,
    /// "Smiles").
    package static func openness(_ eye: [Point2D]) -> Double? {
        guard eye.count >= 16 else { return nil }
        let (a, b) = (eye[corners.0], eye[corners.1])
        let width = hypot(b.x - a.x, b.y - a.y)
        guard width > 0 else { return 0 }
        // The corners' line's normal pointing up the face (towards smaller y).
        var (nx, ny) = ((b.y - a.y) / width, -(b.x - a.x) / width)
        if ny > 0 { (nx, ny) = (-nx, -ny) }
        let mid = Point2D((a.x + b.x) / 2, (a.y + b.y) / 2)
        let height = upperLid.map { (eye[$0].x - mid.x) * nx + (eye[$0].y - mid.y) * ny }.reduce(0, +)
            / Double(upperLid.count)
        return (max(0, height / width) * 1000).rounded() / 1000
    }

    /// The eye distance, in the detection decode's pixels (where the iris
    /// network's eye is cut), below which a face gets no `eyes_open` and so
    /// no `eyes_closed`: an eye there is under 5 px wide. On the detection
    /// devset with CenterFace, 20 of the 33 faces named `eyes_closed` had
    /// eyes under 12 px apart (of 252 such faces), as many in dark glasses,
    /// looking aside or open as shut; the 13 from 14.8 px up were shut,
    /// looking down, squinting, laughing or in dark glasses
    /// (docs/quality.md, "Small faces").
    package static let minEyeDistance = 12.0

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
