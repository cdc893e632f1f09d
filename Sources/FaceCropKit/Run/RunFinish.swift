import Foundation
import FaceCropCore
import FaceCropCurate
import FaceCropFinish
import FaceCropInputs

/// Step 5 of a run: the finishing steps (clips, contact sheet, report), the
/// summary, and the exit status.
package enum RunFinish {
    package static func finish(
        _ committed: Committed, processed: Processed, setup: RunSetup, temporaries: TemporaryFiles, stop: StopRequest
    ) async -> Int32 {
        let options = setup.options
        let output = setup.output
        let stats = committed.stats
        var finisherFailures: [String] = []
        if committed.writeFailure == nil, processed.completed {
            let run = FinishedRun(
                output: output, records: setup.store.records, stats: stats.json, temporaries: temporaries, stop: stop,
                rejections: setup.rejections, people: setup.people,
                inputs: Dictionary(zip(PhotoFinder.labels(for: options.inputs), options.inputs)) { first, _ in first })
            finisherFailures = await Finishers.run(run, FinishSettings(options, ffmpeg: setup.ffmpeg))
            for failure in finisherFailures { Terminal.stderr("facecrop: error: \(failure)\n") }
        }
        if options.json {
            Terminal.stdout(stats.json.serialized() + "\n")
        }
        if let full = processed.full {
            Terminal.stderr("facecrop: error: \(full.description); stopped. Free some space and run again: the photos finished so far are kept.\n")
            return ExitStatus.failure
        }
        if let writeFailure = committed.writeFailure {
            let advice = writeFailure.isOutOfSpace ? " Free some space and run again: the photos finished so far are kept." : ""
            Terminal.stderr("facecrop: error: cannot write the dataset's records: \(writeFailure.reason).\(advice)\n")
            return ExitStatus.failure
        }
        if !options.quiet {
            Terminal.stderr(stats.summaryLine(output: output) + "\n")
            if !options.dates.isEmpty {
                let count = processed.outsideDates
                Terminal.stderr("facecrop: \(count) photo\(count == 1 ? "" : "s") left out by --since/--until (taken outside the dates, or with no capture time)\n")
            }
            if processed.keptUnread > 0 {
                Terminal.stderr(ReadFailure.summary(processed.keptUnread) + "\n")
            }
            if setup.recordedDeletions > 0 {
                Terminal.stderr(DeletedCrops.summary(setup.recordedDeletions, path: setup.rejectionsPath) + "\n")
            }
        }
        if let signal = stop.requested {
            return signal == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted
        }
        let failed = processed.counts.errors > 0 || processed.keptUnread > 0 || !finisherFailures.isEmpty
        return failed ? ExitStatus.failure : ExitStatus.success
    }
}
