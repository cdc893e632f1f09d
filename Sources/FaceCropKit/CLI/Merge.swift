import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropOutput
import FaceCropCurate
import FaceCropPeople
import FaceCropFinish
import FaceCropPick

/// `facecrop merge OUT SHARD_DIR...`: combines the outputs of `--shard K/N`
/// runs into one dataset whose manifest, crops and stable stats are the bytes
/// a single run would have written.
package enum MergeCommand: Subcommand {
    package static let usage = "Usage: facecrop merge <out> <shard-dir>... [--quiet] [--json] [--people-file FILE]"

    /// What `merge` is told on the command line.
    package struct Settings: SubcommandSettings {
        package init() {}

        package var folders: [String] = []
        package var quiet = false
        package var json = false
        package var peopleFile: String?
        package var showHelp = false
    }

    package static let options: [OptionSpec<Settings>] = [
        .quiet,
        .flag(["--json"], "Print the summary as one JSON object on stdout.") { $0.json = true },
        .value(["--people-file"], "FILE", "With shards run with --people: the people file the merged grouping honours (default: <out>/people.txt).") {
            $0.peopleFile = $1
        },
        .help,
    ]

    /// `--help`'s paragraph between the usage line and the options.
    package static let about = [
        "Combines the output folders of 'facecrop --shard K/N' runs (or one shared",
        "output folder) into one dataset in <out>.",
    ]

    package struct ShardState {
        package var folder: String
        package var shard: Shard
        /// The shard's state file: its header and settings (its records are
        /// read one at a time when merged).
        package var index: StateIndex
        package var store: StateStore
        /// A shared hold on the shard's lock while its records are read.
        package var lock: OutputLock?
    }

    package static func run(_ settings: Settings, stop: StopRequest, temporaries: TemporaryFiles) async -> Int32 {
        let folders = settings.folders
        guard folders.count >= 2 else {
            return ArgumentReader.usageError("merge needs an output folder and at least one shard folder", usage: usage)
        }
        let peoplePath = settings.peopleFile ?? (folders[0] as NSString).appendingPathComponent(PeopleFile.defaultName)
        let people: PeopleFile
        do throws(PeopleFileError) {
            people = try PeopleFile.load(path: peoplePath)
        } catch {
            return ArgumentReader.usageError(error.description, usage: usage)
        }
        do {
            return try await merge(
                into: folders[0], from: Array(folders.dropFirst()), quiet: settings.quiet, json: settings.json, stop: stop,
                temporaries: temporaries, people: .init(file: people, path: peoplePath, quiet: settings.quiet))
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    /// The names in a shard folder's state folder, or the error that it has none.
    private static func stateNames(of folder: String) throws(FaceCropError) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + StateStore.folderName) else {
            throw .inputMissing(folder, reason: "no facecrop shard output here (no \(StateStore.folderName)/)")
        }
        return names
    }

    package static func findShards(in folder: String, stop: StopRequest) throws(FaceCropError) -> [ShardState] {
        let names = try stateNames(of: folder)
        var shards: [ShardState] = []
        for name in names.sorted() where name.hasPrefix("state.shard-") && name.hasSuffix(".jsonl") {
            let middle = name.dropFirst("state.shard-".count).dropLast(".jsonl".count)
            let parts = middle.components(separatedBy: "-of-")
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { continue }
            let shard = Shard(index: index, count: count)
            let store = StateStore(output: folder, shard: shard)
            let lock = try OutputLock.take(output: folder, suffix: store.suffix, mode: .shared, wait: false, stop: stop) { _ in }
            if access(store.journalPath, F_OK) == 0 {
                throw .inputMissing(folder, reason: "shard \(index)/\(count) did not finish (its journal is still there); run it again first")
            }
            shards.append(ShardState(folder: folder, shard: shard, index: StateIndex(path: store.statePath), store: store, lock: lock))
        }
        if shards.isEmpty {
            throw .inputMissing(folder, reason: "no shard records in \(StateStore.folderName)/")
        }
        return shards
    }

    package static func merge(
        into output: String, from folders: [String], quiet: Bool, json: Bool, stop: StopRequest, temporaries: TemporaryFiles,
        people: PeopleStep.PeopleFiling = .init()
    ) async
        throws(FaceCropError) -> Int32
    {
        let started = ContinuousClock.now
        // A folder that is no shard output fails before the merged folder is made (its lock makes it).
        for folder in folders { _ = try stateNames(of: folder) }
        // The merged folder's own lock, then each shard's (shared) as it is read.
        let lock = try OutputLock.take(output: output, suffix: "", mode: .exclusive, wait: false, stop: stop) { _ in }
        var shards: [ShardState] = []
        defer {
            lock?.release()
            for state in shards { state.lock?.release() }
        }
        try Vips.start()
        for folder in folders { shards += try findShards(in: folder, stop: stop) }
        let (count, hash, settings) = try checkComplete(shards, folders: folders)

        do throws(WriteFailure) {
            try AtomicFile.makeFolder(output)
            let store = StateStore(output: output, shard: nil)
            try store.prepare()
            temporaries.use(folder: store.temporaryFolder)
            let target = Destination(output: output, store: store, settingsHash: hash, settings: settings, temporaries: temporaries)
            // --people: who each face was in an earlier merge into this folder.
            let previous = PreviousPeople(store: store)
            let written = try write(shards, into: output, settingsHash: hash, settings: settings, temporaries: temporaries)
            let described = shards[0].index.header["settings"] as? [String: Any]
            let split = (described?["split"] as? String).flatMap { try? SplitSpec.parse($0).get() }
            let merged = try curate(written, target: target, described: described, split: split, previous: previous, people: people)
            let runs = shardRuns(shards, photos: merged.photos, started: started)
            let stats = try writeStats(merged, runs: runs, split: split, target: target)
            if json { Terminal.stdout(stats.json.serialized() + "\n") }
            if !quiet {
                Terminal.stderr("facecrop: merged \(count) shards: \(merged.photos) photos, \(merged.faces) faces; \(runs.summary) -> '\(output)'\n")
            }
            let failures = await finish(merged, stats: stats, split: split, target: target, stop: stop, people: people)
            for failure in failures { Terminal.stderr("facecrop: error: \(failure)\n") }
            return merged.errors > 0 || !failures.isEmpty ? ExitStatus.failure : ExitStatus.success
        } catch {
            throw .outputUnusable(output, reason: error.reason)
        }
    }

    /// The merged folder and what its files are written with.
    package struct Destination {
        package var output: String
        package var store: StateStore
        package var settingsHash: String
        package var settings: JSON
        package var temporaries: TemporaryFiles
    }

    /// --dedup and --split as the shards were run with (`described`, their
    /// settings): groups across shards; then --people's grouping.
    private static func curate(
        _ counts: RunCounts, target: Destination, described: [String: Any]?, split: SplitSpec?, previous: PreviousPeople,
        people: PeopleStep.PeopleFiling
    ) throws(WriteFailure) -> RunCounts {
        var merged = counts
        if let threshold = described?["dedup"] as? Int {
            merged = try DedupStep.run(
                store: target.store, output: target.output, threshold: threshold, split: split, settingsHash: target.settingsHash,
                settings: target.settings, temporaries: target.temporaries)
        }
        if described?["people"] is String {
            let curation = PeopleStep.Curation(
                split: split, splitByPerson: described?["split_by"] as? String == "person",
                keep: Set(described?["keep_person"] as? [String] ?? []))
            merged = try PeopleStep.apply(
                to: merged, store: target.store, output: target.output, settingsHash: target.settingsHash, settings: target.settings,
                temporaries: target.temporaries, previous: previous, curation: curation, people: people)
        }
        return merged
    }

    /// The merged dataset's stats.json, written.
    private static func writeStats(_ merged: RunCounts, runs: ShardRuns, split: SplitSpec?, target: Destination) throws(WriteFailure) -> Stats {
        var stats = Stats(
            settings: target.settings, settingsHash: target.settingsHash, counts: merged,
            elapsed: runs.merge, jobs: 1, interrupted: false, removed: 0, shard: nil)
        stats.shardRuns = runs
        stats.splitNames = split?.parts.map(\.name) ?? []
        try AtomicFile.write(
            Array((stats.json.pretty() + "\n").utf8), to: target.output + "/" + Stats.fileName, temporaries: target.temporaries)
        return stats
    }

    /// The contact sheet and report of the whole dataset (shards make none).
    /// The report's ticks add to the merged dataset's own rejections file.
    /// Without one, a dataset with rejected faces had its file elsewhere (the
    /// shards' --rejections): no ticks, rather than a saved file that drops
    /// those entries. Returns the errors met.
    private static func finish(
        _ merged: RunCounts, stats: Stats, split: SplitSpec?, target: Destination, stop: StopRequest, people: PeopleStep.PeopleFiling
    ) async -> [String] {
        let rejectionsPath = target.output + "/" + RejectionsFile.defaultName
        let ownFile = FileManager.default.fileExists(atPath: rejectionsPath) || merged.rejected == 0
        return await Finishers.run(
            FinishedRun(
                output: target.output, records: target.store.records, stats: stats.json, temporaries: target.temporaries, stop: stop,
                rejections: ownFile ? try? RejectionsFile.load(path: rejectionsPath) : nil, people: people.file),
            FinishSettings(splits: split?.parts.map(\.name) ?? []))
    }

    /// The shards' own run, read from their stats files, and the merge's time.
    package static func shardRuns(_ shards: [ShardState], photos: Int, started: ContinuousClock.Instant) -> ShardRuns {
        var runs = ShardRuns(photos: photos)
        for state in shards {
            runs.add(statsAt: state.folder + "/stats" + StateStore(output: state.folder, shard: state.shard).suffix + ".json")
        }
        runs.merge = Progress.seconds(ContinuousClock.now - started)
        return runs
    }

    /// Checks that `shards` are all N shards of one run, each once, made with
    /// the same settings. Returns N, the settings hash and the settings.
    package static func checkComplete(_ shards: [ShardState], folders: [String]) throws(FaceCropError)
        -> (count: Int, hash: String, settings: JSON)
    {
        let count = shards[0].shard.count
        let hash = shards[0].index.settingsHash
        for state in shards where state.shard.count != count || state.index.settingsHash != hash {
            throw .inputMissing(state.folder, reason: "shard \(state.shard.index)/\(state.shard.count) was made with other settings or another shard count")
        }
        let indices = shards.map(\.shard.index).sorted()
        guard indices == Array(0..<count) else {
            let missing = Set(0..<count).subtracting(indices).sorted().map(String.init).joined(separator: ", ")
            throw .inputMissing(folders.joined(separator: " "), reason: missing.isEmpty ? "a shard appears twice" : "missing shard(s) \(missing) of \(count)")
        }
        guard let hash, let settings = Stats.settingsJSON(parsed: shards[0].index.header["settings"] as? [String: Any]) else {
            throw .inputMissing(shards[0].folder, reason: "the shard records have no settings")
        }
        return (count, hash, settings)
    }

    /// Writes the merged manifest and state file, and places each record's
    /// crops in `output` (unless a shard wrote into `output` itself); returns
    /// the counts. Each shard's state file is in manifest order, so a k-way
    /// merge of them, one record of each at a time, is the single run's order.
    package static func write(
        _ shards: [ShardState], into output: String, settingsHash: String, settings: JSON, temporaries: TemporaryFiles
    ) throws(WriteFailure) -> RunCounts {
        let outputIdentity = FileIdentity(path: output, follow: true)
        let sameFolder = shards.map { FileIdentity(path: $0.folder, follow: true) == outputIdentity }
        let streams = shards.map { $0.store.records.makeIterator() }
        var heads = streams.map { $0.next() }
        let order = { (a: PhotoRecord, b: PhotoRecord) in PhotoFinder.precedes((a.input, a.source), (b.input, b.source)) }
        var counts = RunCounts()
        let manifest = try JSONLinesWriter(outputRoot: output, name: Manifest.fileName, temporaries: temporaries)
        let state = try StateStore(output: output, shard: nil)
            .writer(settingsHash: settingsHash, settings: settings, temporaries: temporaries)
        while let next = heads.indices.filter({ heads[$0] != nil }).min(by: { order(heads[$0]!, heads[$1]!) }) {
            let record = heads[next]!
            heads[next] = streams[next].next()
            if let following = heads[next], !order(record, following) {
                let shard = shards[next]
                throw WriteFailure(
                    reason: "the records of shard \(shard.shard.index)/\(shard.shard.count) in '\(shard.folder)' are not in manifest order; run that shard again")
            }
            if !sameFolder[next] {
                for crop in record.crops { try place(crop, from: shards[next].folder, into: output, temporaries: temporaries) }
            }
            counts.add(record)
            let lines = Manifest.lines(of: record)
            try manifest.append(lines)
            try state.append(record, lines: lines)
        }
        try manifest.commit()
        try state.commit()
        return counts
    }

    /// Hard-links (or copies) one crop into the merged folder, atomically.
    package static func place(_ crop: String, from folder: String, into output: String, temporaries: TemporaryFiles) throws(WriteFailure) {
        guard !crop.hasPrefix("/"), !crop.split(separator: "/").contains("..") else {
            throw WriteFailure(reason: "refusing crop path '\(crop)'")
        }
        let source = folder + "/" + crop
        let target = output + "/" + crop
        try AtomicFile.makeFolder((target as NSString).deletingLastPathComponent)
        let temporary = temporaries.make(for: target)
        defer { temporaries.forget(temporary) }
        if link(source, temporary) != 0 {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw WriteFailure(reason: "cannot read '\(source)'")
            }
            try AtomicFile.write([UInt8](data), to: target, temporaries: temporaries)
            return
        }
        guard rename(temporary, target) == 0 else {
            let reason = systemError(errno)
            unlink(temporary)
            throw WriteFailure(reason: "'\(target)': \(reason)")
        }
    }
}
