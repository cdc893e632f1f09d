import Foundation

/// manifest.jsonl read one line at a time (getline), so a manifest of a
/// million crops never sits in memory. Each element is one line without its
/// newline, with the fields the exports need already picked out.
package struct ManifestLines: Sequence {
    package let path: String

    /// One manifest line: its exact text (re-serialising would risk changing
    /// how a number is written) and the two fields that decide what to do
    /// with it.
    package struct Line {
        package var text: String
        /// The parsed object (JSONSerialization's types).
        package var object: [String: Any]
        package var status: String
        /// The crop path relative to the dataset folder ("" without a crop).
        package var crop: String

        package init(text: String, object: [String: Any], status: String, crop: String) {
            (self.text, self.object, self.status, self.crop) = (text, object, status, crop)
        }
    }

    /// Lines that are empty or do not parse are skipped.
    package func makeIterator() -> AnyIterator<Line> {
        let lines = StateLines(path: path)
        return AnyIterator {
            while let bytes = lines.next() {
                guard bytes.count > 0, let object = StateLines.object(bytes) else { continue }
                let text = String(decoding: bytes, as: UTF8.self)
                return Line(text: text, object: object, status: object["status"] as? String ?? "", crop: object["crop"] as? String ?? "")
            }
            return nil
        }
    }

    package init(path: String) {
        self.path = path
    }
}

extension ManifestLines.Line {
    /// A sample of a training set: a crop that was kept (`status: ok`), not a
    /// photo without a face, a failure, or a crop set aside (rejected,
    /// duplicate).
    package var isSample: Bool { status == "ok" && !crop.isEmpty }
}
