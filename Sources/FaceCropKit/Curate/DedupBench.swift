import Foundation

/// `facecrop-bench dedup N`: `--dedup`'s grouping (`Dedup.keepers`) on N
/// generated faces, and with `pairwise` the quadratic comparison it
/// replaced (`Dedup.pairwiseKeepers`) on the same faces in the same process,
/// checked to give the same keepers. Photos of 1 to 3 faces; in ten photos,
/// one is a copy of an earlier photo (photo hash 0-4 bits away, boxes moved
/// by up to 1 % of the photo, crop hashes 8-22 bits away: most grouped by
/// the photo rule) and one holds a near-duplicate of an earlier face (crop
/// 2-12 bits away); the rest are random. Every hash has 32 of its 64 bits
/// set, as a real one does.
public enum DedupBench {
    public struct Figures: Sendable {
        public var faces: Int
        public var duplicates: Int
        public var generateSeconds: Double
        public var indexSeconds: Double
        public var indexCPUSeconds: Double
        public var indexPeakMB: Int
        public var pairwiseSeconds: Double?
        public var pairwiseCPUSeconds: Double?
        public var same: Bool?
    }

    public static func run(faces count: Int, index: Bool = true, pairwise: Bool, threshold: Int = Dedup.defaultThreshold, seed: UInt64 = 1) -> Figures {
        let started = ContinuousClock.now
        let faces = generate(count, seed: seed)
        let generated = ContinuousClock.now
        var figures = Figures(faces: count, duplicates: 0, generateSeconds: seconds(generated - started), indexSeconds: 0, indexCPUSeconds: 0, indexPeakMB: 0)
        var indexed: [Int?]?
        if index {
            let (keepers, wall, cpu) = timed { Dedup.keepers(faces, threshold: threshold) }
            (figures.indexSeconds, figures.indexCPUSeconds) = (wall, cpu)
            figures.indexPeakMB = peakMB()
            figures.duplicates = keepers.count { $0 != nil }
            indexed = keepers
        }
        if pairwise {
            let (keepers, wall, cpu) = timed { Dedup.pairwiseKeepers(faces, threshold: threshold) }
            (figures.pairwiseSeconds, figures.pairwiseCPUSeconds) = (wall, cpu)
            if let indexed { figures.same = indexed == keepers } else { figures.duplicates = keepers.count { $0 != nil } }
        }
        return figures
    }

    /// `body`'s result, with the wall and CPU seconds it took.
    private static func timed<T>(_ body: () -> T) -> (T, Double, Double) {
        let cpu = cpuSeconds()
        let clock = ContinuousClock.now
        let result = body()
        return (result, seconds(ContinuousClock.now - clock), cpuSeconds() - cpu)
    }

    static func generate(_ count: Int, seed: UInt64) -> [DedupFace] {
        var random = PeopleBench.SplitMix(seed)
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        func uniform() -> Float { Float(random.next() >> 40) / Float(1 << 24) }
        func hash() -> UInt64 {
            var positions = Array(0..<64)
            var bits: UInt64 = 0
            for k in 0..<32 {
                positions.swapAt(k, k + below(64 - k))
                bits |= 1 << UInt64(positions[k])
            }
            return bits
        }
        // `swaps` times: one set bit cleared, one clear bit set (at most 2 x swaps apart).
        func moved(_ bits: UInt64, swaps: Int) -> UInt64 {
            var bits = bits
            for _ in 0..<swaps {
                var on = below(64)
                while bits >> UInt64(on) & 1 == 0 { on = below(64) }
                var off = below(64)
                while bits >> UInt64(off) & 1 == 1 { off = below(64) }
                bits ^= (1 << UInt64(on)) | (1 << UInt64(off))
            }
            return bits
        }
        func face(_ bits: UInt64, photo: UInt64, place: SIMD4<Float>) -> DedupFace {
            DedupFace(hash: PerceptualHash(bits: bits), sharpness: Double(below(1000)), area: 400 + below(40_000), photo: PerceptualHash(bits: photo), place: place)
        }
        var faces: [DedupFace] = []
        faces.reserveCapacity(count + 3)
        var photoStarts: [Int] = []  // each photo's first face
        while faces.count < count {
            let kind = below(10)
            let start = faces.count
            if kind == 0, !photoStarts.isEmpty {
                let picked = below(photoStarts.count)
                let copied = photoStarts[picked]
                let end = picked + 1 < photoStarts.count ? photoStarts[picked + 1] : start
                let photo = moved(faces[copied].photo!.bits, swaps: below(3))
                // A copy first: appending while a slice shares the storage copies it all.
                for original in Array(faces[copied..<end]) {
                    let shift = SIMD4<Float>(repeating: (uniform() - 0.5) * 0.02)
                    faces.append(face(moved(original.hash.bits, swaps: 4 + below(8)), photo: photo, place: original.place! + shift))
                }
            } else {
                let photo = hash()
                let people = 1 + below(3)
                for person in 0..<people {
                    let size = 0.05 + 0.15 * uniform()
                    let x = Float(person) / Float(people) + 0.1 * uniform()
                    let y = 0.7 * uniform()
                    let bits = kind == 1 && person == 0 && !faces.isEmpty ? moved(faces[below(faces.count)].hash.bits, swaps: 1 + below(6)) : hash()
                    faces.append(face(bits, photo: photo, place: SIMD4(x, y, x + size, y + size)))
                }
            }
            photoStarts.append(start)
        }
        return Array(faces.prefix(count))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private static func peakMB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { $0.split(separator: " ")[1] } ?? "0"
        return (Int(peak) ?? 0) / 1024
    }
}
