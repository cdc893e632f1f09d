/// What step 4 (the commit) leaves for the finish.
struct Committed {
    var stats: Stats
    var writeFailure: WriteFailure?
}

/// Step 4 of a run: old crops pruned, the manifest and the state file put in
/// place (the journal goes), stats.json written.
enum RunCommit {
    static func commit(
        _ processed: Processed, plan: Plan, loaded: StateStore.Loaded, files: RunFiles, setup: RunSetup, elapsed: Double
    ) -> Committed {
        var writeFailure = processed.writeFailure
        var removed = 0
        if processed.completed && writeFailure == nil && setup.options.prune {
            removed = Prune.files(processed.unclaimed, in: setup.output)
        }
        if writeFailure == nil {
            do throws(WriteFailure) {
                // Photos a stopped run did not reach keep their earlier
                // records, so the next run can still reuse them.
                if !processed.completed {
                    for item in plan.items[processed.recorded...] {
                        if let record = plan.earlier(item, loaded: loaded) {
                            try files.state.append(record, lines: Manifest.lines(of: record))
                        }
                    }
                }
                try files.manifest.commit()
                try files.state.commit()
            } catch {
                writeFailure = error
            }
        }
        let stats = Stats(
            settings: setup.described, settingsHash: setup.settingsHash, counts: processed.counts, elapsed: elapsed,
            jobs: setup.options.effectiveJobs, interrupted: !processed.completed && writeFailure == nil, removed: removed,
            shard: setup.options.shard)
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
}
