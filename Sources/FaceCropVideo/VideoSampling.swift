/// Which frames of a video are sampled: ffmpeg's `select` expression for
/// `--video-fps` and `--video-scenes` (keyframes only is `-skip_frame
/// nokey` before it, in `FrameReader`).
import FaceCropCore

package enum VideoSampling {
    /// `--video-scenes` alone: ffmpeg's scene score above which a frame
    /// starts a new shot. Between the highest score of motion within a shot
    /// (0.22: a shaking, zooming, noisy hand-held take) and the lowest of a
    /// cut between two different portraits (0.44) on the test clips
    /// (docs/video.md, Scene changes); ffmpeg's own example uses 0.4.
    package static let defaultSceneThreshold = 0.3
    /// A scene sample is taken at most this many seconds after the last
    /// one: a flash (a white frame and back: two scores of 1) or a burst of
    /// cuts gives a sample, not one a frame.
    package static let sceneGap = 0.5
    /// Passes every frame, computing its mean absolute difference from the
    /// frame before (`lavfi.scd.mafd`, 0...100, which `metadata=print`
    /// then prints): the changes `CutFinder` finds the tracker's cuts in.
    /// The threshold of 100 marks no frame; only the values are read.
    package static let changeOfEveryFrame = "scdet=threshold=100"

    /// The `select` filter. Register 0 holds the next sample time: the
    /// first frame at or after it is taken, and the next is the next
    /// multiple of 1/F after that frame, so every sample is a real frame at
    /// its real time. With `--video-scenes T`, a frame whose scene score
    /// (its difference from the frame before, 0...1) is above T is also
    /// taken, the first frame of a new shot, unless the last such sample was
    /// less than `sceneGap` s before (register 1 holds when the next may
    /// be). The fps grid is kept: scene samples come on top of it.
    package static func select(_ settings: VideoSettings) -> String {
        let f = String(settings.fps)
        let grid = "st(0\\,(floor(t*\(f)+1e-6)+1)/\(f))"
        guard let threshold = settings.sceneThreshold else {
            return "select='if(gte(t\\,ld(0))\\,\(grid)\\,0)'"
        }
        // `if` evaluates only the branch it takes: st(1) runs only for a
        // scene sample. st(...)*0+1 is 1 whatever the time stored.
        let scene = "if(gt(scene\\,\(threshold))*gte(t\\,ld(1))\\,st(1\\,t+\(sceneGap))*0+1\\,0)"
        return "select='if(gte(t\\,ld(0))\\,\(grid)\\,\(scene))'"
    }
}
