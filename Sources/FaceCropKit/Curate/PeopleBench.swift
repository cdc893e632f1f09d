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
    }

    public static func run(faces count: Int, seed: UInt64 = 1) throws -> Figures {
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
        for i in 0..<count {
            if i < members {
                let p = Int(random.next() % UInt64(people))
                for d in 0..<size { embeddings[i * size + d] = centres[p * size + d] + 0.022 * random.normal() }
                normalise(&embeddings, i, size)
            } else {
                unit(&embeddings, i, size) { random.normal() }
            }
            let photo = String(format: "%016llx", random.next()) + String(repeating: "0", count: 48)
            faces.append(.init(handle: FaceHandle(sha256: photo, box: PixelRect(x: 0, y: 0, width: 100, height: 100)), row: i, previous: nil))
        }
        let generated = ContinuousClock.now
        let grouping = try PeopleStep.group(PeopleGrouping(faces: faces, embeddings: embeddings, nextNumber: 1), rule: PeopleRule())
        let done = ContinuousClock.now
        let ids = Set(grouping.faces.compactMap(\.person))
        return Figures(
            faces: count, people: ids.count, grouped: grouping.faces.count { $0.person != nil },
            generateSeconds: seconds(generated - started), groupSeconds: seconds(done - generated))
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
