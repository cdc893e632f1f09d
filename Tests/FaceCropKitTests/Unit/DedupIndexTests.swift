import Testing
import FaceCropCore
import FaceCropCurate
import FaceCropBench


/// `--dedup`'s index (`HammingIndex`, `Dedup.keepers`) held to comparing
/// every pair (`Dedup.pairwiseKeepers`) on hashes built to sit on the edges
/// of its rules: distances at and just past the threshold and twice it,
/// split across the index's four 16-bit chunks at and past their
/// allowances, photo hashes at and past the threshold, boxes at and past
/// IoU 0.5, many faces of one photo.
struct DedupIndexTests {
    /// `bits` with `count` bits flipped in chunk `chunk` (16 bits), from bit `from` of it.
    static func flip(_ bits: UInt64, chunk: Int, count: Int, from: Int = 0) -> UInt64 {
        var bits = bits
        for k in 0..<count { bits ^= 1 << UInt64(16 * chunk + (from + k) % 16) }
        return bits
    }

    /// Codes at distance `distance` from `base`, spread over the chunks in
    /// several ways: evenly, all in one chunk, each chunk at its allowance
    /// at `radius` and one past it.
    static func around(_ base: UInt64, distance: Int, radius: Int, random: inout SplitMix) -> [UInt64] {
        var spreads: [[Int]] = []
        spreads.append((0..<4).map { distance / 4 + ($0 < distance % 4 ? 1 : 0) })
        for chunk in 0..<4 where distance <= 16 { spreads.append((0..<4).map { $0 == chunk ? distance : 0 }) }
        let allowances = HammingIndex.allowances(radius: radius).map { max($0, 0) }
        for over in 0..<4 {
            // Every chunk at its allowance, one of them past it, then cut or filled to `distance`.
            var spread = allowances.enumerated().map { $0.offset == over ? $0.element + 1 : $0.element }
            var excess = spread.reduce(0, +) - distance
            for chunk in (0..<4).reversed() where excess > 0 {
                let cut = min(excess, spread[chunk])
                spread[chunk] -= cut
                excess -= cut
            }
            for chunk in 0..<4 where excess < 0 {
                let add = min(-excess, 16 - spread[chunk])
                spread[chunk] += add
                excess += add
            }
            spreads.append(spread)
        }
        return spreads.map { spread in
            var bits = base
            for (chunk, count) in spread.enumerated() { bits = flip(bits, chunk: chunk, count: count, from: Int(random.next() % 16)) }
            return bits
        }
    }

    static func pairs(_ codes: [UInt64], radius: Int, indexed: Bool) -> [[Int]] {
        var found: [[Int]] = []
        HammingIndex.pairs(codes, radius: radius, indexed: indexed) { found.append([$0, $1]) }
        return found
    }

    @Test(arguments: [0, 1, 2, 3, 5, 6, 12, 13, 20, 24, 32])
    func indexFindsEveryPairOnceAsComparingEveryPairDoes(_ radius: Int) {
        var random = SplitMix(UInt64(radius) + 7)
        var codes: [UInt64] = []
        for _ in 0..<12 {
            let base = random.next()
            codes.append(base)
            for distance in Set([radius - 1, radius, radius + 1, 2 * radius, 2 * radius + 1]) where distance >= 0 && distance <= 64 {
                codes += Self.around(base, distance: distance, radius: radius, random: &random)
            }
        }
        codes += (0..<200).map { _ in random.next() }
        codes += [codes[0], codes[1], codes[0]]  // the same code more than once
        let indexed = Self.pairs(codes, radius: radius, indexed: true)
        let every = Self.pairs(codes, radius: radius, indexed: false)
        #expect(Set(indexed) == Set(every))
        #expect(indexed.count == Set(indexed).count, "a pair reported twice")
        #expect(indexed.allSatisfy { $0[0] < $0[1] })
        // Pairs exactly at the radius exist (and none past it): the edge is tested.
        #expect(every.contains { (codes[$0[0]] ^ codes[$0[1]]).nonzeroBitCount == radius })
        #expect(every.allSatisfy { (codes[$0[0]] ^ codes[$0[1]]).nonzeroBitCount <= radius })
    }

