import Foundation
import FaceCropCore
import FaceCropDetect

/// README.md in the output folder: the dataset's card, as the Hugging Face Hub
/// and `datasets` read it. Its YAML header declares the splits and their
/// files (`configs` / `data_files`), so that `datasets` does not guess splits
/// from words in the crops' paths: without it, a photo named `test.jpg` made
/// `load_dataset(OUT)` a one-row `test` split and dropped every other crop.
/// The body says what the dataset is: counts, settings, detector, licence,
/// how it was made, and the columns (metadata.jsonl's, learned from the
/// manifest by `HFMetadata.Columns`: a new manifest field is listed with no
/// change here).
///
/// Made from stats.json's stable part and the columns only (no time, no
/// --jobs), so the same dataset gives the same bytes on a rerun, at any
/// --jobs and after a merge of any number of shards. Written under a
/// temporary name and renamed. A README.md facecrop did not write (it lacks
/// `marker`) is never replaced: the step says so on stderr and writes none.
package enum DatasetCard {
    package static let fileName = "README.md"
    /// The line by which facecrop knows its own card.
    package static let marker =
        "<!-- facecrop dataset card: facecrop rewrites this file at every run and merge; delete this line to keep your edits (facecrop then leaves the file alone). -->"

    /// What the card says.
    package struct Contents {
        /// stats.json (its `run` section is not read).
        package var stats: JSON
        /// `--split`'s names; none: one split, `train`.
        package var splits: [String]
        package var columns: HFMetadata.Columns
    }

    /// The finishing step: writes `output/README.md` unless a file facecrop
    /// did not write is there. Returns the errors met (a note about a
    /// foreign README.md is not one).
    package static func write(_ run: FinishedRun, splits: [String], columns: HFMetadata.Columns) -> [String] {
        let path = run.output + "/" + fileName
        if let foreign = foreignFile(at: path) {
            Terminal.stderr(
                "facecrop: note: '\(path)' \(foreign): it is left as it is and no dataset card is written. "
                    + "Move it away (or add the line \(marker) to it) and run again to get one.\n")
            return []
        }
        let text = card(Contents(stats: run.stats, splits: splits, columns: columns))
        do throws(WriteFailure) {
            try AtomicFile.write(Array(text.utf8), to: path, temporaries: run.temporaries)
            return []
        } catch {
            return ["\(fileName): \(error.reason)"]
        }
    }

    /// Why the file at `path` is not facecrop's to replace; nil when it is
    /// (or there is none).
    package static func foreignFile(at path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "is not a regular file" }
        guard let data = FileManager.default.contents(atPath: path) else { return "cannot be read" }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.contains { $0 == marker } ? nil : "was not written by facecrop"
    }

    /// The card's text: the YAML header, then its sections in order.
    package static func card(_ contents: Contents) -> String {
        var out = header(contents) + introduction(contents) + splitsSection(contents) + photosSection(contents.stats)
        out += "\n## Detector\n\n" + detectorLine(contents.settings) + "\n" + licence
        return out + howItWasMade(contents) + fieldsSection(contents)
    }

    /// The licence section, for whoever shares the dataset to fill in.
    package static let licence =
        "\n## Licence\n\n<!-- licence: say here under which licence the crops may be used. -->\n"
        + "Not stated yet. Each crop is part of a photo: it carries that photo's licence and the rights of the "
        + "person it shows. Say here under which terms the crops may be used (and, for the Hub, add a "
        + "`license:` line to the header above) before you share them.\n"

    /// The YAML header: the splits and their files.
    private static func header(_ contents: Contents) -> String {
        var out = "---\n"
        out += "# Written by facecrop: the splits and their files, so that `datasets` takes\n"
        out += "# no split from words in the crops' paths.\n"
        out += "configs:\n- config_name: default\n  data_files:\n"
        let splits = contents.splitNames
        let declared = contents.declared
        for split in declared.isEmpty ? [splits[0]] : declared {
            out += "  - split: \(split)\n    path:\n"
            for pattern in dataFiles(split: contents.splits.isEmpty ? nil : split, format: contents.format) {
                out += "    - \(yamlQuoted(pattern))\n"
            }
        }
        return out + "---\n\n\(marker)\n\n"
    }

    /// The title, what a row is, and how to load it.
    private static func introduction(_ contents: Contents) -> String {
        let stats = contents.stats
        let size = contents.settings["size"]?.text ?? "?"
        var out = "# Face crops\n\n"
        let formatName = ["jpg": "JPEG", "webp": "WebP"][contents.format] ?? contents.format.uppercased()
        out += "\(count(contents.faces, "crop")) of \(size) x \(size) pixels (\(formatName)) cut from "
        out += "\(count(stats["photos"]?.intValue ?? 0, "photo")) by facecrop \(contents.version): a row per crop, with the crop as `image` and its "
        out += "line of `manifest.jsonl` as the other columns.\n\n"
        out += "```python\nfrom datasets import load_dataset\n\n"
        out += "faces = load_dataset(\"path/to/this/folder\")  # or the Hub repository that holds it\n"
        out += "print(faces[\"\(contents.splitNames[0])\"][0])\n```\n\n"
        return out
    }

    /// The splits: their crops and folders, and how photos were put in them.
    private static func splitsSection(_ contents: Contents) -> String {
        var out = "## Splits\n\n| split | crops | folder |\n| --- | ---: | --- |\n"
        let counted = contents.stats["splits"]
        for split in contents.splitNames {
            let crops = contents.splits.isEmpty ? contents.faces : counted?[split]?.intValue ?? 0
            out += "| \(split) | \(crops) | `\(contents.splits.isEmpty ? "." : split + "/")` |\n"
        }
        if contents.splits.isEmpty {
            out += "\nOne split, `train`: every crop. (`--split` makes more, chosen by each photo's content.)\n"
        } else {
            out += "\nEach photo's crops are in one split, chosen from a hash of the photo's content "
            out += "(`--split \(contents.settings["split"]?.text ?? "")`); near-duplicates stay on one side."
            let empty = contents.splitNames.filter { !contents.declared.contains($0) }
            if !empty.isEmpty {
                out += " Not in the header, having no crop: \(empty.map { "`\($0)`" }.joined(separator: ", "))."
            }
            out += "\n"
        }
        return out
    }

    /// The photos read and what became of them.
    private static func photosSection(_ stats: JSON) -> String {
        var out = "\n## Photos\n\n| | photos |\n| --- | ---: |\n"
        out += "| read | \(stats["photos"]?.intValue ?? 0) |\n"
        let tally = stats["counts"]
        for (name, label) in [
            ("ok", "with a crop"), ("no_face", "without a face"), ("no_person", "without a person"), ("error", "failed"),
        ] {
            out += "| \(label) | \(tally?[name]?.intValue ?? 0) |\n"
        }
        // Kept as they were: not found (`--no-prune`), or not readable by the last run (a failure of that run).
        for (name, label) in [("missing", "not found, kept (marked `missing`)"), ("unreadable", "failed to read, kept as before")] {
            if let value = stats[name]?.intValue { out += "| \(label) | \(value) |\n" }
        }
        for (name, label) in [("rejected", "Faces rejected by a person"), ("duplicate", "Near-duplicate faces left out")] {
            if let value = stats[name]?.intValue { out += "\n\(label): \(value).\n" }
        }
        return out
    }

    /// The version and every setting.
    private static func howItWasMade(_ contents: Contents) -> String {
        var out = "\n## How it was made\n\n"
        out += "With facecrop \(contents.version), from the photos' content and these "
        out += "settings (settings hash `\(contents.stats["settings_hash"]?.text ?? "")`). The same photos and settings give the "
        out += "same bytes again, whatever `--jobs` or the number of shards; `stats.json` holds the same "
        out += "settings, `manifest.jsonl` a line for every photo, including those without a crop.\n\n"
        out += "| setting | value |\n| --- | --- |\n"
        if case .object(let members) = contents.settings {
            for (name, value) in members { out += "| `\(name)` | \(tableCell(value.text)) |\n" }
        }
        return out
    }

    /// The columns of a row.
    private static func fieldsSection(_ contents: Contents) -> String {
        var out = "\n## Fields\n\n"
        out += "Every row: `image` (the crop; `file_name` in metadata.jsonl is its path relative to "
        out += contents.splits.isEmpty ? "this folder" : "its split's folder"
        out += "), then these columns, one for each field of the crop's `manifest.jsonl` line (a field a line "
        out += "lacks is empty there). What each field means is in facecrop's manual, under manifest.jsonl "
        out += "(`docs/manual.md` in its source, `/usr/share/doc/facecrop/docs/manual.md` from its .deb).\n\n"
        out += "| column | type |\n| --- | --- |\n| `image` | image |\n"
        for name in contents.columns.names {
            out += "| `\(name)` | \(contents.columns.columns[name]!.typeName) |\n"
        }
        return out
    }

    /// A split's files, relative to the output folder (`split` nil: the
    /// whole folder is the one split): its metadata.jsonl, whose lines are
    /// the split's rows (datasets 5.2.0's `imagefolder` makes a row per
    /// metadata line and opens the crop it names, whatever other images the
    /// split lists), and every crop, by which `datasets` knows the folder
    /// for an `imagefolder`. The crops are the whole folder's in every
    /// split: a split's own folder may hold none (a small dataset), and a
    /// split without an image is taken for plain JSON.
    package static func dataFiles(split: String?, format: String) -> [String] {
        [(split.map { $0 + "/" } ?? "") + HFMetadata.fileName, "**/*." + format]
    }

    package static func detectorLine(_ settings: JSON) -> String {
        let detector = settings["detector"]?.text ?? "cascade"
        let facts = (DetectorKind(rawValue: detector) ?? .cascade).facts
        var line = "`\(detector)` (\(facts.cardDescription(settings)))"
        line += ", finding `\(settings["target"]?.text ?? "face")`"
        line += ", faces of at least \(settings["min_face"]?.text ?? "?") px"
        if facts.scoresConfidence { line += " scoring at least \(settings["min_score"]?.text ?? "?")" }
        let detectSize = settings["detect_size"]?.text ?? "auto"
        line += detectSize == "auto" ? ", detected at a size chosen per photo" : ", detected on the photo shrunk to \(detectSize) px"
        return line + "."
    }

    package static func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }

    /// A YAML double-quoted scalar.
    package static func yamlQuoted(_ text: String) -> String {
        var out = ""
        JSON.quote(text, into: &out)
        return out
    }

    package static func tableCell(_ text: String) -> String {
        text.isEmpty ? "" : text.replacingOccurrences(of: "|", with: "\\|")
    }
}

extension DatasetCard.Contents {
    package var settings: JSON { stats["settings"] ?? .object([]) }
    /// The splits named in the card: `--split`'s, or `train`.
    package var splitNames: [String] { splits.isEmpty ? ["train"] : splits }
    /// The splits the header declares. A split without a crop is left out:
    /// `datasets` refuses a whole dataset with an empty split ("corresponds
    /// to no data").
    package var declared: [String] { splits.isEmpty ? splitNames : splitNames.filter { (stats["splits"]?[$0]?.intValue ?? 0) > 0 } }
    package var format: String { settings["format"]?.text ?? "jpg" }
    package var faces: Int { stats["faces"]?.intValue ?? 0 }
    package var version: String { stats["version"]?.text ?? Options.version }
}
