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
    /// (frames repeated by a 25 -> 30 fps conversion) stood out 3.3 times,
    /// at 4 at most 2.1 times; cuts stood out 450 times or more.
    package static let window = 4
    /// How many times the mean of its neighbours' changes a cut's change
    /// is (PySceneDetect's default adaptive threshold): within shots the
    /// made clips reached 2.4 (hand-held sway with film noise).
    package static let contrast = 3.0
    /// The least change (ffmpeg scdet's mean absolute difference from the
    /// frame before, 0...100) that can be a cut: the lowest cut measured
    /// is 4.2, a still clip's largest change 0.39 (the hostile corpus'
    /// bframes.mp4).
    package static let least = 1.0
    /// A flash: two frames standing out within this many frames of each
    /// other, the second at least half the first's change (to white and
    /// back), is no cut. A camera flash lasts one or two frames.
    package static let flash = 3

    /// Whether each frame (by its change from the frame before, in
    /// decoding order) is a cut. The first frame never is.
    package static func cuts(_ changes: [Double]) -> [Bool] {
        let standing = changes.indices.map { standsOut($0, changes) }
        return changes.indices.map { frame in
            guard standing[frame] else { return false }
            let near = max(0, frame - flash)...min(changes.count - 1, frame + flash)
            return !near.contains { $0 != frame && standing[$0] && changes[$0] >= changes[frame] / 2 }
        }
    }

    /// Whether frame `frame`'s change is at least `least` and `contrast`
    /// times the mean of its neighbours' within `window` each side.
    static func standsOut(_ frame: Int, _ changes: [Double]) -> Bool {
        guard frame > 0, changes[frame] >= least else { return false }
        let around = max(0, frame - window)...min(changes.count - 1, frame + window)
        let neighbours = around.filter { $0 != frame }.map { changes[$0] }
        let mean = neighbours.reduce(0, +) / Double(max(1, neighbours.count))
        return changes[frame] >= contrast * mean
    }
}
