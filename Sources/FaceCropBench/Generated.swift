import Foundation

/// SplitMix64: a small generator, the same numbers on every machine.
package struct SplitMix {
    package var state: UInt64
    package init(_ seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// About normal (the sum of four uniforms, scaled to variance 1).
    package mutating func normal() -> Float {
        var sum: Float = 0
        for _ in 0..<4 { sum += Float(next() >> 40) / Float(1 << 24) }
        return (sum - 2) * 1.7320508
    }

    /// A whole number in 0..<n.
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// A number in [0, 1) with 24 bits.
    package mutating func uniform() -> Float { Float(next() >> 40) / Float(1 << 24) }
}

/// A made-up photo's SHA-256: 16 random hex digits, then zeros.
package func generatedPhotoHash(_ random: inout SplitMix) -> String {
    String(format: "%016llx", random.next()) + String(repeating: "0", count: 48)
}
