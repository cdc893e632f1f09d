import Foundation
import FaceCropCore
import FaceCropCurate

/// `--dedup`'s input for N made-up faces. Photos of 1 to 3 faces; in ten
/// photos, one is a copy of an earlier photo (photo hash 0-4 bits away,
/// boxes moved by up to 1 % of the photo, crop hashes 8-22 bits away: most
/// grouped by the photo rule) and one holds a near-duplicate of an earlier
/// face (crop 2-12 bits away); the rest are random. Every hash has 32 of its
/// 64 bits set, as a real one does.
package enum GeneratedDedup {
    package static func faces(_ count: Int, seed: UInt64) -> [DedupFace] {
        var random = SplitMix(seed)
        var faces: [DedupFace] = []
        faces.reserveCapacity(count + 3)
        var photoStarts: [Int] = []  // each photo's first face
        while faces.count < count {
            let kind = random.below(10)
            let start = faces.count
            if kind == 0, !photoStarts.isEmpty {
                let picked = random.below(photoStarts.count)
                let end = picked + 1 < photoStarts.count ? photoStarts[picked + 1] : start
                copyPhoto(from: photoStarts[picked]..<end, into: &faces, &random)
            } else {
                newPhoto(nearDuplicate: kind == 1, into: &faces, &random)
            }
            photoStarts.append(start)
        }
        return Array(faces.prefix(count))
    }

    /// The faces of `range` again, as a copy of their photo.
    private static func copyPhoto(from range: Range<Int>, into faces: inout [DedupFace], _ random: inout SplitMix) {
        let photo = moved(faces[range.lowerBound].photo!.bits, swaps: random.below(3), &random)
        // A copy first: appending while a slice shares the storage copies it all.
        for original in Array(faces[range]) {
            let shift = SIMD4<Float>(repeating: (random.uniform() - 0.5) * 0.02)
            let bits = moved(original.hash.bits, swaps: 4 + random.below(8), &random)
            faces.append(face(bits, photo: photo, place: original.place! + shift, &random))
        }
    }

    /// A new photo of 1 to 3 faces; with `nearDuplicate`, its first face is
    /// a near-duplicate of an earlier one.
    private static func newPhoto(nearDuplicate: Bool, into faces: inout [DedupFace], _ random: inout SplitMix) {
        let photo = hash(&random)
        let people = 1 + random.below(3)
        for person in 0..<people {
            let size = 0.05 + 0.15 * random.uniform()
            let x = Float(person) / Float(people) + 0.1 * random.uniform()
            let y = 0.7 * random.uniform()
            let bits =
                nearDuplicate && person == 0 && !faces.isEmpty
                ? moved(faces[random.below(faces.count)].hash.bits, swaps: 1 + random.below(6), &random) : hash(&random)
            faces.append(face(bits, photo: photo, place: SIMD4(x, y, x + size, y + size), &random))
        }
    }

    private static func face(_ bits: UInt64, photo: UInt64, place: SIMD4<Float>, _ random: inout SplitMix) -> DedupFace {
        DedupFace(
            hash: PerceptualHash(bits: bits), sharpness: Double(random.below(1000)), area: 400 + random.below(40_000),
            photo: PerceptualHash(bits: photo), place: place)
    }

    /// 32 of 64 bits set, at random places.
    private static func hash(_ random: inout SplitMix) -> UInt64 {
        var positions = Array(0..<64)
        var bits: UInt64 = 0
        for k in 0..<32 {
            positions.swapAt(k, k + random.below(64 - k))
            bits |= 1 << UInt64(positions[k])
        }
        return bits
    }

    /// `swaps` times: one set bit cleared, one clear bit set (at most 2 x swaps apart).
    private static func moved(_ bits: UInt64, swaps: Int, _ random: inout SplitMix) -> UInt64 {
        var bits = bits
        for _ in 0..<swaps {
            var on = random.below(64)
            while bits >> UInt64(on) & 1 == 0 { on = random.below(64) }
            var off = random.below(64)
            while bits >> UInt64(off) & 1 == 1 { off = random.below(64) }
            bits ^= (1 << UInt64(on)) | (1 << UInt64(off))
        }
        return bits
    }
}
