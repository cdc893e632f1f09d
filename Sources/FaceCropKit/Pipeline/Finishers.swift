import CVipsShim
import Foundation

/// A finished run, as the steps that read the whole dataset see it.
struct FinishedRun: Sendable {
    var output: String
    var options: Options
    /// Every photo's record, in manifest order, read from the state file.
    var records: StateRecords
    /// stats.json as written.
    var stats: JSON
    var temporaries: TemporaryFiles
    var stop: StopRequest
    /// The ffmpeg probed before the run, when it writes clips.
    var ffmpeg: FFmpeg?
}

/// Steps that run after the manifest is written and read the whole dataset:
/// each returns the errors it met (reported on stderr, exit status 1), never
/// throws. Add a step here with its own file; keep each one streaming (the
/// dataset may hold 100,000 crops).
enum Finishers {
    static func run(_ run: FinishedRun) async -> [String] {
        // The photos' images are gone: give their pages back before the
        // sheets take theirs, so the peak is the sheet, not both.
        CVipsShim_TrimMemory()
        // Blocking work (libvips, a subprocess): off the cooperative pool.
        return await withTaskExecutorPreference(BlockingExecutor()) { steps(run) }
    }

    private static func steps(_ run: FinishedRun) -> [String] {
        var failures: [String] = []
        if run.options.shard == nil { failures += HFMetadata.write(run) }
        if run.options.wantsClips, let ffmpeg = run.ffmpeg {
            failures += ClipStep.run(run, ffmpeg: ffmpeg)
        }
        // A shard sees only part of the dataset; `facecrop merge` makes the
        // sheets and the report of the whole.
        if run.options.shard != nil { return failures }
        var sheets: [String] = []
        if run.options.contactSheet {
            let made = ContactSheet.write(run)
            sheets = made.names
            failures += made.failures
        }
        if run.options.report, run.stop.requested == nil {
            failures += Report.write(run, sheets: sheets)
        }
        return failures
    }
}
