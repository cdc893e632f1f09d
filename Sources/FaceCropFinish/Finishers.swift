import CVipsShim
import Foundation
import FaceCropCore
import FaceCropOutput
import FaceCropCurate
import FaceCropPeople
import FaceCropVideo

/// A finished run, as the steps that read the whole dataset see it.
package struct FinishedRun: Sendable {
    package var output: String
    /// Every photo's record, in manifest order, read from the state file one at a time.
    package var records: StateRecords
    /// stats.json as written.
    package var stats: JSON
    package var temporaries: TemporaryFiles
    package var stop: StopRequest
    /// The rejections file as the run left it: the report embeds its lines
    /// so that a person's ticks are added to them (nil: it could not be
    /// read, and the report offers no ticks).
    package var rejections: RejectionsFile?
    /// The people file as the run used it: the People page embeds its lines
    /// (nil: it could not be read, and the page offers no editing).
    package var people: PeopleFile? = nil
    /// Each input's path by its label (`PhotoFinder.labels`): the report's
    /// faces without a crop are shown cut from their photo (empty: not shown).
    package var inputs: [String: String] = [:]

    package init(output: String, records: StateRecords, stats: JSON, temporaries: TemporaryFiles, stop: StopRequest,
        rejections: RejectionsFile? = nil, people: PeopleFile? = nil, inputs: [String: String] = [:]) {
        (self.output, self.records, self.stats, self.temporaries) = (output, records, stats, temporaries)
        (self.stop, self.rejections, self.people, self.inputs) = (stop, rejections, people, inputs)
    }
}

/// Which steps run after the manifest is written, each with its own settings.
package struct FinishSettings: Sendable {
    /// Clips to write (nil: none).
    package var clips: ClipSettings?
    package var contactSheet = true
    package var report = true
    /// A shard sees only part of the dataset: it writes its clips, but
    /// `facecrop merge` makes the sheets and the report of the whole.
    package var shard: Shard?
    /// `--split`'s names: each split folder gets its own metadata.jsonl, and
    /// the dataset card declares them.
    package var splits: [String] = []

    /// The defaults: a contact sheet and a report, no clips (`facecrop merge`).
    package init(splits: [String] = []) { self.splits = splits }

    /// From a run's options; `ffmpeg` is the one probed before the run (nil: no clips).
    package init(_ options: Options, ffmpeg: FFmpeg?) {
        clips = ffmpeg.map { ClipSettings(options, ffmpeg: $0) }
        contactSheet = options.contactSheet
        report = options.report
        shard = options.shard
        splits = options.split?.parts.map(\.name) ?? []
    }
}

/// Steps that run after the manifest is written and read the whole dataset:
/// each returns the errors it met (reported on stderr, exit status 1), never
/// throws. Add a step here with its own file and settings; keep each one
/// streaming (the dataset may hold 100,000 crops).
package enum Finishers {
    package static func run(_ run: FinishedRun, _ settings: FinishSettings) async -> [String] {
        // The photos' images are gone: give their pages back before the
        // sheets take theirs, so the peak is the sheet, not both.
        CVipsShim_TrimMemory()
        // Blocking work (libvips, a subprocess): off the cooperative pool.
        // Their messages carry ffmpeg's and libvips' words: made the same every run.
        return await withTaskExecutorPreference(BlockingExecutor()) { steps(run, settings).map { ExternalMessage.clean($0) } }
    }

    private static func steps(_ run: FinishedRun, _ settings: FinishSettings) -> [String] {
        var failures: [String] = []
        // A shard's crops are only part of the dataset: merge writes the whole's.
        if settings.shard == nil {
            let metadata = HFMetadata.write(run, splits: settings.splits)
            failures += metadata.failures
            failures += DatasetCard.write(run, splits: settings.splits, columns: metadata.columns)
        }
        if let clips = settings.clips {
            failures += ClipStep.run(run, clips, suffix: StateStore(output: run.output, shard: settings.shard).suffix)
        }
        if settings.shard != nil { return failures }
        var sheets: [String] = []
        if settings.contactSheet {
            let made = ContactSheet.write(run)
            sheets = made.names
            failures += made.failures
        }
        if settings.report, run.stop.requested == nil {
            let people = ReportPeople.write(run)
            failures += people.failures
            failures += Report.write(run, sheets: sheets, peoplePage: people.written)
        }
        return failures
    }
}
