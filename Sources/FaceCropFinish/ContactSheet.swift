import CVipsShim
import Foundation
import FaceCropCore
import FaceCropImaging

/// contact-sheet.png: every crop of the dataset as a small tile, labelled
/// with its number, in a grid. One sheet holds at most `perSheet` crops
/// (`contact-sheet-1.png`, `contact-sheet-2.png`, ... beyond that), and only
/// one sheet's tiles are in memory at a time: each tile is decoded as a
/// thumbnail straight away and its file closed, so memory stays near
/// `perSheet` tiles (about 56 MB) whatever the size of the dataset.
package enum ContactSheet {
    package static let tileSide = 128
    package static let perSheet = 1000
    package static let maxColumns = 32
    /// Pixels between tiles.
    package static let gap = 2
    package static let labelHeight = Int(CVipsShim_LabelHeight)

    /// The sheet file names for a dataset of `crops` crops.
    package static func names(forCrops crops: Int) -> [String] {
        if crops == 0 { return [] }
        if crops <= perSheet { return ["contact-sheet.png"] }
        let count = (crops + perSheet - 1) / perSheet
        return (1...count).map { "contact-sheet-\($0).png" }
    }

    /// Columns of a sheet of `tiles` tiles: about square, at most `maxColumns`.
    package static func columns(forTiles tiles: Int) -> Int {
        var side = 1
        while side * side < tiles { side += 1 }
        return min(maxColumns, side)
    }

    /// The pixel size of a sheet of `tiles` tiles.
    package static func size(forTiles tiles: Int) -> (width: Int, height: Int) {
        let across = columns(forTiles: tiles)
        let rows = (tiles + across - 1) / across
        return (across * tileSide + (across - 1) * gap, rows * (tileSide + labelHeight) + (rows - 1) * gap)
    }

    /// Writes the sheets for every crop of the run (numbered from 1 in
    /// manifest order) and removes sheets an earlier, larger dataset left.
    /// Returns the sheet names and the problems met.
    package static func write(_ run: FinishedRun) -> (names: [String], failures: [String]) {
        let crops = run.records.flatMap(\.crops)
        let names = names(forCrops: crops.count)
        removeStale(keeping: names.count, in: run.output)
        // Nothing changed since the sheets were made: they are still right.
        let unchanged = run.stats["run"]?["processed"]?.intValue == 0 && run.stats["run"]?["removed_crops"]?.intValue == 0
        if unchanged, names.allSatisfy({ access(run.output + "/" + $0, F_OK) == 0 }) {
            return (names, [])
        }
        var failures: [String] = []
        do throws(FaceCropError) {
            try Vips.start()  // `facecrop merge` has not started it
        } catch {
            return (names, ["contact sheet: \(error.reason)"])
        }
        for (sheet, name) in names.enumerated() {
            if run.stop.requested != nil { return (names, failures) }
            let first = sheet * perSheet
            let last = min(crops.count, first + perSheet)
            var tiles: [SheetTile] = []
            tiles.reserveCapacity(last - first)
            for index in first..<last {
                do throws(FaceCropError) {
                    tiles.append(try SheetTile(path: run.output + "/" + crops[index], number: index + 1))
                } catch {
                    failures.append("contact sheet: crop '\(crops[index])': \(error.reason)")
                    guard let blank = try? SheetTile(path: nil, number: index + 1) else { return (names, failures) }
                    tiles.append(blank)
                }
            }
            do throws(WriteFailure) {
                try AtomicFile.write(to: run.output + "/" + name, temporaries: run.temporaries) { path in
                    SheetTile.saveSheet(tiles, across: columns(forTiles: tiles.count), to: path)
                }
            } catch {
                failures.append("contact sheet: cannot write '\(name)': \(error.reason)")
            }
        }
        return (names, failures)
    }

    /// Removes `contact-sheet.png` / `contact-sheet-N.png` files that are not
    /// among the `count` sheets of this run (names only facecrop writes).
    package static func removeStale(keeping count: Int, in output: String) {
        if count != 1 { unlink(output + "/contact-sheet.png") }
        var number = count > 1 ? count + 1 : 1
        while unlink(output + "/contact-sheet-\(number).png") == 0 { number += 1 }
    }
}

/// One decoded, labelled contact-sheet tile in memory. Not thread-safe:
/// owned by the one task building a sheet.
package final class SheetTile {
    private let handle: OpaquePointer

    /// The image at `path` (nil: a grey placeholder) as a labelled tile.
    package init(path: String?, number: Int) throws(FaceCropError) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_SheetTile(path, Int32(ContactSheet.tileSide), number, &handle, &message)
        guard status == 0, let handle else {
            throw .decodeFailed(path ?? "", reason: takeMessage(message, fallback: "could not make tile"))
        }
        self.handle = handle
    }

    /// The image at `path` as a tile labelled with `label` (the characters
    /// `CVipsShim_SheetTileLabel` draws: digits, F L R U D, '-', '.', ' ').
    package init(path: String, label: String) throws(FaceCropError) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        let status = CVipsShim_SheetTileLabel(path, Int32(ContactSheet.tileSide), label, &handle, &message)
        guard status == 0, let handle else {
            throw .decodeFailed(path, reason: takeMessage(message, fallback: "could not make tile"))
        }
        self.handle = handle
    }

    deinit { CVipsShim_ImageFree(handle) }

    /// Writes the tiles joined `across` wide as a PNG file; returns why it could not.
    package static func saveSheet(_ tiles: [SheetTile], across: Int, to path: String) -> String? {
        var handles: [OpaquePointer?] = tiles.map(\.handle)
        var message: UnsafeMutablePointer<CChar>?
        let status = withExtendedLifetime(tiles) {
            CVipsShim_SheetSave(&handles, Int32(handles.count), Int32(across), path, &message)
        }
        return status == 0 ? nil : takeMessage(message, fallback: "could not write sheet")
    }
}
