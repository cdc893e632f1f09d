/// Where a face looks, coarsely: the bins pick spreads a person's crops
/// over. From the manifest's `pose` (degrees): within `frontalYaw` and
/// `frontalPitch` of straight on it is `frontal`; otherwise the larger turn
/// names it, yaw first when it is turned past `frontalYaw` at least as far
/// (relative to its limit) as it is tilted: `left` for a negative yaw,
/// `right` for a positive one, `up` for a positive pitch, `down` for a
/// negative one, as the signs of `pose` are defined. A dataset made before
/// `pose` existed has every face in `unknown`.
package enum PoseBin: String, Sendable, CaseIterable, Comparable {
    case frontal, left, right, up, down, unknown

    /// A head turned less than this (degrees) is still frontal: about where
    /// the far eye starts to be foreshortened.
    package static let frontalYaw = 20.0
    /// A head tilted up or down less than this (degrees) is still frontal.
    package static let frontalPitch = 15.0

    package init(_ pose: PickCandidate.Pose?) {
        guard let pose else {
            self = .unknown
            return
        }
        let turn = abs(pose.yaw) / Self.frontalYaw
        let tilt = abs(pose.pitch) / Self.frontalPitch
        if turn <= 1, tilt <= 1 {
            self = .frontal
        } else if turn >= tilt {
            self = pose.yaw < 0 ? .left : .right
        } else {
            self = pose.pitch > 0 ? .up : .down
        }
    }

    /// Declaration order: the order the bins are listed in.
    package static func < (a: PoseBin, b: PoseBin) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
