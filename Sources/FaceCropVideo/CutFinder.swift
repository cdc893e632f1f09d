/// Finds cuts by contrast: a frame is a cut when its change from the frame
/// before stands out against the changes of the frames around it, as
/// PySceneDetect's adaptive detector judges a frame's score against the
/// rolling mean of its neighbours'. A level (ffmpeg's scene score above
/// 0.3) missed cuts between similar pictures: three letterboxed portraits
/// of one person change by 4.2 and 5.1 at their cuts and by under 0.005
/// between them (docs/video.md, Cuts end tracks). Pure and deterministic.
package enum CutFinder {
    /// Frames each side whose changes make the frame's surroundings (4 at
    /// 30 fps is 0.13 s): at 2 frames a side the jerky start of a pan
    /// (frames repeated by a 25 -> 30 fps conversion) stood out 3.3 times
    /// the mean, at 4 at most 2.1 times; cuts stood out 450 times or more.
    package static let window = 4
    /// How many times the mean of its neighbours' changes a cut's change
    /// is (PySceneDetect's default adaptive threshold): within shots the
    /// made clips reached 2.4 (hand-held sway with film noise); the cuts
    /// 4.9 or more.
    package static let contrast = 3.0
    /// How many times the largest of its neighbours' changes a cut's
    /// change is. A camera flash (to white and back, one or two frames
    /// apart) is two changes of the same size; the noise of a hand-held
    /// clip, encoded, comes in bursts (x264 keeps it in some frames and
    /// smooths it in others: changes of 3.2 among 0.3), which the mean lets
    /// through 4 times in 6 s; those stood out at most 1.04 times their
    /// largest neighbour, cuts 3.4 times or more.
    package static let peak = 1.5
    /// The least change (ffmpeg scdet's mean absolute difference from the
    /// frame before, 0...100) that can be a cut: the lowest cut measured is
    /// 4.2 (similar pictures between bars); a slow zoom's pixel steps
    /// (`zoompan`) change by 1.2 among 0.3.
    package static let least = 2.0

    /// Whether each frame (by its change from the frame before, in
    /// decoding order) is a cut. The first frame never is.
    package static func cuts(_ changes: [Double]) -> [Bool] {
        changes.indices.map { frame in
            guard frame > 0, changes[frame] >= least else { return false }
            let around = max(0, frame - window)...min(changes.count - 1, frame + window)
            let neighbours = around.filter { $0 != frame }.map { changes[$0] }
            let mean = neighbours.reduce(0, +) / Double(max(1, neighbours.count))
            return changes[frame] >= contrast * mean && changes[frame] >= peak * (neighbours.max() ?? 0)
        }
    }
}
