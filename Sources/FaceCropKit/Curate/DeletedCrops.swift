import Foundation

/// Crops a person deleted since the last run: each becomes a rejection, so
/// the next run does not make it again (`--no-record-deletions`: it does).
enum DeletedCrops {
    /// The faces of unchanged photos found now whose crop is gone, as
    /// rejections, each with its photo and face as the note, in manifest order.
    ///
    /// Streamed: the state file is scanned once, and only a record with a
    /// crop that is not there is parsed; the library is walked only when
    /// there are such records (few: one per photo with a deleted crop).
    static func find(
        statePath: String, journal: JournalContents, walk: () throws(FaceCropError) -> AnyIterator<WalkItem>,
        output: String, rejections: RejectionsFile
    ) throws(FaceCropError) -> [(rejection: Rejection, note: String)] {
        let records = candidates(statePath: statePath, journal: journal, output: output, rejections: rejections)
        guard !records.isEmpty else { return [] }
        var deleted: [(rejection: Rejection, note: String)] = []
        let photos = try walk()
        while let item = photos.next() {
            guard case .photo(let photo) = item, let record = records[StateStore.key(label: photo.label, source: photo.source)],
                let sha256 = record.sha256, record.size == photo.size, record.modified == photo.modified
            else { continue }
            for face in deletedFaces(record, output: output, rejections: rejections) {
                deleted.append((Rejection(sha256: sha256, face: face), Rejection.note(photo: photo.outputPrefix, face: face)))
            }
        }
        return deleted
    }

    /// The records (by key) with a face whose crop is gone and which the
    /// rejections file does not reject yet: the state file's records
    /// whatever settings made them (a crop deleted before a run with new
    /// settings is still a rejection), and those a stopped run journalled,
    /// which win.
    static func candidates(statePath: String, journal: JournalContents, output: String, rejections: RejectionsFile)
        -> [String: PhotoRecord]
    {
        var found: [String: PhotoRecord] = [:]
        let lines = StateLines(path: statePath)
        while let bytes = lines.next() {
            if let crops = StateLines.rawCrops(bytes), crops.allSatisfy({ access(output + "/" + $0, F_OK) == 0 }) { continue }
            guard let object = StateLines.object(bytes), let record = PhotoRecord(state: object),
                journal.records[record.key] == nil, !deletedFaces(record, output: output, rejections: rejections).isEmpty
            else { continue }
            found[record.key] = record
        }
        for record in journal.records.values where !deletedFaces(record, output: output, rejections: rejections).isEmpty {
            found[record.key] = record
        }
        return found
    }

    /// The faces of a photo that had them cropped whose crop is gone and not yet rejected.
    static func deletedFaces(_ record: PhotoRecord, output: String, rejections: RejectionsFile) -> [FaceRecord] {
        guard record.status == .ok, record.sha256 != nil else { return [] }
        let rejected = rejections.rejected(record)
        return record.faces.indices.filter { index in
            let face = record.faces[index]
            return face.status == .ok && access(output + "/" + face.crop, F_OK) != 0 && !rejected[index]
        }.map { record.faces[$0] }
    }

    /// Records the deleted crops in the setup's rejections file (kept line
    /// for line, replaced atomically); returns how many.
    static func record(journal: JournalContents, setup: inout RunSetup, temporaries: TemporaryFiles)
        throws(FaceCropError) -> Int
    {
        let walkSetup = setup
        let deleted = try find(
            statePath: setup.store.statePath, journal: journal, walk: { () throws(FaceCropError) in try Plan.walk(walkSetup) },
            output: setup.output, rejections: setup.rejections)
        guard !deleted.isEmpty else { return 0 }
        var file = setup.rejections
        let added = file.add(deleted)
        do throws(RejectionsError) {
            try file.save(path: setup.rejectionsPath, temporaries: temporaries)
        } catch {
            throw .outputUnusable(setup.rejectionsPath, reason: error.reason)
        }
        setup.rejections = file
        return added
    }

    /// The summary's line for them.
    static func summary(_ count: Int, path: String) -> String {
        "facecrop: recorded \(count) deleted crop\(count == 1 ? "" : "s") as \(count == 1 ? "a rejection" : "rejections") in '\(path)'"
    }
}

extension Plan {
    /// Why an unchanged photo's earlier record no longer fits the rejections
    /// file: a face it cropped is rejected now, or one it left out is not.
    static func rejectionChange(_ record: PhotoRecord, rejections: RejectionsFile) -> String? {
        guard record.status == .ok, record.sha256 != nil else { return nil }
        var rejected = false, unrejected = false
        // A video's faces by track (`RejectionsFile.rejected`).
        for (face, now) in zip(record.faces, rejections.rejected(record)) {
            if now && face.status != .rejected { rejected = true }
            if !now && face.status == .rejected { unrejected = true }
        }
        switch (rejected, unrejected) {
        case (true, true): return "rejections changed"
        case (true, false): return "rejected"
        case (false, true): return "unrejected"
        case (false, false): return nil
        }
    }
}
