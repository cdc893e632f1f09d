import Foundation

/// Crops a person deleted since the last run: each becomes a rejection, so
/// the next run does not make it again (`--no-record-deletions`: it does).
enum DeletedCrops {
    /// The faces of unchanged photos found now whose crop is gone, as
    /// rejections, each with its photo and face as the note.
    static func find(_ photos: [Photo], loaded: StateStore.Loaded, output: String, rejections: RejectionsFile)
        -> [(rejection: Rejection, note: String)]
    {
        // The state file's records whatever settings made them (a crop
        // deleted before a run with new settings is still a rejection), and
        // those a stopped run journalled.
        var records: [String: PhotoRecord] = [:]
        for record in loaded.stateRecords { records[record.key] = record }
        records.merge(loaded.records) { _, journalled in journalled }
        var deleted: [(rejection: Rejection, note: String)] = []
        for photo in photos {
            guard let record = records[StateStore.key(label: photo.label, source: photo.source)],
                record.status == .ok, let sha256 = record.sha256, record.size == photo.size,
                record.modified == photo.modified
            else { continue }
            for face in record.faces where face.status == .ok && access(output + "/" + face.crop, F_OK) != 0 {
                guard !rejections.rejects(sha256: sha256, box: face.box) else { continue }
                deleted.append((Rejection(sha256: sha256, box: face.box), Rejection.note(photo: photo.outputPrefix, face: face.index)))
            }
        }
        return deleted
    }

    /// Records the deleted crops in the setup's rejections file (kept line
    /// for line, replaced atomically); returns how many.
    static func record(_ photos: [Photo], loaded: StateStore.Loaded, setup: inout RunSetup, temporaries: TemporaryFiles)
        throws(FaceCropError) -> Int
    {
        let deleted = find(photos, loaded: loaded, output: setup.output, rejections: setup.rejections)
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
        guard record.status == .ok, let sha256 = record.sha256 else { return nil }
        var rejected = false, unrejected = false
        for face in record.faces {
            let now = rejections.rejects(sha256: sha256, box: face.box)
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

extension Plan {
    /// `--dedup`: when the dataset's faces may change (a photo new, changed,
    /// gone or rejected differently), a group may keep another face, whose
    /// crop a duplicate never had: photos with duplicate faces are processed
    /// again, so every face has its crop before the faces are regrouped.
    mutating func reprocessDuplicates(_ photos: [Photo]) {
        let changed = !gone.isEmpty || items.contains { item in
            guard case .photo(let photo, _) = item else { return false }
            return reasons[StateStore.key(label: photo.label, source: photo.source)] != "failed before"
        }
        guard changed else { return }
        var byKey: [String: Photo] = [:]
        for photo in photos { byKey[StateStore.key(label: photo.label, source: photo.source)] = photo }
        for (position, item) in items.enumerated() {
            let record: PhotoRecord
            switch item {
            case .kept(let kept): record = kept
            case .photo(_, let previous?): record = previous
            default: continue
            }
            guard record.faces.contains(where: { $0.status == .duplicate }), let photo = byKey[record.key] else { continue }
            reasons[record.key] = "near-duplicates regrouped"
            items[position] = .photo(photo, previous: nil)
        }
    }
}
