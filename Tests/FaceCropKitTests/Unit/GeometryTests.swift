import Testing
import FaceCropCore


struct GeometryTests {
    struct SquareCase: CustomTestStringConvertible, Sendable {
        var face: PixelRect
        var margin: Double
        var width: Int
        var height: Int
        var expected: PixelSquare
        var testDescription: String { "\(face) m=\(margin) in \(width)x\(height)" }
    }

    @Test(arguments: [
        // Centred, fully inside: side 100 * 1.8 = 180, centre (250, 250).
        SquareCase(face: .init(x: 200, y: 200, width: 100, height: 100), margin: 0.4, width: 1000, height: 800,
                   expected: .init(left: 160, top: 160, side: 180)),
        // No margin: the face box itself.
        SquareCase(face: .init(x: 10, y: 20, width: 50, height: 50), margin: 0, width: 100, height: 100,
                   expected: .init(left: 10, top: 20, side: 50)),
        // Near the top-left corner: shifted inside, not padded.
        SquareCase(face: .init(x: 0, y: 5, width: 100, height: 100), margin: 0.4, width: 1000, height: 800,
                   expected: .init(left: 0, top: 0, side: 180)),
        // Near the bottom-right corner: shifted inside.
        SquareCase(face: .init(x: 950, y: 750, width: 50, height: 50), margin: 0.5, width: 1000, height: 800,
                   expected: .init(left: 900, top: 700, side: 100)),
        // A tall box uses its longer side.
        SquareCase(face: .init(x: 100, y: 100, width: 40, height: 80), margin: 0, width: 500, height: 500,
                   expected: .init(left: 80, top: 100, side: 80)),
        // Larger than a small photo in both directions: centred on the photo, padded.
        SquareCase(face: .init(x: 10, y: 10, width: 80, height: 80), margin: 0.4, width: 100, height: 120,
                   expected: .init(left: -22, top: -12, side: 144)),
    ])
    func cropSquare(_ c: SquareCase) {
        let square = CropGeometry.cropSquare(around: c.face, margin: c.margin, imageWidth: c.width, imageHeight: c.height)
        #expect(square == c.expected)
        // Every square contains the whole face.
        #expect(square.left <= c.face.x && square.top <= c.face.y)
        #expect(square.left + square.side >= c.face.x + c.face.width)
        #expect(square.top + square.side >= c.face.y + c.face.height)
    }

    /// `--pad inside`: a square that fits is only moved (as without it);
    /// one larger than the photo shrinks to its shorter side, as near the
    /// face as the photo allows, and never reaches past the edge.
    @Test func cropSquareInside() {
        let fits = PixelRect(x: 0, y: 0, width: 40, height: 40)
        #expect(
            CropGeometry.cropSquare(around: fits, margin: 0.5, imageWidth: 200, imageHeight: 200, inside: true)
                == CropGeometry.cropSquare(around: fits, margin: 0.5, imageWidth: 200, imageHeight: 200))
        let narrow = PixelRect(x: 40, y: 111, width: 176, height: 221)
        let square = CropGeometry.cropSquare(around: narrow, margin: 0.6, imageWidth: 260, imageHeight: 600, inside: true)
        #expect(square == PixelSquare(left: 0, top: 91, side: 260))
        #expect(abs(CropGeometry.marginUsed(side: square.side, face: narrow, asked: 0.6) - 0.0882) < 1e-4)
        // The side asked for, rounded to whole pixels, gives the margin asked.
        #expect(CropGeometry.marginUsed(side: CropGeometry.squareSide(around: narrow, margin: 0.6), face: narrow, asked: 0.6) == 0.6)
    }

    @Test func paddingIsReportedOnlyWhenTheSquareLeavesThePhoto() {
        #expect(!PixelSquare(left: 0, top: 0, side: 100).reachesOutside(width: 100, height: 100))
        #expect(PixelSquare(left: -1, top: 0, side: 100).reachesOutside(width: 200, height: 200))
        #expect(PixelSquare(left: 0, top: 0, side: 101).reachesOutside(width: 100, height: 300))
    }

    @Test func boxesMapBackToFullResolution() {
        let mapped = CropGeometry.map(
            .init(x: 100, y: 50, width: 20, height: 20), from: (1008, 756), to: (4032, 3024))
        #expect(mapped == .init(x: 400, y: 200, width: 80, height: 80))
        // Clamped to the photo.
        let clamped = CropGeometry.map(.init(x: 90, y: 90, width: 20, height: 20), from: (100, 100), to: (100, 100))
        #expect(clamped == .init(x: 90, y: 90, width: 10, height: 10))
    }

    @Test(arguments: [
        ([PixelSquare(left: 0, top: 0, side: 1024)], 256, 0.25),
        ([PixelSquare(left: 0, top: 0, side: 1024), PixelSquare(left: 0, top: 0, side: 512)], 256, 0.5),
        ([PixelSquare(left: 0, top: 0, side: 100)], 256, 1.0),
    ])
    func decodeScaleKeepsEveryCropsResolution(squares: [PixelSquare], output: Int, scale: Double) {
        #expect(CropGeometry.decodeScale(for: squares, outputSide: output) == scale)
    }

    @Test func scaledSquares() {
        #expect(CropGeometry.scale(.init(left: 400, top: 200, side: 800), sx: 0.25, sy: 0.25) == .init(left: 100, top: 50, side: 200))
    }
}
