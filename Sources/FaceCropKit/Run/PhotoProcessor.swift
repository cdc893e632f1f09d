import CVipsShim
import Foundation
import Synchronization
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropInputs
import FaceCropOutput
import FaceCropCurate
import FaceCropPeople
import FaceCropPhoto
import FaceCropVideo

/// Turns one photo into its record through the stages, each in its own
/// file: read (bytes and hash) -> decode (small, upright) -> detect ->
/// place (pure geometry) -> write (cut, encode, write atomically, roll back).
package struct PhotoProcessor: Sendable {
    package var settings: CropSettings
    package var outputRoot: String
    package var temporaries: TemporaryFiles
    package var diagnosis = DiagnosisLock()
    package var fullDecodes = DecodeGate()
    /// Where each photo's crops are announced before they are written.
    package var journal: Journal?
    /// Faces a person rejected: they get no crop.
    package var rejections = RejectionsFile()
    /// `--since` / `--until`.
    package var dates = DateRange()
    /// What only videos use (ffmpeg, the stop request, the cores a video borrows).
    package var video = VideoStage()

    private static let finished = Atomic<Int>(0)

    /// Processes one photo into its record. `previous` is what an earlier run
    /// recorded for it (same settings) when its size or time changed: if the
    /// content is the same, that record is kept and nothing is decoded.
    package func process(_ photo: Photo, previous: PhotoRecord?, with detector: Detector) -> PhotoRecord {
        // The Takeout sidecar: names, and the capture time where EXIF has none.
        // A video borrows the cores no worker uses.
        video.cores?.enter()
        defer { video.cores?.leave() }
        let sidecar = photo.sidecar.flatMap(Libraries.Sidecar.init(path:))
        var record = diagnosed { attempt(photo, previous: previous, sidecar: sidecar, with: detector) }
        if record.taken == nil { record.taken = sidecar?.taken }
        record.names = sidecar?.names ?? []
        if settings.people, let path = photo.sidecar {
            let file = FileName.display((path as NSString).lastPathComponent)
            let unusable = record.names.compactMap { name in
                PeopleName.problem(name).map { NameWarning(name: name, file: file, problem: $0) }
            }
            record.nameWarnings = unusable + record.nameWarnings
        }
        // Tagged names join Takeout's (each once, in face order).
        for name in record.faces.compactMap(\.tagName) where !record.names.contains(name) { record.names.append(name) }
        // A failure is reported whatever its date (it has none to go by).
        if record.status != .error, !dates.admits(record.taken) {
            record.outsideDates = true
            return record
        }
        if let split = settings.split, let sha256 = record.sha256, record.split == nil {
            record.split = split.split(forSHA256: sha256)
        }
        // Journal failures surface when the run commits; a lost entry only
        // means the photo is processed again after a crash.
        try? journal?.finish(record)
        return record
    }

    /// Runs `body` sharing libvips' error buffer, and again holding it alone
    /// when the photo could not be decoded (so the message is its own);
    /// then lets the worker's memory go.
    package func diagnosed(_ body: () -> PhotoRecord) -> PhotoRecord {
        // A photo's images are freed by now; every few photos give malloc's
        // free pages back, or the heap's holes add up over a long run (RSS
        // crept up ~6 KB a photo without this; after every photo it costs
        // ~7 % more CPU, after every 8th about nothing).
        defer {
            CVipsShim_ThreadDone()
            if Self.finished.add(1, ordering: .relaxed).newValue % 8 == 0 { CVipsShim_TrimMemory() }
        }
        let record = diagnosis.shared(body)
        switch record.error {
        case .notAnImage?, .decodeFailed?, .encodeFailed?: return diagnosis.exclusive(body)
        default: return record
        }
    }

    private func attempt(_ photo: Photo, previous: PhotoRecord?, sidecar: Libraries.Sidecar?, with detector: Detector) -> PhotoRecord {
        var hash: String?
        do throws(FaceCropError) {
            switch try ReadStage.read(photo, previous: previous) {
            case .same(let kept):
                return kept
            case .bytes(let bytes):
                hash = bytes.sha256
                if photo.isVideo {
                    return try video.process(
                        photo, bytes: bytes, with: detector, writer: writer, rejections: rejections, dates: dates)
                }
                return try process(photo, bytes: bytes, sidecar: sidecar, with: detector)
            }
        } catch {
            return PhotoRecord(photo, failed: error, sha256: hash)
        }
    }

    /// The stage that cuts and writes the crops.
    private var writer: WriteStage {
        WriteStage(settings: settings, outputRoot: outputRoot, temporaries: temporaries, journal: journal, gate: fullDecodes)
    }

    private func process(_ photo: Photo, bytes: PhotoBytes, sidecar: Libraries.Sidecar?, with detector: Detector)
        throws(FaceCropError) -> PhotoRecord
    {
        let source = FileName.display(photo.source)  // for messages
        // The capture time comes with the header: a photo --since/--until
        // leave out is not decoded.
        let header: PhotoHeader
        do throws(FaceCropError) {
            header = try Picture.header(of: bytes, source: source)
        } catch .notAnImage(let source, let reason) {
            // A video named like a photo: said so, instead of libvips' "not in a known format".
            throw .notAnImage(source, reason: FileSniff.misnamed(bytes.head(FileSniff.headLength), video: false) ?? reason)
        }
        var record = PhotoRecord(photo, status: .noFace, sha256: bytes.sha256)
        record.taken = header.taken ?? sidecar?.taken
        guard dates.admits(record.taken) else { return record }
        let tags = readTags(photo, header: header, into: &record, source: source)
        let decoded = try DecodeStage.decode(bytes, header: header, settings: settings, gate: fullDecodes, source: source)
        // --split: the crops go to <split>/, the photo's own (by its content).
        record.split = settings.split?.split(forSHA256: bytes.sha256)
        let prefix = (record.split.map { $0 + "/" } ?? "") + photo.outputPrefix
        record.width = decoded.header.width
        record.height = decoded.header.height
        switch try DetectStage.detect(decoded, with: detector, settings: settings, source: source) {
        case .noPerson:
            record.status = .noPerson
        case .faces(let detected, let scale, let photoHash):
            let (faces, found) = try TagStage.merge(
                tags, into: detected, decoded: decoded, with: detector, settings: settings, source: source)
            record.taggedFaces = tags.count
            record.taggedFacesFound = found
            guard !faces.isEmpty else { break }
            record.faces = try crop(
                faces, bytes: bytes, decoded: decoded, detectionScale: scale, prefix: prefix, embedder: detector.embedder,
                source: source)
            record.status = .ok
            // Faces from tags alone: the detector gave no hash, the same one of the same picture.
            if let photoHash {
                record.photoHash = photoHash
            } else {
                record.photoHash = PerceptualHash(photo: try decoded.small.grayPixels(source: source))
            }
        }
        return record
    }

    /// Face tags: from the XMP the header read brought, and the sidecar;
    /// their warnings go to `record`, and with `--people` their unusable names.
    private func readTags(_ photo: Photo, header: PhotoHeader, into record: inout PhotoRecord, source: String) -> [FaceTag] {
        guard header.xmp != nil || photo.xmpSidecar != nil else { return [] }
        let frame = FaceTags.Frame(
            storedWidth: header.storedWidth, storedHeight: header.storedHeight, orientation: header.orientation)
        let read = FaceTags.read(embedded: header.xmp, sidecar: photo.xmpSidecar, frame: frame, source: source)
        record.warnings = read.warnings
        if settings.people {
            for tag in read.tags {
                guard let name = tag.name, let problem = PeopleName.problem(name) else { continue }
                record.nameWarnings.append(NameWarning(name: name, file: tag.file, problem: problem))
            }
        }
        return read.tags
    }

    /// A photo's faces placed, rated and written; their records, the tagged ones marked.
    private func crop(
        _ faces: [FoundFace], bytes: PhotoBytes, decoded: Decoded, detectionScale scale: Double, prefix: String,
        embedder: Embedder?, source: String
    ) throws(FaceCropError) -> [FaceRecord] {
        var faces = faces
        let placement = PlaceStage.place(faces, full: decoded.full, prefix: prefix, settings: settings)
        // 256 KB: a camera's or editor's metadata can come first (75 KB of
        // EXIF, XMP and Photoshop blocks before the tables of a people-devset
        // photo; 64 KB read none there).
        let rated = PlaceStage.rate(
            &faces, placement, full: decoded.full, settings: settings, jpegQuality: JPEGQuality.estimate(bytes.head(262_144)))
        // A person's rejection comes first: it is the surer reason.
        let statuses = zip(faces, rated).map { face, status in
            rejections.rejects(sha256: bytes.sha256, box: face.box) ? FaceStatus.rejected : status
        }
        var records = try writer.write(
            faces, placement, statuses: statuses, from: decoded, detectionScale: scale, prefix: prefix, source: source,
            embedder: embedder)
        for (index, face) in faces.enumerated() where face.tag != nil {
            records[index].tagged = true
            records[index].tagName = face.tag?.name
            records[index].foundByTag = face.foundByTag
        }
        return records
    }

    package init(settings: CropSettings, outputRoot: String, temporaries: TemporaryFiles,
        diagnosis: DiagnosisLock = DiagnosisLock(), fullDecodes: DecodeGate = DecodeGate(), journal: Journal? = nil,
        rejections: RejectionsFile = RejectionsFile(), dates: DateRange = DateRange(),
        video: VideoStage = VideoStage()) {
        (self.settings, self.outputRoot, self.temporaries) = (settings, outputRoot, temporaries)
        (self.diagnosis, self.fullDecodes, self.journal) = (diagnosis, fullDecodes, journal)
        (self.rejections, self.dates, self.video) = (rejections, dates, video)
    }
}
