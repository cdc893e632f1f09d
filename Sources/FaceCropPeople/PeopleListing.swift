import Foundation
import FaceCropCore
import FaceCropCurate

/// The people of a dataset as its manifest says (each face line's
/// `person`): for `facecrop people` and the report's People page.
package struct PeopleListing: Sendable {
    /// One face with a crop.
    package struct Face: Sendable, Equatable {
        /// Its crop's number (1-based, manifest order), as on the contact sheet and report.
        package var number: Int
        /// The crop file, relative to the dataset.
        package var crop: String
        /// The photo as the manifest names it (`input/source`) and the face's number in it.
        package var photo: String
        package var face: Int
        package var handle: Rejection
        package var sharpness: Double
        package var person: String?
        /// Its face_quality (nil: a dataset made before the quality record).
        package var quality: Double? = nil
        /// A video frame's time in seconds (nil: a photo's face).
        package var time: Double? = nil

        /// The comment facecrop writes after a statement about this face.
        package var note: String { Rejection.note(photo: photo, face: face) }
        package var side: Int { max(handle.box.width, handle.box.height) }

        package init(number: Int, crop: String, photo: String, face: Int, handle: Rejection, sharpness: Double,
            person: String? = nil, quality: Double? = nil, time: Double? = nil) {
            (self.number, self.crop, self.photo, self.face, self.handle) = (number, crop, photo, face, handle)
            (self.sharpness, self.person, self.quality, self.time) = (sharpness, person, quality, time)
        }
    }

    package struct Person: Sendable, Equatable {
        /// A name from the people file, or a grouping's id (`person-0007`).
        package var label: String
        /// The faces, in manifest order.
        package var faces: [Face]
        package var photos: Int
        package var representative: Face

        /// The median face_quality of its faces (nil: one has none), the
        /// lower middle one of an even count.
        package var medianQuality: Double? {
            let scores = faces.compactMap(\.quality).sorted()
            guard scores.count == faces.count, !scores.isEmpty else { return nil }
            return scores[(scores.count - 1) / 2]
        }

        /// Whether the label is a name (not an id of the grouping).
        package var named: Bool { !PeopleListing.isGroupID(label) }
    }

    /// Largest first, then by label (byte order).
    package var people: [Person] = []
    /// Faces with a crop and no person, in manifest order.
    package var unassigned: [Face] = []
    package var unassignedPhotos = 0
    /// Whether any face line has a `person` at all (a dataset made with `--people`).
    package var grouped = false

    /// `person-` and digits: the form of the ids grouping gives.
    package static func isGroupID(_ label: String) -> Bool {
        guard label.hasPrefix("person-") else { return false }
        let digits = label.dropFirst("person-".count)
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }

    package init(faces: [Face], grouped: Bool) {
        self.grouped = grouped
        var byPerson: [String: [Face]] = [:]
        for face in faces {
            if let person = face.person {
                byPerson[person, default: []].append(face)
            } else {
                unassigned.append(face)
            }
        }
        unassignedPhotos = Self.photoCount(unassigned)
        people = byPerson.map { label, faces in
            Person(label: label, faces: faces, photos: Self.photoCount(faces), representative: Self.representative(faces))
        }
        people.sort { a, b in
            a.faces.count != b.faces.count
                ? a.faces.count > b.faces.count : Array(a.label.utf8).lexicographicallyPrecedes(Array(b.label.utf8))
        }
    }

    private static func photoCount(_ faces: [Face]) -> Int { Set(faces.map(\.photo)).count }

    /// The face that shows a person best: the highest face_quality (which
    /// weighs size, sharpness, exposure and pose), the first in manifest
    /// order on a tie. In a dataset made before the quality record: the
    /// sharpest of those at least half as large as their largest (a sharp
    /// thumbnail of a distant face shows little).
    package static func representative(_ faces: [Face]) -> Face {
        if faces.allSatisfy({ $0.quality != nil }) {
            var best = faces[0]
            for face in faces.dropFirst() where face.quality! > best.quality! { best = face }
            return best
        }
        let largest = faces.map(\.side).max() ?? 0
        var best = faces[0]
        for face in faces.dropFirst() where face.side * 2 >= largest {
            if best.side * 2 < largest || face.sharpness > best.sharpness { best = face }
        }
        return best
    }

    /// The listing of the dataset at `dataset`, from its manifest.jsonl.
    package static func load(dataset: String) throws(FaceCropError) -> PeopleListing {
        var grouped = false
        let faces = try DatasetFace.all(dataset: dataset).map { face in
            if face.fields.keys.contains("person") { grouped = true }
            return Face(
                number: face.number, crop: face.crop, photo: face.photo, face: face.face,
                handle: Rejection(sha256: face.handle.sha256, box: face.handle.box),
                sharpness: (face.fields["sharpness"] as? NSNumber)?.doubleValue ?? 0, person: face.fields["person"] as? String,
                quality: (face.fields["face_quality"] as? NSNumber)?.doubleValue, time: face.video?.time)
        }
        return PeopleListing(faces: faces, grouped: grouped)
    }

    package var json: JSON {
        func face(_ face: Face) -> JSON {
            .object([
                ("number", .int(face.number)), ("crop", .string(face.crop)), ("photo", .string(face.photo)),
                ("face", .int(face.face)), ("handle", .string(face.handle.description)),
            ])
        }
        let people = people.map { person in
            JSON.object([
                ("person", .string(person.label)), ("named", .bool(person.named)), ("faces", .int(person.faces.count)),
                ("photos", .int(person.photos)),
                ("median_quality", person.medianQuality.map { .double($0) } ?? .null),
                ("representative", face(person.representative)),
                ("crops", .array(person.faces.map(face))),
            ])
        }
        return .object([
            ("people", .array(people)),
            ("unassigned", .object([("faces", .int(unassigned.count)), ("photos", .int(unassignedPhotos)), ("crops", .array(unassigned.map(face)))])),
        ])
    }

    /// The listing for a person to read: a table of people (with each
    /// one's median face_quality where every face has one), then the
    /// unassigned faces.
    package var text: String {
        let quality = !people.isEmpty && people.allSatisfy { $0.medianQuality != nil }
        let rows = [["person", "faces", "photos"] + (quality ? ["quality"] : []) + ["representative crop"]]
            + people.map { person in
                [person.label, String(person.faces.count), String(person.photos)]
                    + (quality ? [String(format: "%.2f", person.medianQuality!)] : [])
                    + ["#\(person.representative.number) \(person.representative.crop)"]
            }
        let numbers = quality ? 4 : 3
        let widths = (0..<numbers).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            var line = row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0)
            for column in 1..<numbers { line += "  " + String(repeating: " ", count: widths[column] - row[column].count) + row[column] }
            return line + "  " + row[numbers]
        }
        lines.append("")
        lines.append("\(people.count) \(people.count == 1 ? "person" : "people"); \(unassigned.count) unassigned face\(unassigned.count == 1 ? "" : "s") in \(unassignedPhotos) photo\(unassignedPhotos == 1 ? "" : "s")\(unassigned.isEmpty ? "" : ":")")
        for face in unassigned { lines.append("  #\(face.number) \(face.crop)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
