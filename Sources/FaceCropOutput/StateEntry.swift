import Foundation
import FaceCropCore

/// A record as one line of the state file or the journal. The format is the
/// one earlier versions wrote (the manifest lines verbatim under `lines`),
/// so a state file written by either is read by the other.
extension PhotoRecord {
    /// The state entry, given the record's manifest lines (`Manifest.lines(of: self)`).
    package func stateJSON(lines: [String]) -> JSON {
        var members: [(String, JSON)] = [
            ("input", .string(label)),
            ("index", .int(input)),
            ("source", .string(source)),
            ("size", .int(size)),
            ("mtime_ns", .int(modified)),
            ("sha256", sha256.map(JSON.string) ?? .null),
            ("status", .string(status.rawValue)),
            ("crops", .array(crops.map(JSON.string))),
            ("lines", .array(lines.map(JSON.string))),
        ]
        // --people: each face's descriptor, so a rerun computes none again
        // for photos that did not change (absent without it).
        // --split-by person: the photo's own split, when a face is elsewhere
        // (the first line's split may then be a person's).
        if faces.contains(where: { $0.split != nil }) { members.append(("photo_split", split.map(JSON.string) ?? .null)) }
        if faces.contains(where: { $0.embedding != nil }) {
            members.append(("embeddings", .array(faces.map { $0.embedding.map { .string($0.base64) } ?? .null })))
        }
        // --people with a people file: the grouping's id of each face whose
        // person the file changed (absent when none did).
        if faces.contains(where: { $0.group != $0.person }) {
            members.append(("groups", .array(faces.map { $0.group.map(JSON.string) ?? .null })))
        }
        return .object(members)
    }

    package var stateJSON: JSON { stateJSON(lines: Manifest.lines(of: self)) }

    /// A record read back from a state or journal entry.
    package init?(state object: [String: Any]) {
        guard let label = object["input"] as? String, let input = object["index"] as? Int,
            let source = object["source"] as? String, let size = object["size"] as? Int,
            let modified = object["mtime_ns"] as? Int, let statusText = object["status"] as? String,
            let status = PhotoStatus(rawValue: statusText), let lines = object["lines"] as? [String]
        else { return nil }
        self.init(
            label: label, input: input, source: source, size: size, modified: modified,
            sha256: object["sha256"] as? String, status: status)
        guard Manifest.read(lines, into: &self) else { return nil }
        if let photoSplit = object["photo_split"] {
            for index in faces.indices where faces[index].split == nil { faces[index].split = split }
            split = photoSplit as? String
            Manifest.settle(&self)
        }
        if let embeddings = object["embeddings"] as? [Any], embeddings.count == faces.count {
            for (position, value) in embeddings.enumerated() {
                faces[position].embedding = (value as? String).flatMap(Embedding.init(base64:))
            }
        }
        if let groups = object["groups"] as? [Any], groups.count == faces.count {
            for (position, value) in groups.enumerated() { faces[position].group = value as? String }
        } else {
            for position in faces.indices { faces[position].group = faces[position].person }
        }
    }
}
