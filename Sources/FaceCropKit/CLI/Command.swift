import CVipsShim
import Foundation

/// The whole command: parse, set up, run, report. `main.swift` only wires
/// signals to `stop` and exits with the status this returns.
public enum FaceCropCommand {
    /// Where Debian's opencv-data (and other common layouts) keep the cascades.
    public static let cascadeFolders = [
        "/usr/share/opencv4/haarcascades",
        "/usr/share/opencv/haarcascades",
        "/usr/local/share/opencv4/haarcascades",
    ]
    public static let defaultCascade = "haarcascade_frontalface_alt2.xml"

    public static func run(arguments: [String], stop: StopRequest, temporaries: TemporaryFiles) async -> Int32 {

        if arguments.first == "merge" {
            return await MergeCommand.run(Array(arguments.dropFirst()), stop: stop, temporaries: temporaries)
        }
        var arguments = arguments
        let floor = arguments.first == "floor"
        if floor { arguments.removeFirst() }
        let options: Options
        do {
            options = try OptionTable.parse(arguments, requireOutput: !floor)
        } catch {
            return ArgumentReader.usageError(error.description, usage: OptionTable.usage)
        }
        if options.showHelp {
            Terminal.stdout(OptionTable.help)
            return ExitStatus.success
        }
        if options.showVersion {
            Terminal.stdout("facecrop \(OptionTable.version)\n")
            return ExitStatus.success
        }
        if options.showManual {
            Terminal.stdout(Manual.page)
            return ExitStatus.success
        }
        if let shell = options.completions {
            Terminal.stdout(Manual.completions(shell))
            return ExitStatus.success
        }
        do {
            if floor { return try await measureFloor(options, stop: stop) }
            return try await execute(options, stop: stop, temporaries: temporaries)
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    /// glibc's defaults suit long-lived servers, not a worker that decodes a
    /// 36 MB image, frees it and decodes the next: its mmap threshold grows
    /// after each large free, so later large buffers land on the heap and are
    /// not given back, and every thread gets its own arena. Measured on 12 MP
    /// HEIC photos with --jobs 2: peak RSS 336 MB with the defaults, 257 MB
    /// with a fixed 1 MB threshold and two arenas (README, Performance).
    public static func tuneMemory() {
        CVipsShim_TuneMalloc(1 << 20, 2)
    }

    static func resolveCascade(_ given: String?, name: String = defaultCascade) -> String {
        if let given { return given }
        for folder in cascadeFolders {
            let path = folder + "/" + name
            if access(path, R_OK) == 0 { return path }
        }
        return cascadeFolders[0] + "/" + name
    }

    /// The detector every worker gets, from the options.
    static func detectorConfig(_ options: Options) -> DetectorConfig {
        let main = resolveCascade(
            options.target == .face ? options.cascade : nil, name: DetectorConfig.cascadeName(for: options.target))
        let folder = (resolveCascade(nil) as NSString).deletingLastPathComponent
        return DetectorConfig(
            kind: options.detector, target: options.target, cascadePath: main, cascadeFolder: folder,
            modelPath: options.model, minNeighbors: options.minNeighbors,
            minScore: options.minScore ?? DetectorConfig.defaultMinScore(options.detector),
            needsPeople: options.personOnly, needsEyes: options.align)
    }

    /// `facecrop floor PHOTOS...`: what it costs only to decode each photo at
    /// the detection size and run one detection pass, with the same shims and
    /// window as a real run. Prints one JSON line; used by scripts/bench.
    static func measureFloor(_ options: Options, stop: StopRequest) async throws(FaceCropError) -> Int32 {
        let started = ContinuousClock.now
        try Vips.start()
        Cascade.setLibraryThreads(1)
        let config = detectorConfig(options)
        var detectors: [Detector] = []
        for _ in 0..<options.effectiveJobs { detectors.append(try Detector(config)) }
        let walk = try PhotoFinder(include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: nil)
            .walk(options.inputs).makeIterator()
        var processor = PhotoProcessor(settings: CropSettings(options), outputRoot: "/nonexistent", temporaries: TemporaryFiles())
        processor.detectOnly = true
        var counts = RunCounts()
        var items = AnyIterator<WorkItem> {
            while let item = walk.next() { if case .photo(let photo) = item { return .photo(photo, previous: nil) } }
            return nil
        }
        _ = await Pipeline(processor: processor, detectors: detectors, stop: stop).run(&items) { record, _ in
            counts.add(record)
            return true
        }
        let elapsed = Progress.seconds(ContinuousClock.now - started)
        let json = JSON.object([
            ("photos", .int(counts.photos)), ("faces", .int(counts.faces)), ("errors", .int(counts.errors)),
            ("elapsed_s", .double((elapsed * 1000).rounded() / 1000)),
            ("per_photo_s", .double(counts.photos > 0 ? (elapsed / Double(counts.photos) * 10000).rounded() / 10000 : 0)),
            ("jobs", .int(options.effectiveJobs)),
        ])
        Terminal.stdout(json.serialized() + "\n")
        return ExitStatus.success
    }

    static func execute(_ options: Options, stop: StopRequest, temporaries: TemporaryFiles) async throws(FaceCropError) -> Int32 {
        let started = ContinuousClock.now
        let output = options.output!
        for input in options.inputs where access(input, F_OK) != 0 {
            throw .inputMissing(input, reason: systemError(errno))
        }
        let readOnly = options.check || options.dryRun
        // Clips are written at the end; find out now whether they can be.
        var ffmpeg: FFmpeg?
        if options.wantsClips, !readOnly {
            let found = try FFmpeg.locate(given: options.ffmpeg, environment: ProcessInfo.processInfo.environment)
            try found.probe(options.effectiveClipCodec)
            ffmpeg = found
        }
        let jobs = options.effectiveJobs
        try Vips.start()
        Cascade.setLibraryThreads(1)
        let config = detectorConfig(options)
        var detectors: [Detector] = [try Detector(config)]
        let settings = CropSettings(options)
        let describedSettings = Stats.settingsJSON(settings, cascadePath: config.cascadePath, modelPath: config.modelPath)
        let settingsHash = Stats.hash(describedSettings)

        if !readOnly {
            do {
                try AtomicFile.makeFolder(output)
            } catch {
                throw .outputUnusable(output, reason: error.reason)
            }
            guard access(output, W_OK | X_OK) == 0 else {
                throw .outputUnusable(output, reason: systemError(errno))
            }
        }

        let store = StateStore(output: output, shard: options.shard)
        let state = StateIndex(path: store.statePath)
        let lastJournal = JournalContents(path: store.journalPath, settingsHash: settingsHash)
        let feed = try planFeed(options, store: store, state: state, journal: lastJournal, settingsHash: settingsHash)

        if readOnly {
            return report(feed, options: options, output: output, store: store, stateHash: state.settingsHash, settingsHash: settingsHash)
        }

        while detectors.count < jobs { detectors.append(try Detector(config)) }
        let journal: Journal
        let stateWriter: StateWriter
        do throws(WriteFailure) {
            try store.prepare()
            temporaries.use(folder: store.temporaryFolder)
            journal = try Journal(path: store.journalPath, settingsHash: settingsHash)
            stateWriter = try store.writer(settingsHash: settingsHash, settings: describedSettings, temporaries: temporaries)
        } catch {
            throw .outputUnusable(output, reason: error.reason)
        }
        let manifest: ManifestWriter
        do {
            manifest = try ManifestWriter(outputRoot: output, name: "manifest\(store.suffix).jsonl", temporaries: temporaries)
        } catch {
            throw .outputUnusable(output, reason: error.reason)
        }
        var processor = PhotoProcessor(settings: settings, outputRoot: output, temporaries: temporaries)
        processor.labels = PhotoFinder.labels(for: options.inputs)
        processor.journal = journal
        let showBar = !options.quiet && Terminal.stderrIsTerminal
        // The bar's total: on a terminal only, one more walk that only counts.
        let total = showBar ? try walkItems(options).reduce(0) { count, _ in count + 1 } : 0
        let progress = Progress(total: total, showBar: showBar)
        var counts = RunCounts()
        var writeFailure: WriteFailure?

        var full: FaceCropError?
        // Each record goes to the state file and the manifest as it arrives,
        // in manifest order; none is kept in memory.
        // The detectors (OpenCV's models and buffers) go with the pipeline
        // when it is done, before the steps after the run need memory.
        let workers = detectors
        detectors = []
        var items = feed
        let completed = await Pipeline(processor: processor, detectors: workers, stop: stop).run(&items) { record, kept in
            if case .outputFull? = record.error {
                // Every further write would fail: stop here. The photo is
                // not recorded, so the next run processes it.
                full = record.error
                return false
            }
            counts.add(record, reused: kept)
            feed.recorded()
            await progress.record(record)
            do throws(WriteFailure) {
                try stateWriter.append(record)
                try manifest.append(record)
                return true
            } catch {
                writeFailure = error
                return false
            }
        }
        await progress.finish()

        var removed = 0
        if completed && writeFailure == nil, let candidates = feed.pruneCandidates, !candidates.isEmpty {
            do throws(WriteFailure) {
                removed = prune(try stateWriter.unclaimed(candidates), in: output)
            } catch {
                writeFailure = error
            }
        }
        if writeFailure == nil {
            do throws(WriteFailure) {
                // Photos a stopped run did not reach keep their earlier
                // records, so the next run can still reuse them.
                if !completed {
                    try feed.earlierRecords { record throws(WriteFailure) in try stateWriter.append(record) }
                }
                try manifest.commit()
                try stateWriter.commit()
            } catch {
                writeFailure = error
            }
        }

        let elapsed = Progress.seconds(ContinuousClock.now - started)
        let stats = Stats(
            settings: describedSettings, settingsHash: settingsHash, counts: counts, elapsed: elapsed, jobs: jobs,
            interrupted: !completed && writeFailure == nil, removed: removed, shard: options.shard)
        if writeFailure == nil {
            do throws(WriteFailure) {
                try AtomicFile.write(
                    Array((stats.json.pretty() + "\n").utf8), to: output + "/stats\(store.suffix).json", temporaries: temporaries)
            } catch {
                writeFailure = error
            }
        }
        var finisherFailures: [String] = []
        if writeFailure == nil, completed {
            finisherFailures = await Finishers.run(
                FinishedRun(
                    output: output, options: options, records: store.records, stats: stats.json, temporaries: temporaries,
                    stop: stop, ffmpeg: ffmpeg))
            for failure in finisherFailures { Terminal.stderr("facecrop: error: \(failure)\n") }
        }
        if options.json {
            Terminal.stdout(stats.json.serialized() + "\n")
        }
        if let full {
            Terminal.stderr("facecrop: error: \(full.description); stopped. Free some space and run again: the photos finished so far are kept.\n")
            return ExitStatus.failure
        }
        if let writeFailure {
            let advice = writeFailure.isOutOfSpace ? " Free some space and run again: the photos finished so far are kept." : ""
            Terminal.stderr("facecrop: error: cannot write the dataset's records: \(writeFailure.reason).\(advice)\n")
            return ExitStatus.failure
        }
        if !options.quiet {
            Terminal.stderr(stats.summaryLine(output: output) + "\n")
        }
        if let signal = stop.requested {
            return signal == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted
        }
        return counts.errors > 0 || !finisherFailures.isEmpty ? ExitStatus.failure : ExitStatus.success
    }

    /// Deletes crops facecrop wrote that no photo produces any more, and the
    /// folders that leaves empty. Returns how many files it removed.
    static func prune(_ crops: Set<String>, in output: String) -> Int {
        var removed = 0
        for crop in crops.sorted() where !crop.isEmpty && !crop.hasPrefix("/") && !crop.split(separator: "/").contains("..") {
            let path = output + "/" + crop
            if unlink(path) == 0 { removed += 1 }
            var folder = (crop as NSString).deletingLastPathComponent
            while !folder.isEmpty, rmdir(output + "/" + folder) == 0 {
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        return removed
    }

    /// What the walk finds that belongs to this shard, in manifest order.
    static func walkItems(_ options: Options) throws(FaceCropError) -> AnyIterator<WalkItem> {
        let finder = PhotoFinder(
            include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: options.output)
        let walk = try finder.walk(options.inputs).makeIterator()
        let shard = options.shard
        return AnyIterator<WalkItem> {
            while let item = walk.next() {
                switch item {
                case .photo(let photo): if shard?.owns(label: photo.label, source: photo.source) ?? true { return item }
                case .problem(let problem): if shard?.owns(label: problem.label, source: problem.source) ?? true { return item }
                }
            }
            return nil
        }
    }

    /// The run's plan: the walk joined with the last run's state.
    static func planFeed(
        _ options: Options, store: StateStore, state: StateIndex, journal: JournalContents, settingsHash: String
    ) throws(FaceCropError) -> PlanFeed {
        let owned = try walkItems(options)
        let output = options.output!
        // Failed photos are tried again on every run, but for --check an
        // unchanged photo that failed before is as up to date as any other.
        let rules = PlanJoin.Rules(
            overwrite: options.overwrite, retryErrors: !options.check, stateCurrent: state.settingsHash == settingsHash,
            cropExists: { access(output + "/" + $0, F_OK) == 0 })
        let path = store.statePath
        let join = PlanJoin(
            walk: owned, labels: PhotoFinder.labels(for: options.inputs), stateLabels: state.segments.map(\.label),
            records: { state.records(of: $0, path: path) }, journal: journal.records, rules: rules)
        let readOnly = options.check || options.dryRun
        return PlanFeed(join, prune: options.prune && !readOnly, listGone: readOnly, journalCrops: journal.crops)
    }

    /// `--check` and `--dry-run`: say what a run would do, change nothing.
    /// Lines are printed as the plan goes, gone photos last.
    static func report(
        _ feed: PlanFeed, options: Options, output: String, store: StateStore, stateHash: String?, settingsHash: String
    ) -> Int32 {
        let out = LineOutput()
        let manifestPath = output + "/manifest\(store.suffix).jsonl"
        if options.check, stateHash != nil, stateHash != settingsHash {
            out.line("settings changed: every photo would be processed again")
        }
        if options.check, access(manifestPath, F_OK) != 0 {
            out.line("missing: \(manifestPath)")
        }
        while let work = feed.nextWork() {
            switch work.item {
            case .kept: continue
            case .problem(let problem): out.line("error: \(problem.source): \(problem.reason)")
            case .photo(let photo, let previous):
                if let previous, Plan.sameContent(photo, as: previous) { continue }
                let name = photo.outputPrefix
                if let reason = work.reason {
                    out.line("\(reason): \(name)")
                } else {
                    out.line((previous == nil ? "new: " : "changed: ") + name)
                }
            }
        }
        feed.gone?.forEach { out.line("removed: \($0)") }
        out.flush()
        if options.dryRun { return ExitStatus.success }
        if out.lines == 0, !options.quiet {
            Terminal.stderr("facecrop: '\(output)' is up to date (\(feed.count) photos)\n")
        }
        return out.lines == 0 ? ExitStatus.success : ExitStatus.failure
    }
}

/// Lines for stdout, written in 64 KB blocks as they come.
final class LineOutput {
    private var buffer = ""
    private(set) var lines = 0

    func line(_ text: String) {
        buffer += text
        buffer += "\n"
        lines += 1
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    func flush() {
        if !buffer.isEmpty { Terminal.stdout(buffer) }
        buffer = ""
    }
}

enum Plan {
    /// Whether the photo's bytes hash to the record's (reads the file).
    static func sameContent(_ photo: Photo, as record: PhotoRecord) -> Bool {
        guard let bytes = try? PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: photo.source) else { return false }
        return bytes.sha256 == record.sha256
    }
}
