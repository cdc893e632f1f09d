/// Near-duplicate faces (`--dedup`): what is known of each face is a few
/// bytes (its perceptual hash, sharpness and box area), never pixels.
public struct DedupFace: Sendable, Equatable {
    public var hash: PerceptualHash
    public var sharpness: Double
    public var area: Int

    public init(hash: PerceptualHash, sharpness: Double, area: Int) {
        self.hash = hash
        self.sharpness = sharpness
        self.area = area
    }
}

public enum Dedup {
    /// Faces whose hashes differ in at most this many of 64 bits are near-
    /// duplicates (see README.md, Near-duplicates, for how it was chosen).
    public static let defaultThreshold = 12

    /// For each face (in manifest order), the index of the face kept in its
    /// place, or nil for a face that is kept.
    ///
    /// Groups are the connected parts of the graph "distance <= threshold"
    /// (a chain of near-duplicates is one group), so they depend only on the
    /// set of hashes, not on the order faces came in. Each group keeps its
    /// sharpest face, then the largest, then the first in manifest order.
    public static func keepers(_ faces: [DedupFace], threshold: Int) -> [Int?] {
        var groups = UnionFind(count: faces.count)
        let hashes = faces.map(\.hash.bits)
        for i in hashes.indices {
            let a = hashes[i]
            for j in (i + 1)..<hashes.count where (a ^ hashes[j]).nonzeroBitCount <= threshold {
                groups.join(i, j)
            }
        }
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
    static func better(_ a: DedupFace, than b: DedupFace) -> Bool {
        if a.sharpness != b.sharpness { return a.sharpness > b.sharpness }
        return a.area > b.area
    }
}

/// Disjoint sets over 0..<count, with path halving.
struct UnionFind {
    private var parent: [Int]

    init(count: Int) { parent = Array(0..<count) }

    mutating func root(_ element: Int) -> Int {
        var node = element
        while parent[node] != node {
            parent[node] = parent[parent[node]]
            node = parent[node]
        }
        return node
    }

    /// Joins the sets of `a` and `b`; the smaller root stays the root, so the
    /// result does not depend on the order of the joins.
    mutating func join(_ a: Int, _ b: Int) {
        let (ra, rb) = (root(a), root(b))
        if ra < rb { parent[rb] = ra } else if rb < ra { parent[ra] = rb }
    }
}
