import Foundation

/// The head's pose from the face mesh's 468 points (MediaPipe's Face Mesh:
/// x and y in the chip's pixels, z the depth, larger away from the camera).
/// The face's own axes are read off the mesh: across it, the mean of the
/// vectors between points mirrored across the face; down it, forehead to
/// chin, made square to the first. On the people-devset's 25 portraits and
/// their mirror images (CenterFace's points) it gives |yaw + yaw'| 2.1°
/// against the five-point fit's 3.5°, and |roll + roll'| 0.6° against 2.9°;
/// the cascades' fit (dlib's points on the box and its mirror image) gives
/// 0.7° and 0.3°, the mesh 2.2° and 0.8° (docs/quality.md, "Pose").
package enum MeshPose {
    /// Pairs of mesh points mirrored across the face, its right side first:
    /// the eyes' outer and inner corners, the lids' middles, the mouth's
    /// corners, the cheeks, the temples, the brows, the nostrils.
    static let mirrored = [(33, 263), (133, 362), (159, 386), (145, 374), (61, 291), (234, 454), (127, 356), (70, 300), (98, 327)]
    /// The top of the forehead and the chin.
    static let (forehead, chin) = (10, 152)
    /// The network's depth against its x and y: the mesh read with its z as
    /// given turns faces less than the five-point fit does (22° against 36°
    /// for a face turned well aside); z times 1.7 agrees with the fit's yaw
    /// best on the people-devset (rms 3.8° over 50 faces, against 7.0° at 1).
    package static let depthScale = 1.7

    /// The pose of the face whose mesh `points` (x, y, z triples in chip
    /// pixels, `CFaceDetect_FaceMeshPoints` of them) were found on the chip
    /// that `chipToImage` maps into the photo: yaw and pitch against the
    /// chip's view, roll in the photo; to 0.1 degree. nil for too few points
    /// or a degenerate mesh.
    package static func pose(_ points: [Double], chipToImage m: Affine2D) -> FacePose? {
        guard points.count >= 3 * 468 else { return nil }
        func point(_ i: Int) -> (Double, Double, Double) { (points[3 * i], points[3 * i + 1], points[3 * i + 2] * depthScale) }
        var across = (0.0, 0.0, 0.0)
        for (right, left) in mirrored {
            let (r, l) = (point(right), point(left))
            across = (across.0 + l.0 - r.0, across.1 + l.1 - r.1, across.2 + l.2 - r.2)
        }
        let length = (across.0 * across.0 + across.1 * across.1 + across.2 * across.2).squareRoot()
        let (top, bottom) = (point(forehead), point(chin))
        var down = (bottom.0 - top.0, bottom.1 - top.1, bottom.2 - top.2)
        guard length > 0 else { return nil }
        let x = (across.0 / length, across.1 / length, across.2 / length)
        let along = down.0 * x.0 + down.1 * x.1 + down.2 * x.2
        down = (down.0 - along * x.0, down.1 - along * x.1, down.2 - along * x.2)
        guard hypot(down.0, down.1) > 0 else { return nil }
        let degrees = 180 / Double.pi
        // The far side of a face turned towards the image's right is its left: z grows along x.
        let yaw = atan2(x.2, hypot(x.0, x.1)) * degrees
        // A face looking up brings its chin nearer than its forehead.
        let pitch = atan2(-down.2, hypot(down.0, down.1)) * degrees
        let roll = (atan2(x.1, x.0) + atan2(m.d, m.a)) * degrees
        func tenth(_ value: Double) -> Double {
            var v = value.truncatingRemainder(dividingBy: 360)
            if v > 180 { v -= 360 } else if v < -180 { v += 360 }
            return (v * 10).rounded() / 10
        }
        return FacePose(yaw: tenth(yaw), pitch: tenth(pitch), roll: tenth(roll))
    }
}
