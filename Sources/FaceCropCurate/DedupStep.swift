import Foundation
import FaceCropCore
import FaceCropOutput

/// `--dedup` (and `--split` with it) over a whole committed dataset: after a
/// run (not a shard's) and after `merge`. Reads the state file three times,
/// one record at a time, and holds only an index of a few bytes per face
/// (hash, sharpness, area, where it is) and each photo's content hash.
package enum DedupStep {
    package struct Place: Equatable {
        package var record: Int
        package var face: Int
    }

    /// Regroups the dataset in `store`'s folder: duplicates lose their crop
    /// and get `duplicate_of`, and with `split` every photo moves (its crops
    /// renamed) to its near-duplicate unit's split. Rewrites the manifest and
    /// the state file; returns the dataset's counts.
    package static func run(
        store: StateStore, output: String, threshold: Int, split: SplitSpec?, settingsHash: String, settings: JSON,
        temporaries: TemporaryFiles
    ) throws(WriteFailure) -> RunCounts {
        // Pass 1: the index.
        let (faces, places, photos) = index(store)
        let keepers = Dedup.keepers(faces, threshold: threshold)
        let splits = split.map { spec in
            let ranked = faces.indices.filter { keepers[$0] == nil }.sorted { Dedup.better(faces[$0], than: faces[$1]) }
            return spec.splits(
                photos: photos, faces: places.indices.map { (places[$0].record, keepers[$0]) }, ranked: ranked)
        }
        var keptBy: [Int: [Int: Int]] = [:]  // record -> face -> index in `faces`
        for (index, place) in places.enumerated() { keptBy[place.record, default: [:]][place.face] = index }
        // Pass 2: the crops duplicates point to, where they will be.
        let referenced = Set(keepers.compactMap { $0 })
        var keptCrops: [Int: String] = [:]
        for (number, record) in store.records.enumerated() {
            for face in record.faces {
                guard let index = keptBy[number]?[face.index], referenced.contains(index) else { continue }
                keptCrops[index] = moved(face.crop, from: record.split, to: splits?[number])
            }
        }
        // Pass 3: every record regrouped, written anew.
        return try store.rewrite(output: output, settingsHash: settingsHash, settings: settings, temporaries: temporaries) {
            number, record throws(WriteFailure) in
            try regroup(&record, keepers: keepers, index: keptBy[number] ?? [:], keptCrops: keptCrops, split: splits?[number], root: output)
        }
    }

    /// What `--dedup` knows of each face of the dataset (not rejected, with a
    /// hash), where it is, and each record's photo SHA-256.
    package static func index(_ store: StateStore) -> (faces: [DedupFace], places: [Place], photos: [String]) {
        var faces: [DedupFace] = []
        var places: [Place] = []
        var photos: [String] = []
        for (number, record) in store.records.enumerated() {
            photos.append(record.sha256 ?? "")
            for face in record.faces where face.status != .rejected {
                guard let hash = face.phash else { continue }
                faces.append(DedupFace(hash: hash, sharpness: face.sharpness, area: face.box.area, photo: record.photoHash, place: place(face.box, in: record)))
                places.append(Place(record: number, face: face.index))
            }
        }
        return (faces, places, photos)
    }

    /// One record regrouped: each face kept (with its crop, moved to `split`)
    /// or a duplicate (its crop removed).
    private static func regroup(
        _ record: inout PhotoRecord, keepers: [Int?], index: [Int: Int], keptCrops: [Int: String], split: String?,
        root: String
    ) throws(WriteFailure) {
        let from = record.split
        for position in record.faces.indices {
            var face = record.faces[position]
            guard let at = index[face.index] else { continue }
            if let kept = keepers[at] {
                if !face.crop.isEmpty { unlink(root + "/" + face.crop) }
                face.crop = ""
                face.status = .duplicate
                face.duplicateOf = keptCrops[kept]
            } else if face.status == .duplicate {
                // Kept now, but its crop was not made: cannot happen when the
                // plan reprocessed every photo with duplicates after a change.
                face.status = .ok
                face.duplicateOf = nil
            } else {
                face.duplicateOf = nil
                let target = moved(face.crop, from: from, to: split)
                if target != face.crop { try rename(face.crop, to: target, root: root) }
                face.crop = target
            }
            record.faces[position] = face
        }
        if split != nil { record.split = split }
    }

    /// `box` as fractions of the photo's upright width and height.
    package static func place(_ box: PixelRect, in record: PhotoRecord) -> SIMD4<Float>? {
        guard let width = record.width, let height = record.height, width > 0, height > 0 else { return nil }
        let (w, h) = (Float(width), Float(height))
        return SIMD4(Float(box.x) / w, Float(box.y) / h, Float(box.x + box.width) / w, Float(box.y + box.height) / h)
    }

    /// `crop` under the split folder `to` instead of `from`.
    package static func moved(_ crop: String, from: String?, to: String?) -> String {
        guard let from, let to, from != to, crop.hasPrefix(from + "/") else { return crop }
        return to + "/" + crop.dropFirst(from.count + 1)
    }

    package static func rename(_ crop: String, to target: String, root: String) throws(WriteFailure) {
        let path = root + "/" + target
        try AtomicFile.makeFolder((path as NSString).deletingLastPathComponent)
        guard Foundation.rename(root + "/" + crop, path) == 0 else {
            throw WriteFailure(reason: "'\(crop)': \(systemError(errno))", code: errno)
        }
    }
}
