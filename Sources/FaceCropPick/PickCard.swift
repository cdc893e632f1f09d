import Foundation
import FaceCropCore
import FaceCropFinish

/// README.md in a pick's folder: a short card whose YAML header declares
/// the folder's one split, `train`, as metadata.jsonl and the crops, as the
/// main dataset's card does (`DatasetCard`). Without it `datasets` counts
/// the files by kind, finds as many captions (`NNNN.txt`) as crops and
/// loads the captions alone: `load_dataset(OUT)` gave a row per caption
/// with only a `text` column. With it, `load_dataset(OUT)` gives a row per
/// metadata line, the crop as `image`, its caption as `text` and the other
/// columns. A README.md facecrop did not write is left alone, as in a dataset.
package enum PickCard {
    /// The card's text for the crops written (their file extensions give the patterns).
    package static func text(_ written: [PickWriter.Written], person: String?, dataset: String) -> String {
        let extensions = Set(written.map { ($0.file as NSString).pathExtension }).sorted()
        var out = "---\n"
        out += "# Written by facecrop pick: the one split and its files, so that `datasets` loads\n"
        out += "# the crops with their captions, not the captions alone.\n"
        out += "configs:\n- config_name: default\n  data_files:\n  - split: train\n    path:\n"
        for pattern in [HFMetadata.fileName] + extensions.map({ "**/*." + $0 }) {
            out += "    - \(DatasetCard.yamlQuoted(pattern))\n"
        }
        out += "---\n\n\(DatasetCard.marker)\n\n"
        let who = person.map { " of \($0)" } ?? ""
        out += "# Picked face crops\n\n"
        out += "\(DatasetCard.count(written.count, "crop"))\(who) chosen by `facecrop pick` from the dataset `\(dataset)`: "
        out += "a row per crop, with the crop as `image`, its caption (`NNNN.txt`) as `text`, and its source, person, "
        out += "face_quality, pose, capture time, score and enlargement (pick.json says why each was chosen).\n\n"
        out += "```python\nfrom datasets import load_dataset\n\n"
        out += "picked = load_dataset(\"path/to/this/folder\", split=\"train\")\n```\n"
        return out
    }

    /// Writes `output/README.md`, unless a file facecrop did not write is there (said on stderr).
    package static func write(_ text: String, to output: String, temporaries: TemporaryFiles) throws(WriteFailure) {
        let path = output + "/" + DatasetCard.fileName
        if let foreign = DatasetCard.foreignFile(at: path) {
            Terminal.stderr("facecrop: note: '\(path)' \(foreign): it is left as it is and no card is written.\n")
            return
        }
        try AtomicFile.write(Array(text.utf8), to: path, temporaries: temporaries)
    }
}
