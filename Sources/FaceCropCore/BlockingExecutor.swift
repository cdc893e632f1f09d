import Dispatch

/// Runs tasks that spend their time in blocking C calls (libvips, OpenCV) on
/// Dispatch threads instead of Swift's cooperative pool, so `--jobs` photos
/// really run at once and the tasks that collect results and draw progress
/// are never starved. How many run at once is bounded by the pipeline's
/// window, not here.
package final class BlockingExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "facecrop.photos", attributes: .concurrent)

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
