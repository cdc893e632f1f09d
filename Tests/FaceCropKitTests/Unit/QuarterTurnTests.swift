import Foundation
import Testing
import FaceCropCore
import FaceCropImaging


/// `QuarterTurn`: the one description of a turned face, checked against the
/// pixels it turns.
struct QuarterTurnTests {
    /// A 5 x 3 image whose pixels are their own index.
    static let image = GrayImage(width: 5, height: 3, pixels: (0..<15).map(UInt8.init))

    @Test(arguments: [0, 1, 2, 3])
    func turningMapsEveryPixelWhereTheTurnedImageHasIt(quarters: Int) {
        let turn = QuarterTurn(quarters: quarters)
        let turned = Self.image.turned(turn)
        let size = turn.size(width: 5, height: 3)
        #expect((turned.width, turned.height) == (size.width, size.height))
        let map = turn.turning(width: 5, height: 3)
        for y in 0..<3 {
            for x in 0..<5 {
                let p = map.apply(Point2D(Double(x), Double(y)))
                #expect(turned.pixels[Int(p.y) * turned.width + Int(p.x)] == UInt8(y * 5 + x))
            }
        }
        // A box goes where its pixels go; turning back undoes it.
        let box = PixelRect(x: 1, y: 0, width: 2, height: 3)
        let moved = turn.turn(box, width: 5, height: 3)
        let corners = [Point2D(1, 0), Point2D(2, 2)].map(map.apply)
        #expect(moved.x == Int(min(corners[0].x, corners[1].x)) && moved.y == Int(min(corners[0].y, corners[1].y)))
        #expect(turn.reversed.turn(moved, width: size.width, height: size.height) == box)
        #expect(turned.turned(turn.reversed).pixels == Self.image.pixels)
    }

    /// The glance's canvas (`shrunk(by:)`): each block's rounded mean, the
    /// leftover column and row dropped, colour channels kept apart.
    @Test func shrinkingAveragesEachBlock() {
        let gray = Self.image.shrunk(by: 2)
        #expect((gray.width, gray.height) == (2, 1))
        // Blocks {0, 1, 5, 6} and {2, 3, 7, 8}: means 3 and 5.
        #expect(gray.pixels == [3, 5])
        #expect(Self.image.shrunk(by: 1).pixels == Self.image.pixels)
        let rgb = RGBImage(width: 2, height: 2, pixels: [10, 0, 255, 11, 0, 255, 10, 1, 0, 10, 1, 0])
        #expect(rgb.shrunk(by: 2).pixels == [10, 1, 128])
        // An image smaller than a block is one block.
        #expect(Self.image.shrunk(by: 8).pixels == [7])
    }

    @Test(arguments: [(0.0, 0), (30.0, 0), (-59.0, 0), (75.0, 90), (100.0, 90), (178.0, 180), (-170.0, 180), (-95.0, 270)])
    func aFacesRollGivesItsQuarterTurn(roll: Double, degrees: Int) {
        // An upright face turned `roll` degrees clockwise about the origin.
        let upright = [Point2D(-1, 0), Point2D(1, 0), Point2D(0, 0.6), Point2D(-0.7, 1.2), Point2D(0.7, 1.2)]
        let r = roll * .pi / 180
        let points = upright.map { Point2D($0.x * cos(r) - $0.y * sin(r), $0.x * sin(r) + $0.y * cos(r)) }
        let measured = QuarterTurn.roll(of: FaceLandmarks(points))!
        #expect(abs(QuarterTurn.upright.residual(measured - roll)) < 1e-6)
        #expect(QuarterTurn.nearest(roll: measured).degrees == degrees)
        #expect(abs(QuarterTurn.nearest(roll: measured).residual(measured)) <= 60)
    }

    @Test func onlyQuarterTurnsAreReadBack() {
        #expect(QuarterTurn(degrees: 90)?.quarters == 1)
        #expect(QuarterTurn(degrees: 45) == nil && QuarterTurn(degrees: 360) == nil && QuarterTurn(degrees: -90) == nil)
        #expect(QuarterTurn(quarters: -1).degrees == 270)
    }
}
