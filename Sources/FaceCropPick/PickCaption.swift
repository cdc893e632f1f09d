/// The caption beside each picked crop (`NNNN.txt`), in the form LoRA and
/// DreamBooth trainers read: one line of comma-separated words, the name
/// first. `--caption TEMPLATE` replaces the default template; its
/// placeholders are:
/// - `{name}`: the person (a name from people.txt or an id); empty when
///   picking by photo;
/// - `{year}`, `{date}`: the capture year and day (`taken`); empty when not known;
/// - `{pose}`: the pose bin (frontal, left, right, up, down); empty when unknown;
/// - `{score}`: the crop's score (4 decimals);
/// - `{source}`: the photo's path in the dataset.
/// A comma-separated part that comes out empty is left out with its comma,
/// so `{name}, {year}, {pose}` of a photo with no date is `alice, frontal`.
package enum PickCaption {
    package static let defaultTemplate = "{name}, {year}, {pose}"
    package static let placeholders = ["{name}", "{year}", "{date}", "{pose}", "{score}", "{source}"]

    package static func render(_ template: String, _ choice: PickChoice) -> String {
        let candidate = choice.candidate
        let values: [String: String] = [
            "{name}": candidate.person ?? "",
            "{year}": candidate.year ?? "",
            "{date}": candidate.day ?? "",
            "{pose}": choice.bin == .unknown ? "" : choice.bin.rawValue,
            "{score}": PickJSON.decimal(choice.score, places: 4),
            "{source}": candidate.photoKey,
        ]
        let parts = template.split(separator: ",", omittingEmptySubsequences: false).map { part in
            var text = String(part)
            for placeholder in placeholders { text = text.replacingOccurrences(of: placeholder, with: values[placeholder]!) }
            return text
        }
        let kept = parts.filter { !$0.allSatisfy { $0 == " " } }
        let joined = kept.joined(separator: ",")
        let trimmed = joined.drop { $0 == " " }
        // A single-line caption: a line break (in a name) becomes a space.
        return String(trimmed).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// A placeholder-like `{word}` the template has that pick does not know; nil if none.
    package static func unknownPlaceholder(_ template: String) -> String? {
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { return nil }
            let word = String(rest[open...close])
            if !placeholders.contains(word) { return word }
            rest = rest[rest.index(after: close)...]
        }
        return nil
    }
}
