/// `facecrop-bench floor PHOTOS... [OPTIONS]`: what it costs only to decode each photo at
/// the detection size and run one detection pass, with the same shims and
/// window as a real run. Prints one JSON line; used by scripts/bench.
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropInputs
import FaceCropPhoto
import FaceCropKit

enum FloorBench {
    static func run(_ options: Options, stop: StopRequest) async throws(FaceCropError) -> Int32 {
        let started = ContinuousClock.now
        try Vips.start()
        let config = DetectorConfig.from(options)
        Cascade.setLibraryThreads(config.libraryThreads)
        var detectors: [Detector] = []
        for _ in 0..<options.effectiveJobs { detectors.append(try Detector(config, sharing: detectors.first)) }
        let walk = try PhotoFinder(include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: nil,
            libraryEdits: options.libraryEdits, libraryDerivatives: options.libraryDerivatives)
            .walk(options.inputs).makeIterator()
        let processor = PhotoProcessor(settings: CropSettings(options), outputRoot: "/nonexistent", temporaries: TemporaryFiles())
        let work: @Sendable (Photo, PhotoRecord?, Detector) -> PhotoRecord = { photo, _, detector in
            processor.detect(photo, with: detector)
        }
        var counts = RunCounts()
        var items = AnyIterator<WorkItem> {
            while let item = walk.next() { if case .photo(let photo) = item { return .photo(photo, previous: nil) } }
            return nil
        }
        _ = await Pipeline(work: work, detectors: detectors, stop: stop).run(&items) { record, _ in
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
}

extension PhotoProcessor {
    /// The `floor` benchmark's path: read, decode and detect, nothing written.
    package func detect(_ photo: Photo, with detector: Detector) -> PhotoRecord {
        diagnosed {
            let source = FileName.display(photo.source)
            do throws(FaceCropError) {
                let bytes = try PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: source)
                let decoded = try DecodeStage.decode(bytes, settings: settings, gate: fullDecodes, source: source)
                var record = PhotoRecord(photo, status: .noFace, sha256: bytes.sha256)
                guard case .faces(let faces, _, _) = try DetectStage.detect(decoded, with: detector, settings: settings, source: source),
                    !faces.isEmpty
                else { return record }
                record.status = .ok
                record.faces = faces.enumerated().map { FaceRecord(index: $0.offset, box: $0.element.box, score: $0.element.score) }
                return record
            } catch {
                return PhotoRecord(photo, failed: error)
            }
        }
    }
}
