import Foundation

/// Grouping at scale on generated descriptors, for scripts/bench-people
/// (`facecrop-bench people N`): what `--people` does after a run of N faces,
/// without the photos. Three in five faces belong to people of about 30
/// faces each (unit vectors spread about 0.35 around their person's), the
/// rest are strangers; every face counts as large enough to be a core.
public enum PeopleBench {
    public struct Figures: Sendable {
        public var faces: Int
        public var people: Int
        public var grouped: Int
        public var generateSeconds: Double
        public var groupSeconds: Double
        /// Against the generated truth: pairwise precision, recall and F of
        /// "same group", generated people (of two or more faces) recovered
        /// (a group holds most of their faces and is mostly them), strangers
        /// put in a group.
        public var pairwise: (precision: Double, recall: Double, f: Double)
        public var recovered: Int
        public var truePeople: Int
        public var strangersGrouped: Int
        /// With `recall`: of the 16 exact nearest neighbours of 2,000 evenly
        /// spaced rows, the share found; and the share of those within the
        /// grouping's radius (0.5), the only ones the density rule reads.
        public var recall: (all: Double, withinRadius: Double)?
    }

    /// `buildEffort`: the graph's ef_construction (0: the default).
    public static func run(faces count: Int, seed: UInt64 = 1, buildEffort: Int = 0, recall: Bool = false) throws -> Figures {
        let started = ContinuousClock.now
        var random = SplitMix(seed)
        let size = Embedding.size
        let members = count * 3 / 5
        let people = max(1, members / 30)
        var centres = [Float](repeating: 0, count: people * size)
        for p in 0..<people { unit(&centres, p, size) { random.normal() } }
        var embeddings = [Float](repeating: 0, count: count * size)
        var faces: [PeopleGrouping.Face] = []
        faces.reserveCapacity(count)
        var truth = [Int](repeating: -1, count: count)
        for i in 0..<count {
            if i < members {
                let p = Int(random.next() % UInt64(people))
                truth[i] = p
                for d in 0..<size { embeddings[i * size + d] = centres[p * size + d] + 0.022 * random.normal() }
                normalise(&embeddings, i, size)
            } else {
                unit(&embeddings, i, size) { random.normal() }
            }
            let photo = String(format: "%016llx", random.next()) + String(repeating: "0", count: 48)
            faces.append(.init(handle: FaceHandle(sha256: photo, box: PixelRect(x: 0, y: 0, width: 100, height: 100)), row: i, previous: nil))
        }
        let generated = ContinuousClock.now
        var rule = PeopleRule()
        rule.buildEffort = buildEffort
        let grouping = try PeopleStep.group(PeopleGrouping(faces: faces, embeddings: embeddings, nextNumber: 1), rule: rule)
        let done = ContinuousClock.now
        let persons = grouping.faces.map(\.person)
        let ids = Set(persons.compactMap { $0 })
        let quality = score(persons, truth: truth)
        var figures = Figures(
            faces: count, people: ids.count, grouped: persons.count { $0 != nil },
            generateSeconds: seconds(generated - started), groupSeconds: seconds(done - generated),
            pairwise: quality.pairwise, recovered: quality.recovered, truePeople: quality.people,
            strangersGrouped: zip(persons, truth).count { $0 != nil && $1 < 0 })
        if recall { figures.recall = try measureRecall(embeddings, count: count, rule: rule) }
        return figures
    }