    @Test func allowancesAddUpToOneMoreThanTheRadius() {
        for radius in 0...40 {
            let allowances = HammingIndex.allowances(radius: radius)
            #expect(allowances.map { $0 + 1 }.reduce(0, +) == radius + 1)
            #expect(allowances.max()! - allowances.min()! <= 1)
        }
        #expect(HammingIndex.allowances(radius: 12) == [3, 2, 2, 2])
    }

    /// Faces on the edges at `threshold`: crops t, t+1, 2t, 2t+1 bits apart,
    /// in photos t and t+1 apart and the same photo, at places of IoU just
    /// over and under 0.5; 60 faces of one photo and its copies; faces with
    /// no photo hash or no place.
    static func edgeFaces(threshold t: Int, seed: UInt64) -> [DedupFace] {
        var random = SplitMix(seed)
        var faces: [DedupFace] = []
        let box = SIMD4<Float>(0.3, 0.3, 0.6, 0.6)
        // Moved right by a third of the side: IoU (1 - 1/3) / (1 + 1/3) = 0.5.
        let over = box + SIMD4(0.0985, 0, 0.0985, 0)  // IoU 0.5038
        let under = box + SIMD4(0.1015, 0, 0.1015, 0)  // IoU 0.4963
        func add(_ bits: UInt64, _ photo: UInt64?, _ place: SIMD4<Float>?) {
            faces.append(
                DedupFace(
                    hash: PerceptualHash(bits: bits), sharpness: Double(random.next() % 5), area: Int(random.next() % 3),
                    photo: photo.map { PerceptualHash(bits: $0) }, place: place))
        }
        for _ in 0..<8 {
            let crop = random.next()
            let photo = random.next()
            add(crop, photo, box)
            for distance in Set([t, t + 1, 2 * t, 2 * t + 1]) where distance <= 64 {
                for moved in Self.around(crop, distance: distance, radius: t, random: &random) {
                    for photoDistance in Set([0, t, t + 1]) where photoDistance <= 16 {
                        let otherPhoto = flip(photo, chunk: Int(random.next() % 4), count: photoDistance)
                        for place in [box, over, under] { add(moved, otherPhoto, place) }
                    }
                    add(moved, nil, box)
                    add(moved, photo, nil)
                }
            }
        }
        // One crowd photo, copied: 60 faces with alike photo hashes.
        let crowd = random.next()
        let crowdFaces = (0..<12).map { _ in random.next() }
        for copy in 0..<5 {
            let photo = flip(crowd, chunk: copy % 4, count: min(copy, t))
            for (k, crop) in crowdFaces.enumerated() {
                let place = SIMD4<Float>(Float(k) / 12, 0.1, Float(k) / 12 + 0.07, 0.2) + SIMD4(repeating: Float(copy) * 0.002)
                add(flip(crop, chunk: k % 4, count: max(0, min(2 * t, 16) - copy % 2)), photo, place)
            }
        }
        for _ in 0..<150 { add(random.next(), random.next(), box) }
        return faces
    }

    @Test(arguments: [0, 1, 6, 12, 32])
    func keepersAreThoseOfComparingEveryPairOnTheEdges(_ threshold: Int) {
        let faces = Self.edgeFaces(threshold: threshold, seed: UInt64(threshold) + 1)
        let indexed = Dedup.keepers(faces, threshold: threshold)
        let pairwise = Dedup.pairwiseKeepers(faces, threshold: threshold)
        #expect(indexed == pairwise)
        // Something grouped; up to 12, not everything (past 2t, faces stay apart).
        let duplicates = pairwise.count { $0 != nil }
        #expect(duplicates > 0)
        if threshold <= 12 { #expect(duplicates < faces.count - 100) }
        #expect(Dedup.keepers(faces.reversed(), threshold: threshold) == Dedup.pairwiseKeepers(faces.reversed(), threshold: threshold))
    }

    @Test(arguments: [6, 12])
    func keepersAreThoseOfComparingEveryPairOnTheBenchmarksFaces(_ threshold: Int) {
        let faces = GeneratedDedup.faces(4000, seed: 3)
        let pairwise = Dedup.pairwiseKeepers(faces, threshold: threshold)
        #expect(Dedup.keepers(faces, threshold: threshold) == pairwise)
        #expect(pairwise.count { $0 != nil } > 200)
    }
}
