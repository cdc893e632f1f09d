/// What step 3 (the pipeline) leaves for the commit.
import FaceCropCore
import FaceCropDetect
import FaceCropOutput
import FaceCropVideo

package struct Processed {
    package var completed = false
    package var counts = RunCounts()
    /// The disk filled: the photo that found out is not recorded.
    package var full: FaceCropError?
    package var writeFailure: WriteFailure?
    /// Photos `--since` / `--until` left out (not in the counts).
    package var outsideDates = 0
    /// Photos that could not be read now and were kept as the last run
    /// recorded them (`ReadFailure`): not in the counts' errors, but the run fails.
    package var keptUnread = 0
}

/// Step 3 of a run: the photos through the workers; each record goes to the
/// state file and the manifest as it arrives, in manifest order; none is
/// kept in memory.
package enum RunPipeline {
    package static func run(
        _ feed: PlanFeed, detectors: inout [Detector], files: RunFiles, setup: RunSetup, stop: StopRequest
    ) async -> Processed {
        var processor = PhotoProcessor(settings: setup.settings, outputRoot: setup.output, temporaries: files.temporaries)
        processor.journal = files.journal
        processor.rejections = setup.rejections
        processor.dates = setup.options.dates
        let dates = setup.options.dates
        processor.video = VideoStage(
            tools: setup.videoTools, toolsProblem: setup.videoProblem, stop: stop,
            cores: CoreShare(jobs: setup.options.effectiveJobs))
        let showBar = !setup.options.quiet && Terminal.stderrIsTerminal
        // The bar's total: on a terminal only, one more walk that only counts.
        let total = showBar ? ((try? Plan.walk(setup))?.reduce(0) { count, _ in count + 1 } ?? 0) : 0
        let progress = Progress(total: total, showBar: showBar)
        var processed = Processed()
        // The detectors (OpenCV's models and buffers) go with the pipeline
        // when it is done, before the steps after the run need memory.
        let work: @Sendable (Photo, PhotoRecord?, Detector) -> PhotoRecord = { [processor] photo, previous, detector in
            processor.process(photo, previous: previous, with: detector)
        }
        let pipeline = Pipeline(work: work, detectors: detectors, stop: stop)
        detectors = []
        var items = feed
        processed.completed = await pipeline.run(&items) { record, kept in
            var (record, kept) = (record, kept)
            if let earlier = ReadFailure.keeps(record, work: feed.oldest, output: setup.output) {
                await progress.say("facecrop: error: " + ReadFailure.message(record))
                processed.keptUnread += 1
                processed.counts.unreadable += 1
                (record, kept) = (earlier, true)
            }
            if case .outputFull? = record.error {
                // Every further write would fail: stop here. The photo is
                // not recorded, so the next run processes it.
                processed.full = record.error
                return false
            }
            // --since / --until: left out of the dataset (a kept record too,
            // when the dates changed since it was made).
            if record.outsideDates || (kept && record.status != .error && !dates.admits(record.taken)) {
                feed.leftOut(record)
                processed.outsideDates += 1
                return true
            }
            processed.counts.add(record, reused: kept)
            feed.recorded()
            await progress.record(record)
            do throws(WriteFailure) {
                let lines = Manifest.lines(of: record)
                try files.state.append(record, lines: lines)
                try files.manifest.append(lines)
                return true
            } catch {
                processed.writeFailure = error
                return false
            }
        }
        await progress.finish()
        return processed
    }
}
