import Foundation
import Testing
import FaceCropCore
import FaceCropImaging


/// `Roll`: the canvas a rolled head is found upright on, and the mapping
/// back from it, checked against the quarter turn's exact pixel moves.
struct RolledPixelsTests {
    /// A 5 x 3 image whose pixels are their own index times ten.
    static let image = GrayImage(width: 5, height: 3, pixels: (0..<15).map { UInt8($0 * 10) })

    /// Rolled by a quarter, the canvas is the quarter turn's image (within
    /// a grey level: the turn's sine and cosine are not exactly 1 and 0),
    /// and every pixel maps onto the canvas where that image has it.
    @Test(arguments: [90.0, -90.0, 180.0])
    func aQuarterRollIsTheQuarterTurn(degrees: Double) {
        let roll = Roll(degrees: degrees, width: 5, height: 3)
        let turn = QuarterTurn(quarters: Int(degrees / 90))
        let turned = Self.image.turned(turn)
        let rolled = Self.image.rolled(roll)
        #expect((rolled.width, rolled.height) == (turned.width, turned.height))
        #expect(zip(rolled.pixels, turned.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "\(rolled.pixels)")
        let exact = turn.turning(width: 5, height: 3)
        for p in [Point2D(0, 0), Point2D(4, 2), Point2D(1.5, 0.25)] {
            let (a, b) = (roll.toCanvas.apply(p), exact.apply(p))
            #expect(abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9)
        }
    }

    /// A 45-degree canvas holds the whole image (its corners inside, black
    /// past it), maps back exactly, and is the same bytes every time.
    @Test func aCanvasRolled45DegreesHoldsTheWholeImage() {
        let roll = Roll(degrees: 45, width: 5, height: 3)
        #expect((roll.canvasWidth, roll.canvasHeight) == (6, 6))
        for corner in [Point2D(0, 0), Point2D(4, 0), Point2D(0, 2), Point2D(4, 2)] {
            let p = roll.toCanvas.apply(corner)
            #expect(p.x >= -0.5 && p.y >= -0.5 && p.x <= 5.5 && p.y <= 5.5, "\(corner) -> \(p)")
            let back = roll.toImage.apply(p)
            #expect(abs(back.x - corner.x) < 1e-9 && abs(back.y - corner.y) < 1e-9)
        }
        let rolled = Self.image.rolled(roll)
        #expect(rolled.pixels[0] == 0, "the canvas's corner lies past the image")
        #expect(rolled.pixels == Self.image.rolled(roll).pixels)
        // The image's centre pixel (70) stays at the canvas's centre.
        let centre = roll.toCanvas.apply(Point2D(2, 1))
        #expect(abs(centre.x - 2.5) < 1e-9 && abs(centre.y - 2.5) < 1e-9)
    }

    /// A face's chip: the point it is cut about is the chip's centre.
    @Test func aChipIsCutAboutItsCentre() {
        let roll = Roll(degrees: -30, about: Point2D(3, 1), side: 4, width: 5, height: 3)
        let p = roll.toCanvas.apply(Point2D(3, 1))
        #expect(abs(p.x - 1.5) < 1e-9 && abs(p.y - 1.5) < 1e-9)
        #expect(Self.image.rolled(roll).pixels.count == 16)
    }
}
