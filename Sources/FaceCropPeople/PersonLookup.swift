import FaceCropCore
import FaceCropOutput

/// A person given on the command line (`pick --person`, `--keep-person`),
/// found among a dataset's people: by the label the manifest gives them (a
/// name, or an id such as `person-0009` for a group no one named), by a name
/// in any case (`steve wozniak`), or by the grouping's id that a name
/// replaced (the state keeps each face's id beside its label). One person
/// answers to all of these; anything else is no one, and the nearest labels
/// and ids are offered.
package struct PersonLookup: Sendable {
    /// Every label, in the order the faces first give them.
    package private(set) var labels: [String] = []
    /// Each grouping id, with the labels its faces have now and how many.
    private var byID: [String: [String: Int]] = [:]
    private var ids: [String] = []

    package init() {}

    /// The people of the dataset at `folder`, from its state file (empty
    /// when it has none: a dataset made without `--people`).
    package init(dataset folder: String) {
        for record in StateStore(output: folder, shard: nil).records { add(record.faces) }
    }

    /// Takes in the faces of one photo: each face's label and grouping id.
    package mutating func add(_ faces: [FaceRecord]) {
        for face in faces { add(label: face.person, id: face.group) }
    }

    /// Takes in one face: its label (nil: no one) and its grouping's id.
    package mutating func add(label: String?, id: String?) {
        guard let label else { return }
        if !seen.contains(label) {
            seen.insert(label)
            labels.append(label)
        }
        guard let id, id != label else { return }
        if byID[id] == nil { ids.append(id) }
        byID[id, default: [:]][label, default: 0] += 1
    }

    private var seen: Set<String> = []

    /// The label `typed` names: itself, the one label equal to it but for
    /// case, or the label most of a grouping id's faces have (on a tie the
    /// first in byte order). Nil: no one.
    package func label(for typed: String) -> String? {
        if seen.contains(typed) { return typed }
        let folded = typed.lowercased()
        let alike = labels.filter { $0.lowercased() == folded }
        if alike.count == 1 { return alike[0] }
        let id = byID[typed] ?? ids.first { $0.lowercased() == folded }.flatMap { byID[$0] }
        guard let counts = id else { return nil }
        return counts.max { a, b in
            a.value != b.value ? a.value < b.value : Array(b.key.utf8).lexicographicallyPrecedes(Array(a.key.utf8))
        }?.key
    }

    /// `; did you mean 'a' or 'b'?`: the labels and ids nearest to `typed`.
    package func suggestion(for typed: String) -> String {
        Suggestion.clause(for: typed, among: labels + ids)
    }
}
