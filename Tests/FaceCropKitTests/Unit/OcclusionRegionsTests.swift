import Foundation
import Testing
import FaceCropCore

/// `FaceOcclusionRegions`' edge energy, on chips whose answer is known: the
/// mean of |dx| + |dy| over a region's patches, neighbours past the chip's
/// last column or row not counted.
struct OcclusionRegionsTests {
    static let side = 192

    /// Every mesh point at the chip's centre: each region is one 11 x 11 patch there.
    static let centre = [Point2D](repeating: Point2D(96, 96), count: 468)

    @Test func aFlatChipHasNoEdgesAndStripesHaveTheirStep() {
        let flat = [UInt8](repeating: 120, count: Self.side * Self.side)
        // Columns alternating 0 and 200: every step across is 200, none down.
        let stripes = (0..<Self.side * Self.side).map { UInt8(($0 % Self.side) % 2 == 0 ? 0 : 200) }
        let still = FaceOcclusionRegions.read(chip: flat, colour: [], side: Self.side, points: Self.centre)
        let striped = FaceOcclusionRegions.read(chip: stripes, colour: [], side: Self.side, points: Self.centre)
        #expect(still["eyes"]?.edge == 0 && still["lips"]?.edge == 0)
        #expect(striped["eyes"]?.edge == 200 && striped["lips"]?.edge == 200)
        #expect(striped["eyes"]?.count == 32 * 121)
    }

    /// A patch on the chip's last column has no right-hand neighbour there:
    /// a chip whose last column alone differs reads no step along it.
    @Test func theLastColumnHasNoNeighbourToTheRight() {
        let chip = (0..<Self.side * Self.side).map { UInt8($0 % Self.side == Self.side - 1 ? 255 : 0) }
        let corner = [Point2D](repeating: Point2D(191, 96), count: 468)
        let read = FaceOcclusionRegions.read(chip: chip, colour: [], side: Self.side, points: corner)
        // The patch spans columns 186-191: only column 190's step to 191 counts.
        #expect(read["noseTip"]?.edge == 255.0 / 6)
    }
}
