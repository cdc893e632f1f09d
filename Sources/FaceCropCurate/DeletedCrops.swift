import Foundation
import FaceCropCore
import FaceCropInputs
import FaceCropOutput

/// Crops a person deleted since the last run: each becomes a rejection, so
/// the next run does not make it again (`--no-record-deletions`: it does).
package enum DeletedCrops {
    /// The faces of unchanged photos found now whose crop is gone, as
    /// rejections, each with its photo and face as the note, in manifest order.
    ///
    /// Streamed: the state file is scanned once, and only a record with a
    /// crop that is not there is parsed; the library is walked only when
    /// there are such records (few: one per photo with a deleted crop).
    package static func find(
        statePath: String, journal: JournalContents, walk: () throws(FaceCropError) -> AnyIterator<WalkItem>,
        output: String, rejections: RejectionsFile
    ) throws(FaceCropError) -> [(rejection: Rejection, note: String)] {
        let records = candidates(statePath: statePath, journal: journal, output: output, rejections: rejections)
        guard !records.isEmpty else { return [] }
        var deleted: [(rejection: Rejection, note: String)] = []
        let photos = try walk()
        while let item = photos.next() {
            guard case .photo(let photo) = item, let record = records[Photo.key(label: photo.label, source: photo.source)],
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
    package static func candidates(statePath: String, journal: JournalContents, output: String, rejections: RejectionsFile)
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
    package static func deletedFaces(_ record: PhotoRecord, output: String, rejections: RejectionsFile) -> [FaceRecord] {
        guard record.status == .ok, record.sha256 != nil else { return [] }
        let rejected = rejections.rejected(record)
        return record.faces.indices.filter { index in
            let face = record.faces[index]
            return face.status == .ok && access(output + "/" + face.crop, F_OK) != 0 && !rejected[index]
        }.map { record.faces[$0] }
    }

    /// The summary's line for them.
    package static func summary(_ count: Int, path: String) -> String {
        "facecrop: recorded \(count) deleted crop\(count == 1 ? "" : "s") as \(count == 1 ? "a rejection" : "rejections") in '\(path)'"
    }
}
