/// One face with a crop as grouping left it: its handle, the group it was
/// put in (nil: unassigned) and its embedding.
import FaceCropCurate

package struct NamingFace: Sendable, Equatable {
    package var handle: Rejection
    package var person: String?
    /// A slice of the grouping's one array of descriptors: no copy per face
    /// (a million faces' descriptors are 512 MB).
    package var embedding: ArraySlice<Float>

    package init(_ handle: Rejection, person: String?, embedding: ArraySlice<Float> = []) {
        (self.handle, self.person, self.embedding) = (handle, person, embedding)
    }

    package init(_ handle: Rejection, person: String?, embedding: [Float]) {
        self.init(handle, person: person, embedding: embedding[...])
    }
}

/// What the people file made of the grouping.
package struct NamingResult: Sendable, Equatable {
    /// Per face, in the order given: a name, a group's id, or nil (no person).
    package var persons: [String?]
    /// Statements that name no face of the dataset, in file order: they stay
    /// in the file (the photo may come back) and are reported.
    package var gone: [PeopleStatement]
}

/// The people file applied to a grouping: pure, deterministic (the same
/// faces and statements give the same persons in any order of statements
/// about different faces), and run after every grouping, so a statement
/// holds on every regeneration.
///
/// - A face's own statements come first, in file order, the later winning:
///   `NAME = F` and `NAME: F` make F NAME, `ignore = F` and `ignore: F` make
///   it no one, `not NAME: F` takes it out of NAME (and keeps it out).
/// - A group takes the name of its faces named with `=` (`ignore =` counts
///   as a name meaning no one). Two groups named alike become one person.
///   A group named two ways is split: each of its other faces goes to the
///   named face nearest by embedding (Euclidean, as dlib's descriptor is
///   trained), ties to the name first in byte order, then the face first in
///   manifest order. A group named no way keeps its id.
/// - A face that would land in a person it is `not` gets no person, unless
///   its own statement puts it somewhere.
/// - `sidecar` (face index -> the one name its photo's Google Takeout sidecar
///   gives) ranks below every statement: a group none of whose faces a
///   statement matches takes the name most of its photos give (ties: byte
///   order), as if that name were `NAME = F` for those faces; a group the
///   file names, ignores or corrects anywhere keeps what the file says.
package enum Naming {
    package enum Label: Hashable, Comparable {
        case name(String)
        case ignore

        package var person: String? {
            if case .name(let name) = self { return name }
            return nil
        }

        /// Byte order of the names (not the locale's), `ignore` last.
        package static func < (a: Label, b: Label) -> Bool {
            switch (a, b) {
            case (.name(let x), .name(let y)): Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            case (.name, .ignore): true
            default: false
            }
        }
    }

    /// What a face's own statements left it.
    package struct FaceState {
        package var assigned: Label?
        /// Whether its label (by `=`) names its group too.
        package var anchor = false
        package var forbidden: Set<String> = []
    }

    package static func apply(_ statements: [PeopleStatement], to faces: [NamingFace], sidecar: [Int: String] = [:]) -> NamingResult {
        var byPhoto: [String: [Int]] = [:]
        for (index, face) in faces.enumerated() { byPhoto[face.handle.sha256, default: []].append(index) }
        var states: [Int: FaceState] = [:]
        var gone: [PeopleStatement] = []
        for statement in statements {
            // The same photo may lie in the library twice: a statement holds for each copy.
            let matched = (byPhoto[statement.face.sha256] ?? []).filter {
                statement.face.matches(sha256: faces[$0].handle.sha256, box: faces[$0].handle.box)
            }
            if matched.isEmpty { gone.append(statement) }
            for index in matched { apply(statement.kind, to: &states[index, default: FaceState()]) }
        }
        if !sidecar.isEmpty { applySidecar(sidecar, to: &states, faces) }

        // Each group's anchors: (label, face), in manifest order.
        var anchors: [String: [(label: Label, face: Int)]] = [:]
        for index in faces.indices {
            guard let state = states[index], state.anchor, let label = state.assigned, let group = faces[index].person
            else { continue }
            anchors[group, default: []].append((label, index))
        }

        var persons: [String?] = []
        persons.reserveCapacity(faces.count)
        for (index, face) in faces.enumerated() {
            let state = states[index] ?? FaceState()
            if let own = state.assigned {
                persons.append(own.person)
                continue
            }
            guard let group = face.person else {
                persons.append(nil)
                continue
            }
            let label: Label
            if let named = anchors[group], let first = named.first {
                label = named.allSatisfy({ $0.label == first.label }) ? first.label : nearest(face, among: named, faces)
            } else {
                label = .name(group)
            }
            if let person = label.person, !state.forbidden.contains(person) {
                persons.append(person)
            } else {
                persons.append(nil)
            }
        }
        return NamingResult(persons: persons, gone: gone)
    }

    /// Takeout's names as implicit `NAME = F`, only in groups no statement touches.
    private static func applySidecar(_ sidecar: [Int: String], to states: inout [Int: FaceState], _ faces: [NamingFace]) {
        let touched = Set(states.keys.compactMap { faces[$0].person })
        // group -> name -> the photos (content) that give it
        var votes: [String: [String: Set<String>]] = [:]
        for (index, name) in sidecar {
            guard let group = faces[index].person, !touched.contains(group) else { continue }
            votes[group, default: [:]][name, default: []].insert(faces[index].handle.sha256)
        }
        var winners: [String: String] = [:]
        for (group, names) in votes {
            winners[group] = names.max { a, b in
                a.value.count != b.value.count ? a.value.count < b.value.count : Label.name(b.key) < Label.name(a.key)
            }!.key
        }
        for (index, name) in sidecar {
            guard let group = faces[index].person, winners[group] == name else { continue }
            states[index] = FaceState(assigned: .name(name), anchor: true)
        }
    }

    private static func apply(_ kind: PeopleStatement.Kind, to state: inout FaceState) {
        switch kind {
        case .nameGroup(let name):
            state = FaceState(assigned: .name(name), anchor: true, forbidden: state.forbidden.subtracting([name]))
        case .nameFace(let name):
            state = FaceState(assigned: .name(name), anchor: false, forbidden: state.forbidden.subtracting([name]))
        case .ignoreGroup:
            state.assigned = .ignore
            state.anchor = true
        case .ignoreFace:
            state.assigned = .ignore
            state.anchor = false
        case .notPerson(let name):
            state.forbidden.insert(name)
            if state.assigned == .name(name) {
                state.assigned = nil
                state.anchor = false
            }
        }
    }

    /// The label of the anchor nearest `face`; ties to the smaller label,
    /// then the earlier face.
    private static func nearest(_ face: NamingFace, among anchors: [(label: Label, face: Int)], _ faces: [NamingFace])
        -> Label
    {
        var best: (distance: Double, label: Label, face: Int)?
        for anchor in anchors {
            let distance = squaredDistance(face.embedding, faces[anchor.face].embedding)
            if let current = best {
                if distance > current.distance { continue }
                if distance == current.distance {
                    if current.label < anchor.label { continue }
                    if current.label == anchor.label, current.face < anchor.face { continue }
                }
            }
            best = (distance, anchor.label, anchor.face)
        }
        return best!.label
    }

    /// Squared Euclidean distance; infinite when either embedding is
    /// missing or they differ in length (every anchor then ties).
    package static func squaredDistance(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        guard !a.isEmpty, a.count == b.count else { return .infinity }
        var sum = 0.0
        for (x, y) in zip(a, b) {
            let difference = Double(x) - Double(y)
            sum += difference * difference
        }
        return sum
    }
}
