import Testing
import FaceCropCore
import FaceCropDetect


/// The crowd tiles' geometry: where the tiles lie, when they run, and how
/// their faces are merged (CrowdTiles).
struct CrowdTilesTests {
    private func face(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ score: Double) -> Subject {
        Subject(box: PixelRect(x: x, y: y, width: w, height: h), score: score, eyes: nil)
    }

    /// A 416 x 416 photo (canvas 480 x 480): tiles of 240 px at 0 and 176.
    /// A face across the seam at x = 240 is cut in the left tile (its box
    /// clipped to the tile) and whole in the right one; a face in the
    /// overlap is found whole by both. Each is kept once, and a face the
    /// first pass already has is not added again.
    @Test func aFaceCutBySeamIsFoundOnce() {
        let plan = CrowdTiles.plan([], width: 416, height: 416, canvas: (480, 480), minSide: 4)
        #expect(plan?.tiles.map(\.x) == [0, 176, 0, 176])
        let (left, right) = (PixelRect(x: 0, y: 0, width: 240, height: 240), PixelRect(x: 176, y: 0, width: 240, height: 240))
        let tiled: [(tile: PixelRect, faces: [Subject])] = [
            (left, [face(225, 100, 15, 30, 0.9), face(190, 30, 25, 25, 0.8), face(20, 20, 30, 30, 0.7)]),
            (right, [face(225, 100, 30, 30, 0.7), face(191, 31, 24, 25, 0.75)]),
        ]
        let first = [face(21, 21, 29, 30, 0.8)]
        let merged = CrowdTiles.merge(first, tiled: tiled, width: 416, height: 416)
        #expect(merged.map(\.box) == [
            PixelRect(x: 21, y: 21, width: 29, height: 30), PixelRect(x: 190, y: 30, width: 25, height: 25),
            PixelRect(x: 225, y: 100, width: 30, height: 30),
        ])
    }

    /// A face touching the image's own edge inside a tile is no seam's cut.
    @Test func theImageEdgeIsNoSeam() {
        let tile = PixelRect(x: 0, y: 176, width: 240, height: 240)
        #expect(!CrowdTiles.cutBySeam(PixelRect(x: 0, y: 380, width: 20, height: 36), tile: tile, width: 416, height: 416))
        #expect(CrowdTiles.cutBySeam(PixelRect(x: 30, y: 176, width: 20, height: 20), tile: tile, width: 416, height: 416))
        #expect(CrowdTiles.cutBySeam(PixelRect(x: 225, y: 300, width: 15, height: 20), tile: tile, width: 416, height: 416))
    }

    /// The tiles cover the image, each the first pass's canvas shrunk by
    /// the factor (so the same network runs them), neighbours overlapping
    /// by more than the largest face taken from them.
    @Test(arguments: [(416, 416), (1008, 756), (756, 1008), (1280, 720), (300, 200)])
    func tilesCoverTheImageAndOverlap(width: Int, height: Int) throws {
        let canvas = CenterFace.ladder(width: width, height: height)
        let plan = try #require(CrowdTiles.plan([], width: width, height: height, canvas: canvas, minSide: 1))
        for tile in plan.tiles {
            #expect(tile.x >= 0 && tile.y >= 0 && tile.x + tile.width <= width && tile.y + tile.height <= height)
            let enlarged = CenterFace.ladder(width: Int(Double(tile.width) * plan.factor), height: Int(Double(tile.height) * plan.factor))
            #expect(enlarged.width == canvas.width && enlarged.height == canvas.height, "\(tile)")
        }
        for (length, tile) in [(width, plan.tiles[0].width), (height, plan.tiles[0].height)] {
            let starts = CrowdTiles.starts(length: length, tile: tile)
            #expect(starts.first == 0 && starts.last == length - tile)
            for (a, b) in zip(starts, starts.dropFirst()) { #expect(a + tile - b >= CrowdTiles.overlap || starts.count == 1) }
        }
    }

    /// The rule: two faces near the bottom of the network's reach make a
    /// crowd; one does not, nor do larger faces; a --min-face face below the
    /// network's floor asks for the tiles on any photo.
    @Test(arguments: [
        ([20, 40], 24, true), ([30], 24, false), ([41, 60, 80, 100], 24, false), ([], 24, false), ([], 6, true),
        ([41, 41, 41, 41], 12, false), ([100, 38, 39], 48, true),
    ])
    func theRuleFiresOnCrowdsOnly(sides: [Int], minSide: Int, fires: Bool) {
        let boxes = sides.enumerated().map { PixelRect(x: $0.offset * 50, y: 10, width: $0.element, height: $0.element) }
        #expect(CrowdTiles.fires(boxes, minSide: minSide) == fires)
    }

    /// On a crowd photo the tiles run only where the first pass found small
    /// faces: on a 1008 x 756 photo (a 3 x 3 grid of 504 x 384 tiles), two
    /// small faces in the top-left corner run the one tile holding them
    /// both whole; one more at the bottom right runs its tile too; a large
    /// face runs none. Under the network's floor every tile runs.
    @Test func onlyTheTilesHoldingASmallFaceRun() throws {
        let canvas = CenterFace.ladder(width: 1008, height: 756)
        let grid = CrowdTiles.grid(width: 1008, height: 756, canvas: canvas)
        #expect(grid.count == 9)
        let corner = [PixelRect(x: 10, y: 12, width: 30, height: 36), PixelRect(x: 60, y: 40, width: 28, height: 30)]
        let large = PixelRect(x: 400, y: 300, width: 120, height: 150)
        let plan = try #require(CrowdTiles.plan(corner + [large], width: 1008, height: 756, canvas: canvas, minSide: 24))
        #expect(plan.tiles == [grid[0]])
        let far = PixelRect(x: 950, y: 700, width: 30, height: 40)
        let two = try #require(CrowdTiles.plan(corner + [far], width: 1008, height: 756, canvas: canvas, minSide: 24))
        #expect(two.tiles == [grid[0], grid[8]])
        #expect(CrowdTiles.plan([large], width: 1008, height: 756, canvas: canvas, minSide: 24) == nil)
        #expect(CrowdTiles.plan([large], width: 1008, height: 756, canvas: canvas, minSide: 6)?.tiles == grid)
    }
}
