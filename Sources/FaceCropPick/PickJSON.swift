import Foundation
import FaceCropCore

/// JSON for pick's files: numbers that are fractions written with a fixed
/// number of decimals on every line (`0.5000`, `12.00`), so that Hugging
/// Face `datasets`, which takes a column's type from its first lines, sees
/// a float column, and so the bytes are the same on every machine.
package enum PickJSON {
    package static func decimal(_ value: Double, places: Int) -> String {
        String(format: "%.\(places)f", value)
    }

    /// `value` as a JSON member text (`"name": value`).
    package static func member(_ name: String, _ value: String) -> String {
        var out = ""
        JSON.quote(name, into: &out)
        return out + ": " + value
    }

    package static func string(_ text: String?) -> String {
        guard let text else { return "null" }
        var out = ""
        JSON.quote(text, into: &out)
        return out
    }

    package static func pose(_ pose: PickCandidate.Pose?) -> String {
        guard let pose else { return "null" }
        return "{" + [member("yaw", decimal(pose.yaw, places: 2)), member("pitch", decimal(pose.pitch, places: 2)),
            member("roll", decimal(pose.roll, places: 2))].joined(separator: ", ") + "}"
    }

    /// One metadata.jsonl row: `file_name`, the caption as `text`, and the
    /// crop's manifest fields (null where the dataset has none).
    package static func metadataRow(file: String, caption: String, choice: PickChoice, enlargement: Double) -> String {
        let candidate = choice.candidate
        let members = [
            member("file_name", string(file)),
            member("text", string(caption)),
            member("source", string(candidate.photoKey)),
            member("person", string(candidate.person)),
            member("face_quality", candidate.faceQuality.map { decimal($0, places: 4) } ?? "null"),
            member("pose", pose(candidate.pose)),
            member("pose_bin", string(choice.bin.rawValue)),
            member("taken", string(candidate.taken)),
            member("score", decimal(choice.score, places: 4)),
            member("enlargement", decimal(enlargement, places: 4)),
        ]
        return "{" + members.joined(separator: ", ") + "}"
    }
}
