import Foundation

/// Yaw and roll from the face mesh's 468 points (MediaPipe's Face Mesh: x
/// and y in the chip's pixels, z the depth, larger away from the camera):
/// the face's axis across it is the mean of the vectors between points
/// mirrored across the face. On the people-devset's 25 portraits and their
/// mirror images (CenterFace's points) it gives |yaw + yaw'| 2.1° against
/// the five-point fit's 3.5°, and |roll + roll'| 0.6° against 2.9°; the
/// cascades' fit (dlib's points on the box and its mirror image) gives 0.7°
/// and 0.3°, the mesh 2.2° and 0.8° (docs/quality.md, "Pose from the face
/// mesh"). Pitch stays the five-point fit's: the mesh's forehead-to-chin
/// line passed the mirror test no better (|pitch - pitch'| 2.0° both) and
/// sits about 15° lower on Fixtures' frontal portraits.
package enum MeshPose {
    /// Pairs of mesh points mirrored across the face, its right side first:
    /// the eyes' outer and inner corners, the lids' middles, the mouth's
    /// corners, the cheeks, the temples, the brows, the nostrils.
    static let mirrored = [(33, 263), (133, 362), (159, 386), (145, 374), (61, 291), (234, 454), (127, 356), (70, 300), (98, 327)]
    /// The network's depth against its x and y: the mesh read with its z as
    /// given turns faces less than the five-point fit does (22° against 36°
    /// for a face turned well aside); z times 1.7 agrees with the fit's yaw
    /// best on the people-devset (rms 3.8° over 50 faces, against 7.0° at 1).
    package static let depthScale = 1.7
    /// The five-point fit's yaw up to which the mesh's is taken: the depth
    /// scale was set on faces the fit turns by 36° at most, and past them the
    /// mesh reads a face turned well aside as turned much less (Fixtures'
    /// camera.jpg: 27-36° against the fit's 65-69°, about 55° by eye), which
    /// would let `--max-yaw` keep profiles. Beyond it the fit's yaw is kept.
    package static let calibratedYaw = 40.0

    /// Yaw (against the chip's view) and roll (in the photo) of the face
    /// whose mesh `points` (x, y, z triples in chip pixels,
    /// `CFaceDetect_FaceMeshPoints` of them) were found on the chip that
    /// `chipToImage` maps into the photo, to 0.1 degree; nil for too few
    /// points or a degenerate mesh.
    package static func angles(_ points: [Double], chipToImage m: Affine2D) -> (yaw: Double, roll: Double)? {
        guard points.count >= 3 * 468 else { return nil }
        var (x, y, z) = (0.0, 0.0, 0.0)
        for (right, left) in mirrored {
            x += points[3 * left] - points[3 * right]
            y += points[3 * left + 1] - points[3 * right + 1]
            z += (points[3 * left + 2] - points[3 * right + 2]) * depthScale
        }
        guard hypot(x, y) > 0 else { return nil }
        let degrees = 180 / Double.pi
        // The far side of a face turned towards the image's right is its left: z grows along x.
        let yaw = atan2(z, hypot(x, y)) * degrees
        let roll = (atan2(y, x) + atan2(m.d, m.a)) * degrees
        func tenth(_ value: Double) -> Double {
            var v = value.truncatingRemainder(dividingBy: 360)
            if v > 180 { v -= 360 } else if v < -180 { v += 360 }
            return (v * 10).rounded() / 10
        }
        return (tenth(yaw), tenth(roll))
    }
}
