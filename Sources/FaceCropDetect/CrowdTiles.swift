import Foundation
import FaceCropCore

/// Faces at the back of a crowd: CenterFace misses many faces near the
/// bottom of its reach (under ~40 px at the detection size) that it finds
/// when the photo is enlarged. When a photo's first pass says it is a crowd,
/// the parts of the photo where that pass found small faces are detected
/// again on overlapping tiles enlarged `factor` times, each tile, once
/// enlarged, the size of the first pass's canvas (so it runs on the same
/// network: no more memory), and the tiles' small faces are merged with the
/// first pass's faces. A portrait never pays for it, nor does the sky or the
/// empty street of a crowd photo: the rule looks at the first pass's faces
/// of that photo only, and a tile runs only where one of them lies. Pure
/// geometry; the passes are `CenterFace`'s.
package enum CrowdTiles {
    /// How much a tile is enlarged.
    package static let factor = 2.0
    /// A first-pass face this small (long side, detection pixels) is near
    /// the bottom of the network's reach.
    package static let smallSide = 40
    /// So many small faces make a photo a crowd. This and `smallSide` were
    /// chosen on the development set (docs/centerface.md, "Faces at the back
    /// of a crowd").
    package static let crowd = 2
    /// Below this (detection pixels), the network finds next to no face in
    /// one pass (its heatmap has a cell every 4 px; not measured, a bound
    /// below `CenterFaceFinder.reach`): a `--min-face` face this small
    /// asks for the tiles on every photo.
    package static let floor = 10
    /// Tiles overlap by this much (detection pixels), more than any face
    /// taken from them is long, so every such face lies whole in a tile.
    package static let overlap = 64
    /// Only faces up to this long side are taken from the tiles; larger
    /// ones are the first pass's.
    package static let largestTiled = 56

    /// The rule in words: the settings' `crowd_tiles` member where the tiles
    /// can run (CenterFace finding faces), so that a dataset made before them
    /// is processed again, and one made with any other detector keeps its
    /// settings hash.
    package static let rule =
        "x\(Int(factor)) when \(crowd) faces <= \(smallSide) px, on the tiles holding one, or --min-face < \(floor) px"

    package struct Plan: Equatable {
        package var factor: Double
        package var tiles: [PixelRect]
    }

    /// Whether the tiles run on a photo whose first pass found `boxes` and
    /// whose smallest face wanted is `minSide` (both in detection pixels).
    package static func fires(_ boxes: [PixelRect], minSide: Int) -> Bool {
        if minSide < floor { return true }
        return boxes.filter { max($0.width, $0.height) <= smallSide }.count >= crowd
    }

    /// The tiles for a `width` x `height` image whose first pass ran on a
    /// `canvas`, or nil when the rule does not fire: those of the grid
    /// (`grid`) that hold a first-pass face of `smallSide` or less whole,
    /// or every tile of it when `--min-face` is under `floor`.
    ///
    /// Only the tiles holding a small face: on the development set they
    /// give the same manifest, byte for byte, as the whole grid, with 159
    /// tile passes instead of 252 and 0.80x the run's CPU
    /// (docs/centerface.md, "Only where the small faces are").
    package static func plan(_ boxes: [PixelRect], width: Int, height: Int, canvas: (width: Int, height: Int), minSide: Int) -> Plan? {
        guard fires(boxes, minSide: minSide) else { return nil }
        let all = grid(width: width, height: height, canvas: canvas)
        if minSide < floor { return Plan(factor: factor, tiles: all) }
        let small = boxes.filter { max($0.width, $0.height) <= smallSide }
        return Plan(factor: factor, tiles: all.filter { tile in small.contains { holds(tile, $0) } })
    }

    /// Every tile over a `width` x `height` image whose first pass ran on a
    /// `canvas`, row by row.
    package static func grid(width: Int, height: Int, canvas: (width: Int, height: Int)) -> [PixelRect] {
        let tileWidth = min(width, Int(Double(canvas.width) / factor))
        let tileHeight = min(height, Int(Double(canvas.height) / factor))
        let xs = starts(length: width, tile: tileWidth), ys = starts(length: height, tile: tileHeight)
        return ys.flatMap { y in xs.map { x in PixelRect(x: x, y: y, width: tileWidth, height: tileHeight) } }
    }

    /// Whether `box` lies whole in `tile`.
    package static func holds(_ tile: PixelRect, _ box: PixelRect) -> Bool {
        box.x >= tile.x && box.y >= tile.y && box.x + box.width <= tile.x + tile.width
            && box.y + box.height <= tile.y + tile.height
    }

    /// Where tiles of `tile` start along a side of `length`, evenly spread,
    /// neighbours overlapping by `overlap` or more, the last ending at the
    /// side's end.
    package static func starts(length: Int, tile: Int) -> [Int] {
        guard tile < length else { return [0] }
        let step = max(1, tile - overlap)
        let count = 1 + Int((Double(length - tile) / Double(step)).rounded(.up))
        return (0..<count).map { index in (length - tile) * index / (count - 1) }
    }

    /// The first pass's faces, and the tiles' small faces that are not
    /// already among them. A tile face touching an edge of its tile inside
    /// the image is cut by the seam and dropped (the overlap holds it whole
    /// in the neighbouring tile); faces found twice in overlapping tiles are
    /// kept once (`suppress`).
    package static func merge(_ first: [Subject], tiled: [(tile: PixelRect, faces: [Subject])], width: Int, height: Int) -> [Subject] {
        var candidates: [Subject] = []
        for (tile, faces) in tiled {
            for face in faces where max(face.box.width, face.box.height) <= largestTiled {
                if !cutBySeam(face.box, tile: tile, width: width, height: height) { candidates.append(face) }
            }
        }
        let fresh = suppress(candidates).filter { face in !first.contains { sameFace($0.box, face.box) } }
        return first + fresh
    }

    /// Whether `box` touches an edge of `tile` that is not the image's edge.
    package static func cutBySeam(_ box: PixelRect, tile: PixelRect, width: Int, height: Int) -> Bool {
        (tile.x > 0 && box.x <= tile.x + 1) || (tile.y > 0 && box.y <= tile.y + 1)
            || (tile.x + tile.width < width && box.x + box.width >= tile.x + tile.width - 1)
            || (tile.y + tile.height < height && box.y + box.height >= tile.y + tile.height - 1)
    }

    /// Greedy non-maximum suppression: the best scoring face first (ties:
    /// top, then left), then every face that is not the same as one kept.
    package static func suppress(_ faces: [Subject]) -> [Subject] {
        let ordered = faces.sorted { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.box.y != b.box.y { return a.box.y < b.box.y }
            if a.box.x != b.box.x { return a.box.x < b.box.x }
            return a.box.area > b.box.area
        }
        var kept: [Subject] = []
        for face in ordered where !kept.contains(where: { sameFace($0.box, face.box) }) { kept.append(face) }
        return kept
    }

    /// Two boxes of one face: IoU 0.3 or more (as the network's own
    /// suppression), or the smaller lying mostly (70 %) inside the larger.
    package static func sameFace(_ a: PixelRect, _ b: PixelRect) -> Bool {
        if a.iou(b) >= 0.3 { return true }
        let w = min(a.x + a.width, b.x + b.width) - max(a.x, b.x)
        let h = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
        guard w > 0, h > 0 else { return false }
        return Double(w * h) >= 0.7 * Double(min(a.area, b.area))
    }
}
