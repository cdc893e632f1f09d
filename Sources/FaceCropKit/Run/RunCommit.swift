/// What step 4 (the commit) leaves for the finish.
import FaceCropCore
import FaceCropOutput
import FaceCropCurate
import FaceCropPeople

package struct Committed {
    package var stats: Stats
    package var writeFailure: WriteFailure?
}

/// Step 4 of a run: old crops pruned, the manifest and the state file put in
/// place (the journal goes), stats.json written.
package enum RunCommit {
    package static func commit(
        _ processed: Processed, feed: PlanFeed, files: RunFiles, setup: RunSetup, elapsed: Double
    ) -> Committed {
        var writeFailure = processed.writeFailure
        var counts = processed.counts
        var removed = 0
        // Crops of the last run that may not have been made again: those
        // the new state file does not list are pruned.
        if processed.completed && writeFailure == nil, let candidates = feed.pruneCandidates, !candidates.isEmpty {
            do throws(WriteFailure) {
                removed = Prune.files(try files.state.unclaimed(candidates), in: setup.output)
            } catch {
                writeFailure = error
            }
        }
        if writeFailure == nil {
            do throws(WriteFailure) {
                try putInPlace(processed, counts: &counts, feed: feed, files: files, setup: setup)
            } catch {
                writeFailure = error
            }
        }
        var stats = Stats(
            settings: setup.described, settingsHash: setup.settingsHash, counts: counts, elapsed: elapsed,
            jobs: setup.options.effectiveJobs, interrupted: !processed.completed && writeFailure == nil, removed: removed,
            shard: setup.options.shard)
        stats.splitNames = setup.settings.split?.parts.map(\.name) ?? []
        if writeFailure == nil {
            do throws(WriteFailure) {
                try AtomicFile.write(
                    Array((stats.json.pretty() + "\n").utf8), to: setup.output + "/stats\(setup.store.suffix).json",
                    temporaries: files.temporaries)
            } catch {
                writeFailure = error
            }
        }
        return Committed(stats: stats, writeFailure: writeFailure)
    }

    /// The manifest and the state file put in place, then (a whole run
    /// only) near-duplicates and people grouped over the dataset. `counts`
    /// become the grouping steps' (those that ran, when one fails).
    private static func putInPlace(
        _ processed: Processed, counts: inout RunCounts, feed: PlanFeed, files: RunFiles, setup: RunSetup
    ) throws(WriteFailure) {
        // Photos a stopped run did not reach keep their earlier
        // records, so the next run can still reuse them.
        if !processed.completed {
            try feed.earlierRecords { record throws(WriteFailure) in
                try files.state.append(record, lines: Manifest.lines(of: record))
            }
        }
        // --people: who each face was, read before the new state replaces the old.
        let grouping = setup.settings.people && setup.options.shard == nil && processed.completed
        let previous = grouping ? PreviousPeople(store: setup.store) : PreviousPeople()
        try files.manifest.commit()
        try files.state.commit()
        // Near-duplicates are grouped over the whole dataset; shards
        // write every crop and `merge` groups them.
        if let threshold = setup.settings.dedup, setup.options.shard == nil, processed.completed {
            let (reused, unreadable) = (counts.reused, counts.unreadable)
            counts = try DedupStep.run(
                store: setup.store, output: setup.output, threshold: threshold, split: setup.settings.split,
                settingsHash: setup.settingsHash, settings: setup.described, temporaries: files.temporaries)
            (counts.reused, counts.unreadable) = (reused, unreadable)
        }
        // People are grouped over the whole dataset too.
        if grouping {
            let settings = setup.settings
            counts = try PeopleStep.apply(
                to: counts, store: setup.store, output: setup.output, settingsHash: setup.settingsHash,
                settings: setup.described, temporaries: files.temporaries, previous: previous,
                curation: .init(split: settings.split, splitByPerson: settings.splitByPerson, keep: Set(settings.keepPerson)),
                people: .init(file: setup.people, path: setup.peoplePath, quiet: setup.options.quiet))
            counts.unreadable = processed.counts.unreadable
        }
    }
}
