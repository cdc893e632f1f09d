import FaceCropCore

extension SplitSpec {
    /// The split of every photo (by index) when faces are grouped as
    /// near-duplicates: photos tied by a group (a face of one duplicates a
    /// face of another, through any chain) form one unit, and the unit takes
    /// the split of the photo of its best kept face (`keepers` order: the
    /// first of `ranked` among the unit's kept faces that have duplicates).
    /// Without groups, a photo's split is its own.
    ///
    /// - Parameters:
    ///   - photos: each photo's SHA-256.
    ///   - faces: each face's photo index and the face kept in its place (nil: kept).
    ///   - ranked: the kept faces, best first (sharpest, largest, first).
    public func splits(photos: [String], faces: [(photo: Int, keptFace: Int?)], ranked: [Int]) -> [String] {
        var units = UnionFind(count: photos.count)
        var leads = Set<Int>()
        for face in faces {
            guard let kept = face.keptFace else { continue }
            units.join(face.photo, faces[kept].photo)
            leads.insert(kept)
        }
        var lead: [Int: Int] = [:]
        for face in ranked where leads.contains(face) {
            let root = units.root(faces[face].photo)
            if lead[root] == nil { lead[root] = faces[face].photo }
        }
        return photos.indices.map { photo in
            let root = units.root(photo)
            return split(forSHA256: photos[lead[root] ?? photo])
        }
    }
}