    static func score(_ persons: [String?], truth: [Int]) -> (
        pairwise: (precision: Double, recall: Double, f: Double), recovered: Int, people: Int
    ) {
        var cells: [String: [Int: Int]] = [:]
        var groupSizes: [String: Int] = [:]
        var truthSizes: [Int: Int] = [:]
        for (person, t) in zip(persons, truth) {
            if t >= 0 { truthSizes[t, default: 0] += 1 }
            guard let person else { continue }
            groupSizes[person, default: 0] += 1
            if t >= 0 { cells[person, default: [:]][t, default: 0] += 1 }
        }
        func pairs(_ n: Int) -> Double { Double(n) * Double(n - 1) / 2 }
        var together = 0.0
        var recovered = Set<Int>()
        for (group, row) in cells {
            for (t, n) in row {
                together += pairs(n)
                if 2 * n > truthSizes[t, default: 0] && 2 * n > groupSizes[group, default: 0] { recovered.insert(t) }
            }
        }
        let predicted = groupSizes.values.reduce(0) { $0 + pairs($1) }
        let actual = truthSizes.values.reduce(0) { $0 + pairs($1) }
        let precision = predicted > 0 ? together / predicted : 1
        let recall = actual > 0 ? together / actual : 1
        let f = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        let people = truthSizes.values.count { $0 >= 2 }
        return ((precision, recall, f), recovered.count { truthSizes[$0, default: 0] >= 2 }, people)
    }

    /// The neighbours again (not timed), against exact ones of 2,000 rows.
    static func measureRecall(_ embeddings: [Float], count: Int, rule: PeopleRule) throws -> (all: Double, withinRadius: Double) {
        let k = min(rule.neighbours, count - 1)
        let found = try PeopleGroups.neighbours(embeddings, count: count, k: k, rule: rule).ids
        let queries = Array(Set((0..<min(2_000, count)).map { $0 * count / min(2_000, count) })).sorted()
        let size = Embedding.size
        var hits = [(all: Int, near: Int, nearTotal: Int)](repeating: (0, 0, 0), count: queries.count)
        embeddings.withUnsafeBufferPointer { rows in
            hits.withUnsafeMutableBufferPointer { hits in
                // Each iteration reads the rows and writes its own slot only.
                nonisolated(unsafe) let vectors = rows
                nonisolated(unsafe) let out = hits.baseAddress!
                DispatchQueue.concurrentPerform(iterations: queries.count) { index in
                    let i = queries[index]
                    var best: [(Float, Int)] = []
                    for j in 0..<count where j != i {
                        var sum: Float = 0
                        for d in 0..<size {
                            let x = vectors[i * size + d] - vectors[j * size + d]
                            sum += x * x
                        }
                        if best.count < k || sum < best[best.count - 1].0 {
                            best.append((sum, j))
                            best.sort { $0 < $1 }
                            if best.count > k { best.removeLast() }
                        }
                    }
                    let mine = Set(found[(i * k)..<((i + 1) * k)].map(Int.init))
                    var result = (all: 0, near: 0, nearTotal: 0)
                    for (distance, j) in best {
                        let hit = mine.contains(j)
                        if hit { result.all += 1 }
                        if distance.squareRoot() <= rule.radius {
                            result.nearTotal += 1
                            if hit { result.near += 1 }
                        }
                    }
                    out[index] = result
                }
            }
        }
        let all = Double(hits.reduce(0) { $0 + $1.all }) / Double(queries.count * k)
        let nearTotal = hits.reduce(0) { $0 + $1.nearTotal }
        let near = nearTotal > 0 ? Double(hits.reduce(0) { $0 + $1.near }) / Double(nearTotal) : 1
        return (all, near)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func unit(_ array: inout [Float], _ row: Int, _ size: Int, _ draw: () -> Float) {
        for d in 0..<size { array[row * size + d] = draw() }
        normalise(&array, row, size)
    }

    private static func normalise(_ array: inout [Float], _ row: Int, _ size: Int) {
        var sum: Float = 0
        for d in 0..<size { sum += array[row * size + d] * array[row * size + d] }
        let k = 1 / sum.squareRoot()
        for d in 0..<size { array[row * size + d] *= k }
    }

    /// SplitMix64: a small generator, the same numbers on every machine.
    struct SplitMix {
        var state: UInt64
        init(_ seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        /// About normal (the sum of four uniforms, scaled to variance 1).
        mutating func normal() -> Float {
            var sum: Float = 0
            for _ in 0..<4 { sum += Float(next() >> 40) / Float(1 << 24) }
            return (sum - 2) * 1.7320508
        }
    }
}
