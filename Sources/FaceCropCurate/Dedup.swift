/// Near-duplicate faces (`--dedup`): what is known of each face is a few
/// bytes (its crop's perceptual hash, its photo's, where it lies in the
/// photo, its sharpness and box area), never pixels.
import FaceCropCore

public struct DedupFace: Sendable, Equatable {
    public var hash: PerceptualHash
    public var sharpness: Double
    public var area: Int
    /// The whole photo's hash and the face box as fractions of the photo's
    /// width and height (x0, y0, x1, y1); nil when not known.
    public var photo: PerceptualHash?
    public var place: SIMD4<Float>?

    public init(hash: PerceptualHash, sharpness: Double, area: Int, photo: PerceptualHash? = nil, place: SIMD4<Float>? = nil) {
        self.hash = hash
        self.sharpness = sharpness
        self.area = area
        self.photo = photo
        self.place = place
    }

    /// Whether `self` and `other` are near-duplicates at `threshold`: crops
    /// at most `threshold` bits apart; or at most twice that, when the two
    /// photos' hashes are at most `threshold` apart and the faces overlap by
    /// at least half (IoU) at the same place in them: a resized or
    /// re-encoded copy of a photo, whose small face's crop is cut from a
    /// box the detector placed a little differently.
    package func matches(_ other: DedupFace, threshold: Int) -> Bool {
        let distance = hash.distance(to: other.hash)
        if distance <= threshold { return true }
        guard distance <= 2 * threshold, let photo, let otherPhoto = other.photo, let place, let otherPlace = other.place,
            photo.distance(to: otherPhoto) <= threshold
        else { return false }
        return Self.overlap(place, otherPlace) >= 0.5
    }

    /// Intersection over union of two (x0, y0, x1, y1) boxes.
    package static func overlap(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
        let width = min(a[2], b[2]) - max(a[0], b[0])
        let height = min(a[3], b[3]) - max(a[1], b[1])
        guard width > 0, height > 0 else { return 0 }
        let common = width * height
        let union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - common
        return union > 0 ? common / union : 0
    }
}

public enum Dedup {
    /// Faces whose hashes differ in at most this many of 64 bits are near-
    /// duplicates, and twice that at the same place in alike photos (see
    /// `DedupFace.matches`; docs/manual.md, Near-duplicates, for how it was chosen).
    public static let defaultThreshold = 12

    /// For each face (in manifest order), the index of the face kept in its
    /// place, or nil for a face that is kept.
    ///
    /// Groups are the connected parts of the graph "`matches`" (a chain of
    /// near-duplicates is one group), so they depend only on the set of
    /// faces, not on the order they came in. Each group keeps its
    /// sharpest face, then the largest, then the first in manifest order.
    ///
    /// The pairs come from an index (`HammingIndex`), not from comparing
    /// every pair: every pair `matches` accepts is either two crops at most
    /// `threshold` apart (found among the distinct crop hashes) or two faces
    /// whose photos' hashes are at most `threshold` apart (found among the
    /// distinct photo hashes, then every face of the one tested with
    /// `matches` against every face of the other), so the graph, and the
    /// groups, are those of `pairwiseKeepers`.
    public static func keepers(_ faces: [DedupFace], threshold: Int) -> [Int?] {
        var groups = UnionFind(count: faces.count)
        guard threshold >= 0 else { return keep(faces, &groups) }
        // Crops at most `threshold` apart: faces with the same hash are one
        // group; the distinct hashes' pairs come from the index.
        let byHash = faces.indices.map { (bits: faces[$0].hash.bits, face: $0) }.sorted { ($0.bits, $0.face) < ($1.bits, $1.face) }
        var codes: [UInt64] = []
        var first: [Int] = []  // the first face of each distinct hash
        for entry in byHash {
            if codes.last == entry.bits {
                groups.join(first[first.count - 1], entry.face)
            } else {
                codes.append(entry.bits)
                first.append(entry.face)
            }
        }
        HammingIndex.pairs(codes, radius: threshold) { a, b in groups.join(first[a], first[b]) }
        // Up to twice that at the same place in alike photos: the faces of
        // each photo hash, and of each pair of photo hashes at most
        // `threshold` apart (from the index), are compared with `matches`.
        let placed = faces.indices.compactMap { index in faces[index].place == nil ? nil : faces[index].photo.map { (bits: $0.bits, face: index) } }
            .sorted { ($0.bits, $0.face) < ($1.bits, $1.face) }
        var photos: [UInt64] = []
        var members: [Range<Int>] = []  // each distinct photo hash's run in `placed`
        for (position, entry) in placed.enumerated() {
            if photos.last == entry.bits {
                members[members.count - 1] = members[members.count - 1].lowerBound..<(position + 1)
            } else {
                photos.append(entry.bits)
                members.append(position..<(position + 1))
            }
        }
        for run in members {
            for x in run {
                for y in (x + 1)..<run.upperBound where faces[placed[x].face].matches(faces[placed[y].face], threshold: threshold) {
                    groups.join(placed[x].face, placed[y].face)
                }
            }
        }
        HammingIndex.pairs(photos, radius: threshold) { p, q in
            for x in members[p] {
                for y in members[q] where faces[placed[x].face].matches(faces[placed[y].face], threshold: threshold) {
                    groups.join(placed[x].face, placed[y].face)
                }
            }
        }
        return keep(faces, &groups)
    }

    /// `keepers` by comparing every pair of faces: what `--dedup` did before
    /// the index, kept as the reference the tests and `facecrop-bench dedup`
    /// hold it to.
    package static func pairwiseKeepers(_ faces: [DedupFace], threshold: Int) -> [Int?] {
        var groups = UnionFind(count: faces.count)
        let hashes = faces.map(\.hash.bits)
        for i in hashes.indices {
            let a = hashes[i]
            // The cheap test first: most pairs are far apart.
            for j in (i + 1)..<hashes.count where (a ^ hashes[j]).nonzeroBitCount <= 2 * threshold {
                if faces[i].matches(faces[j], threshold: threshold) { groups.join(i, j) }
            }
        }
        return keep(faces, &groups)
    }

    /// Each group's keeper (see `keepers`) from its connected parts.
    private static func keep(_ faces: [DedupFace], _ groups: inout UnionFind) -> [Int?] {
        var best: [Int: Int] = [:]
        for index in faces.indices {
            let root = groups.root(index)
            if let current = best[root], !better(faces[index], than: faces[current]) { continue }
            best[root] = index
        }
        return faces.indices.map { index in
            let kept = best[groups.root(index)]!
            return kept == index ? nil : kept
        }
    }

    /// Sharper, then larger; a tie keeps the earlier face.
    package static func better(_ a: DedupFace, than b: DedupFace) -> Bool {
        if a.sharpness != b.sharpness { return a.sharpness > b.sharpness }
        return a.area > b.area
    }
}

/// Disjoint sets over 0..<count, with path halving.
package struct UnionFind {
    private var parent: [Int]

    package init(count: Int) { parent = Array(0..<count) }

    package mutating func root(_ element: Int) -> Int {
        var node = element
        while parent[node] != node {
            parent[node] = parent[parent[node]]
            node = parent[node]
        }
        return node
    }

    /// Joins the sets of `a` and `b`; the smaller root stays the root, so the
    /// result does not depend on the order of the joins.
    package mutating func join(_ a: Int, _ b: Int) {
        let (ra, rb) = (root(a), root(b))
        if ra < rb { parent[rb] = ra } else if rb < ra { parent[ra] = rb }
    }
}
