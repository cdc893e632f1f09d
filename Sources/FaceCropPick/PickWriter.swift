import Foundation
import FaceCropCore
import FaceCropFinish

/// Writes a pick into `<out>`: each crop (`NNNN.<ext>`, numbered in the
/// order chosen; under `<person>/` with `--per-person`) with its caption
/// (`NNNN.txt`), then metadata.jsonl, contact-sheet.png and pick.json, each
/// under a temporary name and renamed. Files an earlier pick into the same
/// folder listed in its pick.json and this one does not write are removed.
package struct PickWriter {
    package var output: String
    package var dataset: String
    package var cutter: PickCutter
    package var caption: String
    package var temporaries: TemporaryFiles

    /// One crop written.
    package struct Written {
        package var file: String
        package var caption: String
        package var choice: PickChoice
        package var cut: Bool
        /// Output side ÷ source pixels, and the margin the crop has.
        package var enlargement: Double
        package var margin: Double
    }

    package func writing<T>(_ path: String, _ body: () throws(WriteFailure) -> T) throws(FaceCropError) -> T {
        do throws(WriteFailure) { return try body() } catch { throw .outputUnusable(output, reason: "cannot write '\(path)': \(error.reason)") }
    }

    /// The crops of one pool and their captions, in `folder` ("" or a
    /// person's), numbered from `first`; and the chosen crops that could be
    /// neither cut again nor copied, with the reason.
    package func writeCrops(_ choices: [PickChoice], folder: String, first: Int = 1, stop: StopRequest) throws(FaceCropError)
        -> (written: [Written], leftOut: [PickLeftOut])
    {
        let prefix = folder.isEmpty ? "" : folder + "/"
        try writing(output + "/" + folder) { () throws(WriteFailure) in try AtomicFile.makeFolder(output + "/" + folder) }
        var written: [Written] = []
        var leftOut: [PickLeftOut] = []
        for choice in choices {
            if stop.requested != nil { break }
            let (bytes, cut, enlargement, margin): ([UInt8], Bool, Double, Double)
            switch try cutter.outcome(for: choice.candidate, dataset: dataset) {
            case .written(let b, let c, let e, let m): (bytes, cut, enlargement, margin) = (b, c, e, m)
            case .leftOut(let reason):
                leftOut.append(PickLeftOut(candidate: choice.candidate, reason: reason, forSize: true))
                continue
            }
            let ext = cut ? cutter.settings.format.fileExtension : (choice.candidate.crop as NSString).pathExtension.lowercased()
            let stem = prefix + Self.numbered(first + written.count)
            let text = PickCaption.render(caption, choice)
            try writing(stem + "." + ext) { () throws(WriteFailure) in
                try AtomicFile.write(bytes, to: output + "/" + stem + "." + ext, temporaries: temporaries)
                try AtomicFile.write(Array((text + "\n").utf8), to: output + "/" + stem + ".txt", temporaries: temporaries)
            }
            written.append(
                Written(file: stem + "." + ext, caption: text, choice: choice, cut: cut, enlargement: enlargement, margin: margin))
        }
        return (written, leftOut)
    }

    package static func numbered(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    package func writeMetadata(_ written: [Written]) throws(FaceCropError) {
        let lines = written.map {
            PickJSON.metadataRow(file: $0.file, caption: $0.caption, choice: $0.choice, enlargement: $0.enlargement) + "\n"
        }
        try writing(HFMetadata.fileName) { () throws(WriteFailure) in
            try AtomicFile.write(Array(lines.joined().utf8), to: output + "/" + HFMetadata.fileName, temporaries: temporaries)
        }
    }

    /// A tile's label: the capture year (`----` when not known), the pose
    /// bin's initial (`F`, `L`, `R`, `U`, `D`; `-` when unknown) and the
    /// score to 2 decimals (`.83`, `1.0`), 10 characters, what a 128-pixel
    /// tile holds in the sheet's built-in font.
    package static func label(_ choice: PickChoice) -> String {
        let year = choice.candidate.year.flatMap { $0.allSatisfy(\.isNumber) ? $0 : nil } ?? "----"
        let bin = choice.bin == .unknown ? "-" : String(choice.bin.rawValue.prefix(1)).uppercased()
        let hundredths = Int((choice.score * 100).rounded())
        let score = hundredths >= 100 ? "1.0" : "." + (hundredths < 10 ? "0" : "") + String(max(0, hundredths))
        return "\(year) \(bin) \(score)"
    }

    /// The contact sheet(s) of the crops written, in pick order (tile N is
    /// pick.json's `tile` N), each labelled with `label`. Returns the sheet names.
    package func writeSheets(_ written: [Written]) throws(FaceCropError) -> [String] {
        let names = ContactSheet.names(forCrops: written.count)
        ContactSheet.removeStale(keeping: names.count, in: output)
        for (sheet, name) in names.enumerated() {
            let range = (sheet * ContactSheet.perSheet)..<min(written.count, (sheet + 1) * ContactSheet.perSheet)
            var tiles: [SheetTile] = []
            for index in range {
                tiles.append(try SheetTile(path: output + "/" + written[index].file, label: Self.label(written[index].choice)))
            }
            try writing(name) { () throws(WriteFailure) in
                try AtomicFile.write(to: output + "/" + name, temporaries: temporaries) { path in
                    SheetTile.saveSheet(tiles, across: ContactSheet.columns(forTiles: tiles.count), to: path)
                }
            }
        }
        return names
    }

    /// Removes the crops and captions the previous pick.json in `output`
    /// lists that this pick did not write.
    package func removeStale(keeping written: [Written]) {
        guard let object = JSONReading.object(atPath: output + "/" + PickReport.fileName),
            let picked = object["picked"] as? [[String: Any]]
        else { return }
        let kept = Set(written.map(\.file))
        for entry in picked {
            guard let file = entry["file"] as? String, !kept.contains(file), Self.isPickName(file) else { continue }
            unlink(output + "/" + file)
            unlink(output + "/" + (file as NSString).deletingPathExtension + ".txt")
        }
    }

    /// `NNNN.<ext>` or `<folder>/NNNN.<ext>`: the only names pick removes.
    package static func isPickName(_ file: String) -> Bool {
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }) else { return false }
        let stem = (String(parts.last!) as NSString).deletingPathExtension
        return stem.count == 4 && stem.allSatisfy(\.isASCII) && stem.allSatisfy(\.isNumber)
    }
}
