import Testing
import FaceCropCore
import FaceCropPeople
import FaceCropBench


/// `--people`'s nearest neighbours above the exact limit (the HNSW graph of
/// the C++ shim, real hnswlib) on 1,200 generated descriptors: 60 people of
/// 10 faces (about 0.35 apart) and 600 strangers (about 1.4 from all).
struct NeighboursTests {
    static let people = 60
    static let size = 10

    /// Rows, and each row's person (-1: a stranger).
    static func rows() -> (embeddings: [Float], person: [Int]) {
        var random = SplitMix(7)
        let dim = Embedding.size
        func unit(_ values: [Float]) -> [Float] {
            let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return values.map { $0 / norm }
        }
        let centres = (0..<people).map { _ in unit((0..<dim).map { _ in random.normal() }) }
        var embeddings: [Float] = []
        var person: [Int] = []
        for i in 0..<(2 * people * size) {
            // Members and strangers interleaved, so the graph's row order mixes them.
            if i % 2 == 0 {
                let p = (i / 2) % people
                embeddings += unit(centres[p].map { $0 + 0.022 * random.normal() })
                person.append(p)
            } else {
                embeddings += unit((0..<dim).map { _ in random.normal() })
                person.append(-1)
            }
        }
        return (embeddings, person)
    }

    func neighbours(_ embeddings: [Float], exactLimit: Int, threads: Int) throws -> (ids: [Int32], distances: [Float]) {
        var rule = PeopleRule()
        rule.exactLimit = exactLimit
        rule.threads = threads
        return try PeopleGroups.neighbours(embeddings, count: embeddings.count / Embedding.size, k: 16, rule: rule)
    }

    @Test func sameAnswerAtAnyThreadCount() throws {
        let (embeddings, _) = Self.rows()
        let one = try neighbours(embeddings, exactLimit: 100, threads: 1)
        for threads in [2, 3] {
            let many = try neighbours(embeddings, exactLimit: 100, threads: threads)
            #expect(many.ids == one.ids, "\(threads) threads")
            #expect(many.distances == one.distances, "\(threads) threads")
        }
    }

    /// Every member's nine others are its nine nearest, all within the
    /// grouping's radius and no stranger is: the graph finds each of them,
    /// at the exact distance, nearest first, as the exact search does.
    @Test func graphFindsClearClusters() throws {
        let (embeddings, person) = Self.rows()
        let graph = try neighbours(embeddings, exactLimit: 100, threads: 0)
        let exact = try neighbours(embeddings, exactLimit: person.count, threads: 0)
        let k = 16
        var checked = 0
        for row in person.indices where person[row] >= 0 {
            let mates = k * row..<(k * row + Self.size - 1)
            #expect(Array(graph.ids[mates]) == Array(exact.ids[mates]), "row \(row)")
            #expect(Array(graph.distances[mates]) == Array(exact.distances[mates]), "row \(row)")
            #expect(graph.ids[mates].allSatisfy { person[Int($0)] == person[row] }, "row \(row)")
            #expect(graph.distances[mates].allSatisfy { $0 <= 0.5 } && graph.distances[k * row + Self.size - 1] > 0.5, "row \(row)")
            checked += 1
        }
        #expect(checked == Self.people * Self.size)
    }
}
