import Foundation

/// The regions of the face `FaceOcclusion` compares, as patches around named
/// points of MediaPipe's canonical face mesh on its chip, and what is read
/// from each: the grey chip's mean, spread and edge energy, and the colour
/// chip's mean red, green and blue.
package enum FaceOcclusionRegions {
    /// What one region reads: grey mean and spread (0-255), edge energy (the
    /// mean of |dx| + |dy| between neighbouring grey pixels), and mean sRGB
    /// (0-255 each; all 0 where no colour chip was given).
    package struct Stats: Sendable, Equatable {
        /// The pixels read.
        package var count: Int
        package var mean: Double
        package var sd: Double
        package var rgb: (r: Double, g: Double, b: Double)
        package var edge: Double

        package init(count: Int, mean: Double, sd: Double, rgb: (r: Double, g: Double, b: Double), edge: Double = 0) {
            (self.count, self.mean, self.sd, self.rgb, self.edge) = (count, mean, sd, rgb, edge)
        }

        package static func == (a: Stats, b: Stats) -> Bool {
            a.count == b.count && a.mean == b.mean && a.sd == b.sd && a.rgb == b.rgb && a.edge == b.edge
        }

        /// How much redder than blue the region is, in hundredths of its
        /// sum (skin 10-20, a grey or a white 0, a blue mask below 0).
        package var redness: Double {
            let sum = rgb.r + rgb.g + rgb.b
            return sum > 0 ? 100 * (rgb.r - rgb.b) / sum : 0
        }

        /// How far apart two regions' chromaticities are, in hundredths.
        package func chromaDistance(_ other: Stats) -> Double {
            let (a, b) = (chroma, other.chroma)
            return 100 * hypot(a.r - b.r, a.g - b.g)
        }

        /// The stats of the regions' pixels taken together.
        package static func pooled(_ parts: [Stats]) -> Stats {
            let n = Double(parts.reduce(0) { $0 + $1.count })
            guard n > 0 else { return Stats(count: 0, mean: 0, sd: 0, rgb: (0, 0, 0)) }
            func share(_ value: (Stats) -> Double) -> Double { parts.reduce(0.0) { $0 + Double($1.count) * value($1) } / n }
            let mean = share(\.mean)
            let square = share { $0.sd * $0.sd + $0.mean * $0.mean }
            return Stats(
                count: Int(n), mean: mean, sd: max(0, square - mean * mean).squareRoot(),
                rgb: (share(\.rgb.r), share(\.rgb.g), share(\.rgb.b)), edge: share(\.edge))
        }

        /// The region's chromaticity: red and green over the sum of the
        /// three (a grey 1/3 each; a region with no colour reads as grey).
        package var chroma: (r: Double, g: Double) {
            let sum = rgb.r + rgb.g + rgb.b
            return sum > 0 ? (rgb.r / sum, rgb.g / sum) : (1.0 / 3, 1.0 / 3)
        }
    }

    /// The regions by name, each its mesh points.
    package static let points: [(name: String, indices: [Int])] = [
        ("forehead", [10, 151, 9, 108, 337, 67, 297, 109, 338, 69, 299, 104, 333]),
        ("eyes", [
            33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246,
            263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466,
        ]),
        ("underEyes", [117, 118, 119, 100, 346, 347, 348, 329, 230, 231, 450, 451]),
        ("cheeks", [50, 280, 205, 425, 36, 266, 187, 411, 123, 352]),
        ("bridge", [6, 168, 197, 195]),
        ("noseTip", [1, 4, 5, 19, 94]),
        ("nostrils", [98, 327, 2, 97, 326, 64, 294]),
        ("lips", [61, 291, 0, 17, 37, 267, 84, 314, 13, 14, 78, 308, 39, 269, 181, 405]),
        ("innerLips", [13, 14, 78, 308, 82, 312, 87, 317]),
        ("chin", [152, 175, 199, 200, 18, 171, 396]),
        ("jaw", [57, 287, 202, 422, 210, 430, 135, 364, 212, 432]),
        // The brows and the temples beside the eyes: skin above and beside a lens.
        ("brows", [70, 63, 105, 66, 107, 336, 296, 334, 293, 300]),
        ("temples", [127, 162, 21, 356, 389, 251]),
    ]

    /// A patch is the (2r + 1)² chip pixels around a point (cut at the
    /// chip's edge): r = 5 of 192 px, about a tenth of the eye distance.
    static let radius = 5

    /// The chip offsets (pixel index) of the patches around `indices`.
    static func offsets(side: Int, points: [Point2D], _ indices: [Int]) -> [Int] {
        var out: [Int] = []
        // A point off the chip by more than its side (or not a number) has no patch.
        for index in indices where index < points.count && abs(points[index].x) < 2e3 && abs(points[index].y) < 2e3 {
            let (cx, cy) = (Int(points[index].x.rounded(.toNearestOrEven)), Int(points[index].y.rounded(.toNearestOrEven)))
            let (x0, x1) = (max(0, cx - radius), min(side - 1, cx + radius))
            let (y0, y1) = (max(0, cy - radius), min(side - 1, cy + radius))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 { out.append(y * side + x) }
            }
        }
        return out
    }

    /// Each region's stats, on the grey chip `chip` (`side` x `side`, rows
    /// packed) and the colour chip `colour` (the same pixels, 3 bytes each;
    /// empty: none) with the mesh's `points` in chip pixels.
    package static func read(chip: [UInt8], colour: [UInt8], side: Int, points: [Point2D]) -> [String: Stats] {
        var out: [String: Stats] = [:]
        let hasColour = colour.count == 3 * chip.count
        for (name, indices) in Self.points {
            let at = offsets(side: side, points: points, indices)
            guard !at.isEmpty else {
                out[name] = Stats(count: 0, mean: 0, sd: 0, rgb: (0, 0, 0))
                continue
            }
            let n = Double(at.count)
            let mean = at.reduce(0.0) { $0 + Double(chip[$1]) } / n
            let sd = (at.reduce(0.0) { $0 + (Double(chip[$1]) - mean) * (Double(chip[$1]) - mean) } / n).squareRoot()
            // Edge energy: against the neighbour on the right and the one below (none past the last column or row).
            let edge = at.reduce(0.0) { sum, i in
                let (x, y) = (i % side, i / side)
                let dx = x + 1 < side ? abs(Double(chip[i + 1]) - Double(chip[i])) : 0
                let dy = y + 1 < side ? abs(Double(chip[i + side]) - Double(chip[i])) : 0
                return sum + dx + dy
            } / n
            var rgb = (r: 0.0, g: 0.0, b: 0.0)
            if hasColour {
                for i in at { (rgb.r, rgb.g, rgb.b) = (rgb.r + Double(colour[3 * i]), rgb.g + Double(colour[3 * i + 1]), rgb.b + Double(colour[3 * i + 2])) }
                rgb = (rgb.r / n, rgb.g / n, rgb.b / n)
            }
            out[name] = Stats(count: at.count, mean: mean, sd: sd, rgb: rgb, edge: edge)
        }
        return out
    }
}

/// Where the fitting tool (scripts/fit-occlusion, through facecrop-bench)
/// hears each measured face's region stats and mesh face score: nil, as in
/// every run of the product, hears nothing.
package enum OcclusionProbe {
    @TaskLocal package static var sink: (@Sendable ([String: FaceOcclusionRegions.Stats], Double) -> Void)? = nil
}
