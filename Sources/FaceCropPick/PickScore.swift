/// How good a crop is, for choosing within a pose bin: the manifest's
/// `face_quality` (0...1, higher is better) where the dataset has it. A
/// dataset made before `face_quality` gets a stand-in from what every
/// dataset has: the mean of the crop's percentile among the dataset's crops
/// by `sharpness` and by face size (`face_px`, or the box's longer side), so
/// a sharp, large face scores near 1 and a blurred, small one near 0.
/// Percentiles, not the raw values: sharpness has no fixed scale, and a
/// percentile is the same whatever the photos' sizes.
package struct PickScore: Sendable {
    /// Where the scores come from, for pick.json.
    package enum Source: String, Sendable {
        case faceQuality = "face_quality"
        case sharpnessAndSize = "sharpness_and_size"
    }

    private let sharpness: [Double]
    private let sizes: [Double]

    /// Ranks against all of `candidates` (the whole dataset, so a crop's
    /// stand-in score does not depend on whom it is picked for).
    package init(_ candidates: [PickCandidate]) {
        sharpness = candidates.map(\.sharpness).sorted()
        sizes = candidates.map(\.size).sorted()
    }

    /// The crop's score, to 4 decimals, and where it came from.
    package func score(_ candidate: PickCandidate) -> (value: Double, source: Source) {
        if let quality = candidate.faceQuality { return (Self.rounded(quality), .faceQuality) }
        let value = (Self.percentile(candidate.sharpness, in: sharpness) + Self.percentile(candidate.size, in: sizes)) / 2
        return (Self.rounded(value), .sharpnessAndSize)
    }

    /// The share of the other values below `value` (ties count half): 0 for
    /// the smallest, 1 for the largest.
    package static func percentile(_ value: Double, in sorted: [Double]) -> Double {
        guard sorted.count > 1 else { return 1 }
        let below = boundary(sorted) { $0 < value }
        let upTo = boundary(sorted) { $0 <= value }
        let ties = upTo - below - 1
        return (Double(below) + Double(max(0, ties)) / 2) / Double(sorted.count - 1)
    }

    /// The first index where `before` stops holding (binary search).
    private static func boundary(_ sorted: [Double], _ before: (Double) -> Bool) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if before(sorted[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    package static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}
