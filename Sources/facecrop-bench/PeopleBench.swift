import Foundation
import FaceCropPeople
import FaceCropBench

/// Grouping at scale on generated descriptors (`GeneratedPeople`), for
/// scripts/bench-people (`facecrop-bench people N`): what `--people` does
/// after a run of N faces, without the photos, scored against the truth.
enum PeopleBench {
    struct Figures {
        var faces: Int
        var people: Int
        var grouped: Int
        var generateSeconds: Double
        var groupSeconds: Double
        /// Against the generated truth: pairwise precision, recall and F of
        /// "same group", generated people (of two or more faces) recovered
        /// (a group holds most of their faces and is mostly them), strangers
        /// put in a group.
        var pairwise: (precision: Double, recall: Double, f: Double)
        var recovered: Int
        var truePeople: Int
        var strangersGrouped: Int
        /// With `recall`: of the 16 exact nearest neighbours of 2,000 evenly
        /// spaced rows, the share found; and the share of those within the
        /// grouping's radius (0.5), the only ones the density rule reads.
        var recall: (all: Double, withinRadius: Double)?
    }

    /// `buildEffort`: the graph's ef_construction (0: the default).
    static func run(faces count: Int, seed: UInt64 = 1, buildEffort: Int = 0, recall: Bool = false) throws -> Figures {
        let generated = timed { GeneratedPeople(faces: count, seed: seed) }
        let input = generated.result
        var rule = PeopleRule()
        rule.buildEffort = buildEffort
        let grouped = try timed { try PeopleStep.group(input.grouping, rule: rule) }
        let persons = grouped.result.faces.map(\.person)
        let quality = score(persons, truth: input.truth)
        var figures = Figures(
            faces: count, people: Set(persons.compactMap { $0 }).count, grouped: persons.count { $0 != nil },
            generateSeconds: generated.wall, groupSeconds: grouped.wall,
            pairwise: quality.pairwise, recovered: quality.recovered, truePeople: quality.people,
            strangersGrouped: zip(persons, input.truth).count { $0 != nil && $1 < 0 })
        if recall { figures.recall = try measureRecall(input.grouping.embeddings, count: count, rule: rule) }
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
        var hits = [(all: Int, near: Int, nearTotal: Int)](repeating: (0, 0, 0), count: queries.count)
        embeddings.withUnsafeBufferPointer { rows in
            hits.withUnsafeMutableBufferPointer { hits in
                // Each iteration reads the rows and writes its own slot only.
                nonisolated(unsafe) let vectors = rows
                nonisolated(unsafe) let out = hits.baseAddress!
                DispatchQueue.concurrentPerform(iterations: queries.count) { index in
                    let i = queries[index]
                    let best = exactNeighbours(of: i, vectors, count: count, k: k)
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

    /// Row `i`'s `k` nearest rows by squared distance, nearest first.
    private static func exactNeighbours(of i: Int, _ vectors: UnsafeBufferPointer<Float>, count: Int, k: Int) -> [(Float, Int)] {
        let size = vectors.count / count
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
        return best
    }
}
