
import Foundation

/// A 64-bit perceptual hash of a crop (a DCT hash): the crop shrunk to
/// 32 x 32 gray, its 2-D DCT-II, the 64 lowest-frequency coefficients after
/// the DC term in zigzag order, each bit set when its coefficient is above
/// their median. Re-encoding, resizing, a slightly moved crop or a little
/// blur change the high frequencies, which are left out, and barely move
/// the low ones; the median makes it independent of brightness and contrast.
public struct PerceptualHash: Sendable, Hashable, CustomStringConvertible {
    public var bits: UInt64

    public init(bits: UInt64) { self.bits = bits }

    /// 16 lowercase hex digits, as in the manifest.
    public var description: String {
        let hex = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    public init?(hex: String) {
        guard hex.utf8.count == 16, let bits = UInt64(hex, radix: 16) else { return nil }
        self.bits = bits
    }

    /// How many of the 64 bits differ.
    public func distance(to other: PerceptualHash) -> Int { (bits ^ other.bits).nonzeroBitCount }

    package static let side = 32

    /// The hash of 32 x 32 8-bit gray pixels, rows packed.
    public init(gray pixels: [UInt8]) {
        precondition(pixels.count == Self.side * Self.side, "32 x 32 pixels expected")
        let n = Self.side
        let k = Self.reach
        // Separable DCT-II, only the k x k lowest frequencies: rows, then columns.
        var rows = [Double](repeating: 0, count: n * k)
        for y in 0..<n {
            for u in 0..<k {
                var sum = 0.0
                for x in 0..<n { sum += Double(pixels[y * n + x]) * Self.cosines[u * n + x] }
                rows[y * k + u] = sum
            }
        }
        var coefficients: [Double] = []
        coefficients.reserveCapacity(64)
        for (u, v) in Self.zigzag {
            var sum = 0.0
            for y in 0..<n { sum += rows[y * k + u] * Self.cosines[v * n + y] }
            coefficients.append(sum)
        }
        let median = coefficients.sorted()[31...32].reduce(0, +) / 2
        var bits: UInt64 = 0
        for (index, value) in coefficients.enumerated() where value > median {
            bits |= 1 << UInt64(63 - index)
        }
        self.bits = bits
    }

    /// The frequencies used: the first 64 after (0, 0) in zigzag order,
    /// (horizontal, vertical), all below `reach`.
    package static let zigzag: [(Int, Int)] = {
        var order: [(Int, Int)] = []
        var diagonal = 1
        while order.count < 64 {
            let cells = (0...diagonal).map { diagonal % 2 == 0 ? ($0, diagonal - $0) : (diagonal - $0, $0) }
            order.append(contentsOf: cells.prefix(64 - order.count))
            diagonal += 1
        }
        return order
    }()

    package static let reach = 11

    /// cos((2x + 1) u pi / 2n) for u < reach, x < n: the DCT unnormalised,
    /// every coefficient scaled alike (as scipy's default DCT-II, which the
    /// common pHash implementations use), so the median comparison is fair.
    package static let cosines: [Double] = {
        let n = side
        var table = [Double](repeating: 0, count: reach * n)
        for u in 0..<reach {
            for x in 0..<n { table[u * n + x] = cos(Double(2 * x + 1) * Double(u) * Double.pi / Double(2 * n)) }
        }
        return table
    }()
}
