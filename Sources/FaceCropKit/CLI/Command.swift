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
            Terminal.stderr("Error: \(error.description)\n\(OptionTable.usage)\nSee 'facecrop --help' for more information.\n")
            return ExitStatus.usage
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
            modelPath: options.detector == .yunet ? ModelLocator.resolve(options.model) : options.model, minNeighbors: options.minNeighbors,
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
        let found = try PhotoFinder(include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: nil)
            .find(options.inputs)
        var processor = PhotoProcessor(settings: CropSettings(options), outputRoot: "/nonexistent", temporaries: TemporaryFiles())
        processor.detectOnly = true
        var counts = RunCounts()
        let items = found.photos.map { WorkItem.photo($0, previous: nil) }
        _ = await Pipeline(processor: processor, detectors: detectors, stop: stop).run(items) { record, _ in
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

        let finder = PhotoFinder(
            include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: output)
        var found = try finder.find(options.inputs)
        if let shard = options.shard {
            found.photos.removeAll { !shard.owns(label: $0.label, source: $0.source) }
            found.problems.removeAll { !shard.owns(label: $0.label, source: $0.source) }
        }
        let store = StateStore(output: output, shard: options.shard)
        let loaded = store.load(settingsHash: settingsHash)
        // Failed photos are tried again on every run, but for --check an
        // unchanged photo that failed before is as up to date as any other.
        let plan = Plan(found: found, loaded: loaded, overwrite: options.overwrite, retryErrors: !options.check, output: output)
        let labels = found.labels
        found = PhotoFinder.Found()  // the plan has every photo now

        if readOnly {
            return report(plan, options: options, output: output, store: store, loaded: loaded, settingsHash: settingsHash)
        }

        while detectors.count < jobs { detectors.append(try Detector(config)) }
        let journal: Journal
        let state: StateWriter
        do throws(WriteFailure) {
            try store.prepare()
            temporaries.use(folder: store.temporaryFolder)
            journal = try Journal(path: store.journalPath, settingsHash: settingsHash)
            state = try store.writer(settingsHash: settingsHash, settings: describedSettings, temporaries: temporaries)
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
        processor.labels = labels
        processor.journal = journal
        let progress = Progress(total: plan.items.count, showBar: !options.quiet && Terminal.stderrIsTerminal)
        var counts = RunCounts()
        // Crops of the last run no photo has made again (yet): pruned at the end.
        var unclaimed = loaded.written
        // Items recorded so far; they are delivered in plan order.
        var recorded = 0
        var writeFailure: WriteFailure?

        var full: FaceCropError?
        // Each record goes to the state file and the manifest as it arrives,
        // in manifest order; none is kept in memory.
        // The detectors (OpenCV's models and buffers) go with the pipeline
        // when it is done, before the steps after the run need memory.
        let workers = detectors
        detectors = []
        let completed = await Pipeline(processor: processor, detectors: workers, stop: stop).run(plan.items) { record, kept in
            if case .outputFull? = record.error {
                // Every further write would fail: stop here. The photo is
                // not recorded, so the next run processes it.
                full = record.error
                return false
            }
            counts.add(record, reused: kept)
            unclaimed.subtract(record.crops)
            recorded += 1
            await progress.record(record)
            do throws(WriteFailure) {
                try state.append(record)
                try manifest.append(record)
                return true
            } catch {
                writeFailure = error
                return false
            }
        }
        await progress.finish()

        var removed = 0
        if completed && writeFailure == nil && options.prune {
            removed = prune(unclaimed, in: output)
        }
        if writeFailure == nil {
            do throws(WriteFailure) {
                // Photos a stopped run did not reach keep their earlier
                // records, so the next run can still reuse them.
                if !completed {
                    for item in plan.items[recorded...] {
                        if let record = plan.earlier(item, loaded: loaded) { try state.append(record) }
                    }
                }
                try manifest.commit()
                try state.commit()
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

    /// `--check` and `--dry-run`: say what a run would do, change nothing.
    static func report(
        _ plan: Plan, options: Options, output: String, store: StateStore, loaded: StateStore.Loaded, settingsHash: String
    ) -> Int32 {
        var lines: [String] = []
        let manifestPath = output + "/manifest\(store.suffix).jsonl"
        if options.check, loaded.settingsHash != nil, loaded.settingsHash != settingsHash {
            lines.append("settings changed: every photo would be processed again")
        }
        if options.check, access(manifestPath, F_OK) != 0 {
            lines.append("missing: \(manifestPath)")
        }
        for item in plan.items {
            switch item {
            case .kept: continue
            case .problem(let problem): lines.append("error: \(problem.source): \(problem.reason)")
            case .photo(let photo, let previous):
                if let previous, Plan.sameContent(photo, as: previous) { continue }
                let name = photo.outputPrefix
                if let reason = plan.reasons[StateStore.key(label: photo.label, source: photo.source)] {
                    lines.append("\(reason): \(name)")
                } else {
                    lines.append((previous == nil ? "new: " : "changed: ") + name)
                }
            }
        }
        for gone in plan.gone { lines.append("removed: \(gone)") }
        if !lines.isEmpty { Terminal.stdout(lines.joined(separator: "\n") + "\n") }
        if options.dryRun { return ExitStatus.success }
        if lines.isEmpty, !options.quiet {
            Terminal.stderr("facecrop: '\(output)' is up to date (\(plan.items.count) photos)\n")
        }
        return lines.isEmpty ? ExitStatus.success : ExitStatus.failure
    }
}

/// What a run has to do: which photos to process, which earlier records to
/// keep, which photos are gone.
struct Plan {
    var items: [WorkItem] = []
    /// Photos recorded before and not found now (label/source).
    var gone: [String] = []
    /// Why a photo with an earlier record is processed again, by key.
    var reasons: [String: String] = [:]

    /// --overwrite: no earlier record is kept.
    var overwrite = false

    init(found: PhotoFinder.Found, loaded: StateStore.Loaded, overwrite: Bool, retryErrors: Bool, output: String) {
        self.overwrite = overwrite
        var present: Set<String> = []
        for photo in found.photos {
            let key = StateStore.key(label: photo.label, source: photo.source)
            present.insert(key)
            guard !overwrite, let record = loaded.records[key] else {
                if overwrite, loaded.records[key] != nil { reasons[key] = "overwrite" }
                items.append(.photo(photo, previous: nil))
                continue
            }
            let cropsThere = record.crops.allSatisfy { access(output + "/" + $0, F_OK) == 0 }
            if record.status == .error && (retryErrors || record.sha256 == nil) {
                reasons[key] = "failed before"
                items.append(.photo(photo, previous: nil))
            } else if !cropsThere {
                reasons[key] = "crop missing"
                items.append(.photo(photo, previous: nil))
            } else if record.size == photo.size && record.modified == photo.modified {
                items.append(.kept(record))
            } else {
                // Same content under a new time (a fresh checkout) is kept
                // after hashing; the worker decides.
                items.append(.photo(photo, previous: record))
            }
        }
        for problem in found.problems { items.append(.problem(problem)) }
        items.sort { PhotoFinder.precedes($0.key, $1.key) }
        gone = loaded.records.values.filter { !present.contains($0.key) }
            .map { PhotoFinder.join($0.label, $0.source) }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The earlier record a stopped run keeps for an item it did not reach.
    func earlier(_ item: WorkItem, loaded: StateStore.Loaded) -> PhotoRecord? {
        switch item {
        case .kept(let record): record
        case .photo(let photo, _): overwrite ? nil : loaded.records[StateStore.key(label: photo.label, source: photo.source)]
        case .problem: nil
        }
    }

    /// Whether the photo's bytes hash to the record's (reads the file).
    static func sameContent(_ photo: Photo, as record: PhotoRecord) -> Bool {
        guard let bytes = try? PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: photo.source) else { return false }
        return bytes.sha256 == record.sha256
    }
}
