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
        do {
            if floor { return try await measureFloor(options, stop: stop) }
            return try await execute(options, stop: stop, temporaries: temporaries)
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    static func resolveCascade(_ given: String?) -> String {
        if let given { return given }
        for folder in cascadeFolders {
            let path = folder + "/" + defaultCascade
            if access(path, R_OK) == 0 { return path }
        }
        return cascadeFolders[0] + "/" + defaultCascade
    }

    /// `facecrop floor PHOTOS...`: what it costs only to decode each photo at
    /// the detection size and run one detection pass, with the same shims and
    /// window as a real run. Prints one JSON line; used by scripts/bench.
    static func measureFloor(_ options: Options, stop: StopRequest) async throws(FaceCropError) -> Int32 {
        let started = ContinuousClock.now
        try Vips.start()
        Cascade.setLibraryThreads(1)
        let cascadePath = resolveCascade(options.cascade)
        var cascades: [Cascade] = []
        for _ in 0..<options.effectiveJobs { cascades.append(try Cascade(path: cascadePath)) }
        let found = try PhotoFinder(include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: nil)
            .find(options.inputs)
        var processor = PhotoProcessor(settings: CropSettings(options), outputRoot: "/nonexistent", temporaries: TemporaryFiles())
        processor.detectOnly = true
        var counts = RunCounts()
        _ = await Pipeline(processor: processor, cascades: cascades, stop: stop).run(found.photos.map(WorkItem.photo)) {
            counts.add($0)
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
        let jobs = options.effectiveJobs
        try Vips.start()
        Cascade.setLibraryThreads(1)
        let cascadePath = resolveCascade(options.cascade)
        var cascades: [Cascade] = []
        for _ in 0..<jobs { cascades.append(try Cascade(path: cascadePath)) }

        do {
            try AtomicFile.makeFolder(output)
        } catch {
            throw .outputUnusable(output, reason: error.reason)
        }
        guard access(output, W_OK | X_OK) == 0 else {
            throw .outputUnusable(output, reason: systemError(errno))
        }

        let finder = PhotoFinder(
            include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: output)
        let found = try finder.find(options.inputs)
        var items = found.photos.map(WorkItem.photo) + found.problems.map(WorkItem.problem)
        items.sort { PhotoFinder.precedes($0.key, $1.key) }

        let manifest: ManifestWriter
        do {
            manifest = try ManifestWriter(outputRoot: output, labels: found.labels, temporaries: temporaries)
        } catch {
            throw .outputUnusable(output, reason: error.reason)
        }
        let settings = CropSettings(options)
        let pipeline = Pipeline(
            processor: PhotoProcessor(settings: settings, outputRoot: output, temporaries: temporaries),
            cascades: cascades, stop: stop)
        let progress = Progress(total: items.count, showBar: !options.quiet && Terminal.stderrIsTerminal)
        var counts = RunCounts()
        var manifestFailure: WriteFailure?

        let completed = await pipeline.run(items) { outcome in
            counts.add(outcome)
            await progress.record(outcome)
            do throws(WriteFailure) {
                try manifest.append(outcome)
                return true
            } catch {
                manifestFailure = error
                return false
            }
        }
        await progress.finish()
        if manifestFailure == nil {
            do throws(WriteFailure) { try manifest.commit() } catch { manifestFailure = error }
        }

        let elapsed = Progress.seconds(ContinuousClock.now - started)
        let stats = Stats(
            settings: settings, cascadePath: cascadePath, counts: counts, elapsed: elapsed, jobs: jobs,
            interrupted: !completed && manifestFailure == nil)
        if manifestFailure == nil {
            do throws(WriteFailure) {
                try AtomicFile.write(Array((stats.json.pretty() + "\n").utf8), to: output + "/" + Stats.fileName, temporaries: temporaries)
            } catch {
                manifestFailure = error
            }
        }
        if options.json {
            Terminal.stdout(stats.json.serialized() + "\n")
        }
        if let manifestFailure {
            Terminal.stderr("facecrop: error: cannot write the manifest: \(manifestFailure.reason)\n")
            return ExitStatus.failure
        }
        if !options.quiet {
            Terminal.stderr(stats.summaryLine(output: output) + "\n")
        }
        if let signal = stop.requested {
            return signal == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted
        }
        return counts.errors > 0 ? ExitStatus.failure : ExitStatus.success
    }
}
