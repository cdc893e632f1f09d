/// Every pair of 64-bit codes at most `radius` bits apart, found through an
/// index instead of by comparing every pair: multi-index hashing (Norouzi,
/// Punjani and Fleet, "Fast exact search in Hamming space with multi-index
/// hashing", TPAMI 2014), exact, for `--dedup`.
///
/// The 64 bits are cut into four chunks of 16. Chunk k is given an allowance
/// f(k) of differing bits, with (f(0) + 1) + ... + (f(3) + 1) = radius + 1
/// (a chunk given -1 is not used). Two codes at most `radius` apart differ
/// in at most f(k) bits of some chunk k, or their distance would be at
/// least the sum of the f(k) + 1, one more than `radius` (the pigeonhole).
/// So for each used chunk the codes are sorted into 65,536 buckets by that
/// chunk's value, and every bucket is compared with itself and with the
/// buckets whose value differs from its own in at most f(k) bits; every
/// such candidate pair's full distance is then tested. At radius 12 the
/// allowances are 3, 2, 2, 2: a bucket meets 697 + 3 x 137 others, 1.7 %
/// of all pairs of random codes are tested instead of all of them.
///
/// A pair is reported only from the first chunk within its allowance, so
/// each pair exactly once. Nothing depends on threads or on the order
/// buckets are visited beyond the order of the calls.
package enum HammingIndex {
    /// The allowance of each of the four chunks at `radius` (-1: not used).
    package static func allowances(radius: Int) -> [Int] {
        let slots = radius + 1
        return (0..<4).map { chunk in slots / 4 + (chunk < slots % 4 ? 1 : 0) - 1 }
    }

    /// Calls `body(i, j)` once for every pair i < j of positions in `codes`
    /// whose codes differ in at most `radius` bits. `indexed: false` compares
    /// every pair (the reference the tests hold the index to); nil chooses
    /// the cheaper way for the radius: every pair from radius 21 on, where a
    /// bucket would meet a quarter of the others or more.
    package static func pairs(_ codes: [UInt64], radius: Int, indexed: Bool? = nil, _ body: (Int, Int) -> Void) {
        guard radius >= 0, codes.count > 1 else { return }
        let flips = allowances(radius: radius)
        let met = flips.filter { $0 >= 0 }.map { masks(upTo: $0).count }.reduce(0, +)
        if !(indexed ?? (radius < 64 && met < 65_536 / 4)) {
            everyPair(codes, radius: radius, body)
            return
        }
        var buckets = Buckets(count: codes.count)
        var earlier: [(shift: UInt64, flips: Int)] = []
        for chunk in 0..<4 where flips[chunk] >= 0 {
            let shift = UInt64(16 * chunk)
            buckets.sort(codes, shift: shift)
            buckets.scan(radius: radius, others: masks(upTo: flips[chunk]).filter { $0 != 0 }, earlier: earlier, body)
            earlier.append((shift, flips[chunk]))
        }
    }

    /// Every pair compared, in order: the reference, and the cheaper way at
    /// large radii.
    private static func everyPair(_ codes: [UInt64], radius: Int, _ body: (Int, Int) -> Void) {
        codes.withUnsafeBufferPointer { codes in
            for i in codes.indices {
                let a = codes[i]
                for j in (i + 1)..<codes.count where (a ^ codes[j]).nonzeroBitCount <= radius { body(i, j) }
            }
        }
    }

    /// The codes sorted into 65,536 buckets by one chunk's value: bucket v
    /// holds `sorted[start[v]..<start[v + 1]]`, whose positions in the
    /// codes are `order`'s. Its arrays are reused from chunk to chunk.
    private struct Buckets {
        var order: [Int32]
        var sorted: [UInt64]
        var start = [Int32](repeating: 0, count: 65_537)

        init(count: Int) {
            order = [Int32](repeating: 0, count: count)
            sorted = [UInt64](repeating: 0, count: count)
        }

        /// Counting sort by the chunk's value; a bucket keeps positions in order.
        mutating func sort(_ codes: [UInt64], shift: UInt64) {
            for v in start.indices { start[v] = 0 }
            for code in codes { start[Int((code >> shift) & 0xffff) + 1] += 1 }
            for v in 0..<65_536 { start[v + 1] += start[v] }
            var next = Array(start[0..<65_536])
            for (position, code) in codes.enumerated() {
                let v = Int((code >> shift) & 0xffff)
                let at = Int(next[v])
                order[at] = Int32(position)
                sorted[at] = code
                next[v] += 1
            }
        }

        /// Compares every bucket with itself and with the buckets `others`
        /// away (each pair of buckets once), and reports each pair at most
        /// `radius` apart that no `earlier` chunk reported.
        func scan(radius: Int, others: [UInt16], earlier before: [(shift: UInt64, flips: Int)], _ body: (Int, Int) -> Void) {
            order.withUnsafeBufferPointer { order in
                sorted.withUnsafeBufferPointer { sorted in
                    start.withUnsafeBufferPointer { start in
                        // Whether a pair differing in `d` was reported from an earlier chunk.
                        func reportedBefore(_ d: UInt64) -> Bool {
                            for e in before where Int(((d >> e.shift) & 0xffff).nonzeroBitCount) <= e.flips { return true }
                            return false
                        }
                        func test(_ x: Int, against ys: Range<Int>) {
                            let a = sorted[x]
                            for y in ys {
                                let d = a ^ sorted[y]
                                if d.nonzeroBitCount <= radius, !reportedBefore(d) {
                                    let (a, b) = (Int(order[x]), Int(order[y]))
                                    body(min(a, b), max(a, b))
                                }
                            }
                        }
                        for v in 0..<65_536 {
                            let (first, end) = (Int(start[v]), Int(start[v + 1]))
                            guard first < end else { continue }
                            for x in first..<end { test(x, against: (x + 1)..<end) }
                            for mask in others {
                                let w = v ^ Int(mask)
                                guard w > v else { continue }
                                let (otherFirst, otherEnd) = (Int(start[w]), Int(start[w + 1]))
                                guard otherFirst < otherEnd else { continue }
                                for x in first..<end { test(x, against: otherFirst..<otherEnd) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every 16-bit value with at most `flips` bits set, 0 first.
    package static func masks(upTo flips: Int) -> [UInt16] {
        guard flips >= 0 else { return [] }
        return (0...UInt16.max).filter { $0.nonzeroBitCount <= flips }
    }
}
