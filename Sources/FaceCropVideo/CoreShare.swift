import Foundation
import FaceCropDetect

/// The run's `--jobs` cores, shared between the pipeline's workers and the
/// detection of one video's frames. A video is one work item, so a library
/// of one video would leave every worker but its own idle; a video borrows
/// those idle cores a batch of frames at a time, with detectors of its own
/// (OpenCV's cascades and dnn networks are not safe to share between
/// threads, so each helper lane has its own; CenterFace's is the
/// process's one network, taken in turns). At most `jobs` detections run at once: a
/// worker that starts while a batch holds a borrowed core waits for no one,
/// so that bound is exceeded by at most one batch's length.
///
/// Sendable by its lock: `busy` and `spare` are touched only while it is held.
package final class CoreShare: @unchecked Sendable {
    package let jobs: Int
    private let lock = NSLock()
    /// Workers processing a photo or video, plus cores lent to a video.
    private var busy = 0
    /// Helper detectors not lent now, kept for the next batch and video.
    private var spare: [Detector] = []

    package init(jobs: Int) { self.jobs = max(1, jobs) }

    /// A worker starts a photo or a video.
    package func enter() { lock.withLock { busy += 1 } }

    package func leave() { lock.withLock { busy -= 1 } }

    /// Up to `wanted` detectors like `detector`, each for a core no worker
    /// uses now; none when every core is busy. Give them back with `giveBack`.
    package func borrow(_ wanted: Int, like detector: Detector) -> [Detector] {
        var kept: [Detector] = []
        let count = lock.withLock {
            let free = min(wanted, max(0, jobs - busy))
            busy += free
            kept = Array(spare.suffix(free))
            spare.removeLast(kept.count)
            return free
        }
        // New helpers are made outside the lock (loading a cascade takes a while).
        while kept.count < count, let made = try? Detector(detector.config, sharing: detector) { kept.append(made) }
        if kept.count < count { lock.withLock { busy -= count - kept.count } }
        return kept
    }

    package func giveBack(_ helpers: [Detector]) {
        guard !helpers.isEmpty else { return }
        lock.withLock {
            busy -= helpers.count
            spare += helpers
        }
    }
}
