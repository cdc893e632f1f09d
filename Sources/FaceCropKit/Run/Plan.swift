import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropOutput
import FaceCropCurate
import FaceCropVideo

/// Step 2 of a run: what it has to do (which photos to process, which
/// earlier records to keep, which photos are gone), as a stream: the walk
/// of the inputs joined with the last run's state file, both in manifest
/// order (`PlanJoin`), fed to the pipeline as it goes (`PlanFeed`).
package enum Plan {
    /// The plan of this run, and the settings the last run's state was made
    /// with (their hash, and the settings themselves as its header has them). Crops deleted since the last run are recorded as rejections
    /// first (`DeletedCrops`), so the plan sees the rejections file as it
    /// will be.
    package static func make(_ setup: inout RunSetup, temporaries: TemporaryFiles) throws(FaceCropError)
        -> (feed: PlanFeed, stateHash: String?, stateSettings: [String: Any]?)
    {
        let options = setup.options
        let state = StateIndex(path: setup.store.statePath)
        let journal = JournalContents(path: setup.store.journalPath, settingsHash: setup.settingsHash)
        try RemovalGuard.check(setup, state: state, journal: journal)
        if options.recordDeletions && !setup.readOnly {
            setup.recordedDeletions = try DeletedCrops.record(journal: journal, setup: &setup, temporaries: temporaries)
        }
        let output = setup.output
        // Failed photos are tried again on every run, but for --check an
        // unchanged photo that failed before is as up to date as any other.
        var rules = PlanJoin.Rules(
            overwrite: options.overwrite, retryErrors: !options.check, stateCurrent: state.settingsHash == setup.settingsHash,
            cropExists: { access(output + "/" + $0, F_OK) == 0 }, rejections: setup.rejections)
        rules.keepMissing = !options.prune
        if let shard = options.shard { rules.owns = { shard.owns(label: $0, source: $1) } }
        rules.follow(setup.settings)
        // --dedup: whether the dataset's faces change is known only at the
        // end of the plan, so a first pass finds out (it stops at the first change).
        // --keep-person likewise: a face left out may be of a kept person now.
        if (setup.settings.dedup != nil || !setup.settings.keepPerson.isEmpty) && options.shard == nil {
            var first = try join(setup, state: state, journal: journal, rules: rules)
            rules.regroup = first.changesDataset()
        }
        let feed = PlanFeed(
            try join(setup, state: state, journal: journal, rules: rules), prune: !setup.readOnly,
            pruneGone: options.prune, listGone: setup.readOnly, journalCrops: journal.crops)
        return (feed, state.settingsHash, state.header["settings"] as? [String: Any])
    }

    /// The walk of this run's inputs joined with the state file and the journal.
    package static func join(_ setup: RunSetup, state: StateIndex, journal: JournalContents, rules: PlanJoin.Rules)
        throws(FaceCropError) -> PlanJoin
    {
        let path = setup.store.statePath
        return PlanJoin(
            walk: try walk(setup), labels: PhotoFinder.labels(for: setup.options.inputs),
            stateLabels: state.segments.map(\.label), records: { state.records(of: $0, path: path) },
            journal: journal.records, rules: rules)
    }

    /// What the walk finds that belongs to this shard, in manifest order.
    package static func walk(_ setup: RunSetup) throws(FaceCropError) -> AnyIterator<WalkItem> {
        let options = setup.options
        let finder = PhotoFinder(
            include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: setup.output,
            libraryEdits: options.libraryEdits, libraryDerivatives: options.libraryDerivatives, videos: options.videos,
            livePhotoVideos: options.livePhotoVideos)
        let walk = try finder.walk(options.inputs).makeIterator()
        guard let shard = options.shard else { return AnyIterator(walk) }
        return AnyIterator {
            while let item = walk.next() {
                switch item {
                case .photo(let photo): if shard.owns(label: photo.label, source: photo.source) { return item }
                // One that cannot be read, for every shard: records of its photos may be any shard's (`PlanJoin.Rules.owns`).
                case .problem(let problem): if problem.unreadable || shard.owns(label: problem.label, source: problem.source) { return item }
                }
            }
            return nil
        }
    }

    /// Whether a run would leave the photo out by `dates`, by its capture
    /// time as the run finds it (its header, else its Takeout sidecar); for
    /// --check and --dry-run. False when it cannot be read (a run reports it).
    /// A video's is its container's (ffprobe, with `videoTools`).
    package static func outside(_ dates: DateRange, _ photo: Photo, videoTools: VideoTools? = nil) -> Bool {
        guard !dates.isEmpty else { return false }
        let source = FileName.display(photo.source)
        if photo.isVideo { return outsideVideo(dates, photo, videoTools: videoTools) }
        guard let bytes = try? PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: source),
            let header = try? Picture.header(of: bytes, source: source)
        else { return false }
        return !dates.admits(header.taken ?? photo.sidecar.flatMap(Libraries.Sidecar.init(path:))?.taken)
    }

    /// `outside` for a video: ffprobe reads its capture time (the file is
    /// not hashed; one with a name that is not UTF-8 is, to give ffprobe a
    /// path that opens it).
    private static func outsideVideo(_ dates: DateRange, _ photo: Photo, videoTools: VideoTools?) -> Bool {
        let source = FileName.display(photo.source)
        guard let tools = videoTools else { return false }
        let bytes = photo.rawPath == nil ? nil : try? PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: source)
        guard photo.rawPath == nil || bytes != nil,
            let probe = try? VideoProbe.probe(tools, path: bytes?.processPath ?? photo.path, source: source)
        else { return false }
        return !dates.admits(probe.taken ?? photo.sidecar.flatMap(Libraries.Sidecar.init(path:))?.taken)
    }

    /// Whether the photo's bytes hash to the record's (reads the file).
    package static func sameContent(_ photo: Photo, as record: PhotoRecord) -> Bool {
        guard let bytes = try? PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: photo.source) else { return false }
        return bytes.sha256 == record.sha256
    }
}
