import CFaceDetect
import FaceCropCore
import FaceCropImaging
import FaceCropOutput
import FaceCropCurate

/// A face as rejections.txt names one: its photo's content (SHA-256, as in
/// the manifest) and its box in upright, full-resolution photo pixels. It
/// does not depend on where the photo lies, on `--jobs` or on shards.
public struct FaceHandle: Sendable, Hashable {
    public var sha256: String
    public var box: PixelRect

    package init(sha256: String, box: PixelRect) {
        (self.sha256, self.box) = (sha256, box)
    }
}

/// What `--people`'s grouping gives the steps after it: every face with a
/// crop and a descriptor, in manifest order, with its person (nil: none).
/// `PeopleCorrections.apply` takes and returns one of these; the ids it
/// ends with are what the manifest says.
public struct PeopleGrouping: Sendable {
    public struct Face: Sendable {
        public var handle: FaceHandle
        /// Its row in `embeddings` (and in embeddings.npy): its place in the list.
        public var row: Int
        /// `person-0007`, or nil: in no group.
        public var person: String?
        /// What the run before said (nil: new, or then in no group): the
        /// grouping's id, never a name of the people file, so ids stay put
        /// whatever the names.
        public var previous: String?
        /// The grouping's id before the people file named or corrected it
        /// (`PeopleCorrections.apply` sets it; the state keeps it for `previous`).
        public var group: String? = nil
        /// A video's crop: its track (`PeopleStep.trackKey`) and frame; nil for a photo's face.
        package var track: String? = nil
        package var frame: Int? = nil
        /// What the quality floor reads (`QualityFloor.value`;
        /// 1: a record made before the quality record).
        package var quality = 1.0

        package init(handle: FaceHandle, row: Int, person: String? = nil, previous: String? = nil,
            group: String? = nil, track: String? = nil, frame: Int? = nil, quality: Double = 1.0) {
            (self.handle, self.row, self.person, self.previous, self.group) = (handle, row, person, previous, group)
            (self.track, self.frame, self.quality) = (track, frame, quality)
        }
    }

    public var faces: [Face]
    /// Every face's descriptor, `Embedding.size` floats a face, row after row.
    public var embeddings: [Float]
    /// The next fresh id's number (`person-NNNN`): above every id ever given in this dataset.
    public var nextNumber: Int
    /// Face (its place in `faces`) -> the one name its photo's Google
    /// Takeout sidecar gives (`PeopleStep.sidecarName`): one entry a photo.
    package var sidecarNames: [Int: String] = [:]

    /// Row `row`'s descriptor.
    public func embedding(_ row: Int) -> ArraySlice<Float> {
        embeddings[(row * Embedding.size)..<((row + 1) * Embedding.size)]
    }

    public static func id(_ number: Int) -> String {
        let digits = String(number)
        return "person-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    public static func number(of id: String) -> Int? {
        guard id.hasPrefix("person-") else { return nil }
        return Int(id.dropFirst(7))
    }

    package init(faces: [Face], embeddings: [Float], nextNumber: Int, sidecarNames: [Int: String] = [:]) {
        (self.faces, self.embeddings, self.nextNumber) = (faces, embeddings, nextNumber)
        self.sidecarNames = sidecarNames
    }
}

/// The density rule that makes people of faces (calibrated on the people
/// development set, docs/people.md). Faces in one photo never link (a photo
/// does not show a person twice); a video's track is one face: its crops
/// never link to each other, nor to a track seen in the same frames. Two large faces (`minCoreSide`) link
/// within `radius`; two faces of at least `minTightSide` within
/// `tightRadius`. A face with at least `minNeighbours` links is a core;
/// linked cores make one person, and any other face joins the person of the
/// nearest large core within `borderRadius`. The rest are in no group: there
/// are no people of one.
public struct PeopleRule: Sendable, Equatable {
    public var radius: Float = 0.5
    public var minNeighbours = 1
    /// A face smaller (box side, photo pixels) or poorer (`face_quality`)
    /// than these can join a person but not make or link one: the faces
    /// that would chain strangers together. On the people dev set with its
    /// strangers at --min-face 20 (radius 0.5), cores of any size put 24 %
    /// of the strangers in a group, of 32 px 15 %, of 48 px 5 %, of 64 px
    /// none, and every person is still found (docs/people.md).
    public var minCoreSide = 64
    /// The quality floor of cores and links: a face whose measures
    /// (`QualityFloor.value`: `face_quality`'s apart from size and eyes, with
    /// edges of its own) lie below it may
    /// join a person but not make or link one. Calibrated for each detector
    /// on the people dev set with its strangers enlarged 3x and blurred,
    /// compressed or darkened, where without it 25-31 % of the strangers
    /// shared a group: 0.55 lies inside every detector's good range (the
    /// cascade 0.50-0.65, YuNet 0.50-0.55, CenterFace 0.45-0.60; docs/people.md,
    /// "The quality floor").
    public var minCoreQuality = 0.55
    /// Two faces smaller than cores but at least `minTightSide` link (and
    /// are cores) when within `tightRadius`: the same small face in two
    /// frames of one scene (basketball1/2.png: 36 px, 0.27 apart), which no
    /// stranger pair of the dev set came near (none within 0.3 at 24 px).
    public var tightRadius: Float = 0.3
    public var minTightSide = 24
    /// A face that is not a core joins one within this distance (stricter:
    /// the small faces that are not cores are the noisiest).
    public var borderRadius: Float = 0.4
    /// Neighbours looked at per face.
    public var neighbours = 16
    /// Exact search up to this many faces, an HNSW graph above.
    public var exactLimit = 5_000
    /// The graph's ef_construction (0: the shim's default, 40). The
    /// benchmark sets it to compare builds (`facecrop-bench people N 100`).
    public var buildEffort = 0
    /// Threads that search the graph (0: one per core). The answer is the
    /// same at any count (NeighboursTests).
    public var threads = 0

    public init() {}
}

package enum PeopleGroups {
    package struct Candidate {
        /// Faces of one unit never link: a photo, or a video's track.
        package var photo: Int
        package var side: Int
        package var quality: Double
        /// A video's crop: its video (its number among the videos) and the
        /// frames its track's crops span; two tracks of one video link only
        /// when their spans do not meet (one frame never shows a person twice).
        package var video: Int? = nil
        package var frames: ClosedRange<Int>? = nil

        package func mayLink(_ other: Candidate) -> Bool {
            guard photo != other.photo else { return false }
            guard let video, video == other.video, let frames, let others = other.frames else { return true }
            return !frames.overlaps(others)
        }
    }

    /// Each of `count` descriptors' `k` nearest others (`CFaceDetect_Neighbours`):
    /// rows (-1: none) and distances, `k` a row, nearest first.
    package static func neighbours(_ embeddings: [Float], count: Int, k: Int, rule: PeopleRule) throws(WriteFailure) -> (
        ids: [Int32], distances: [Float]
    ) {
        var ids = [Int32](repeating: -1, count: count * k)
        var distances = [Float](repeating: 0, count: count * k)
        var message: UnsafeMutablePointer<CChar>?
        let status = embeddings.withUnsafeBufferPointer { vectors in
            ids.withUnsafeMutableBufferPointer { ids in
                distances.withUnsafeMutableBufferPointer { distances in
                    CFaceDetect_Neighbours(
                        vectors.baseAddress, count, Int32(Embedding.size), Int32(k), rule.exactLimit, Int32(rule.buildEffort),
                        Int32(rule.threads), ids.baseAddress, distances.baseAddress, &message)
                }
            }
        }
        guard status == 0 else {
            throw WriteFailure(reason: "grouping faces: " + takeMessage(message, fallback: "nearest neighbours failed", free: CFaceDetect_Free))
        }
        return (ids, distances)
    }

    /// Each face's group (nil: none), groups numbered 0, 1, ... in the order
    /// of their first face.
    package static func groups(_ embeddings: [Float], faces: [Candidate], rule: PeopleRule) throws(WriteFailure) -> [Int?] {
        let count = faces.count
        guard count > 1 else { return Array(repeating: nil, count: count) }
        let k = min(rule.neighbours, count - 1)
        let (ids, distances) = try neighbours(embeddings, count: count, k: k, rule: rule)
        // Close faces of each face, nearest first.
        func close(_ i: Int) -> [Int] {
            var found: [Int] = []
            for j in 0..<k {
                let other = Int(ids[i * k + j])
                guard other >= 0, distances[i * k + j] <= rule.radius else { break }
                if faces[i].mayLink(faces[other]) { found.append(other) }
            }
            return found
        }
        let neighbours = (0..<count).map(close)
        func distance(_ i: Int, _ j: Int) -> Float {
            for n in 0..<k where Int(ids[i * k + n]) == j { return distances[i * k + n] }
            return .infinity
        }
        let good = faces.map { $0.quality >= rule.minCoreQuality }
        let large = faces.indices.map { good[$0] && faces[$0].side >= rule.minCoreSide }
        let small = faces.indices.map { good[$0] && faces[$0].side >= rule.minTightSide }
        // Links: two large faces within `radius`, or two faces of at least
        // `minTightSide` within `tightRadius`; neither below the quality floor.
        let links = (0..<count).map { i in
            neighbours[i].filter { j in
                large[i] && large[j] || small[i] && small[j] && distance(i, j) <= rule.tightRadius
            }
        }
        let core = (0..<count).map { links[$0].count >= rule.minNeighbours }
        let label = joined(count: count, core: core, links: links) { i in
            neighbours[i].first(where: { core[$0] && large[$0] && distance(i, $0) <= rule.borderRadius })
        }
        return numbered(label)
    }

    /// Linked cores made one group (its lowest face's number), and each
    /// other face in the group of the core `nearestCore` gives it (nil: none).
    private static func joined(count: Int, core: [Bool], links: [[Int]], nearestCore: (Int) -> Int?) -> [Int?] {
        var parent = Array(0..<count)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in 0..<count where core[i] {
            for j in links[i] where core[j] {
                let (a, b) = (root(i), root(j))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        return (0..<count).map { i in
            if core[i] { return root(i) }
            return nearestCore(i).map(root)
        }
    }

    /// Groups of two faces or more numbered 0, 1, ... in the order of their
    /// first face; a face alone is in none.
    private static func numbered(_ label: [Int?]) -> [Int?] {
        var sizes: [Int: Int] = [:]
        for case let l? in label { sizes[l, default: 0] += 1 }
        var numbers: [Int: Int] = [:]
        return label.map { l in
            guard let l, sizes[l, default: 0] >= 2 else { return nil }
            if let n = numbers[l] { return n }
            numbers[l] = numbers.count
            return numbers[l]
        }
    }

    /// A track is one face: its crops all take the group most of them are
    /// in (ties: the earliest crop's; none only when none is in one), and
    /// a group then left with faces of fewer than two units (`Candidate.photo`)
    /// is none. Groups are numbered again in the order of their first face.
    /// Without video crops the groups are as given.
    package static func sharedByTrack(_ groups: [Int?], faces: [Candidate], tracks: [String?]) -> [Int?] {
        guard tracks.contains(where: { $0 != nil }) else { return groups }
        var shared = PeopleStep.sharedByTrack(groups, tracks: tracks)
        var units: [Int: Set<Int>] = [:]
        for (group, face) in zip(shared, faces) { if let group { units[group, default: []].insert(face.photo) } }
        var numbers: [Int: Int] = [:]
        for index in shared.indices {
            guard let group = shared[index] else { continue }
            guard units[group, default: []].count >= 2 else {
                shared[index] = nil
                continue
            }
            if numbers[group] == nil { numbers[group] = numbers.count }
            shared[index] = numbers[group]
        }
        return shared
    }

    /// Each group's id: the previous id most of its faces had, taken by the
    /// group holding most faces of it (ties: the earlier group, the lower
    /// id); the rest get fresh ids from `next` in group order.
    package static func ids(groups: [Int?], previous: [String?], next: inout Int) -> [String?] {
        var overlap: [Int: [String: Int]] = [:]
        var groupCount = 0
        for (group, old) in zip(groups, previous) {
            guard let group else { continue }
            groupCount = max(groupCount, group + 1)
            if let old { overlap[group, default: [:]][old, default: 0] += 1 }
        }
        var pairs: [(group: Int, old: String, count: Int)] = []
        for (group, olds) in overlap { for (old, count) in olds { pairs.append((group, old, count)) } }
        pairs.sort { ($0.count, -$0.group, $1.old) > ($1.count, -$1.group, $0.old) }
        var named: [Int: String] = [:]
        var taken = Set<String>()
        for pair in pairs where named[pair.group] == nil && !taken.contains(pair.old) {
            named[pair.group] = pair.old
            taken.insert(pair.old)
        }
        for group in 0..<groupCount where named[group] == nil {
            named[group] = PeopleGrouping.id(next)
            next += 1
        }
        return groups.map { $0.flatMap { named[$0] } }
    }
}

/// The seam after the grouping, before any id is written: the people file
/// (names, merges, must-link, cannot-link, ignore) applied by `Naming`.
/// Each face's `person` becomes its final person (a name, an id, or nil)
/// and `group` keeps the grouping's id.
package enum PeopleCorrections {
    package static func apply(_ grouping: PeopleGrouping, people: PeopleFile) -> (grouping: PeopleGrouping, gone: [PeopleStatement]) {
        let faces = grouping.faces.map { face in
            NamingFace(
                Rejection(sha256: face.handle.sha256, box: face.handle.box), person: face.person,
                embedding: grouping.embedding(face.row))
        }
        let result = Naming.apply(people.statements, to: faces, sidecar: grouping.sidecarNames)
        var corrected = grouping
        let persons = PeopleStep.namedByTrack(
            result.persons, groups: grouping.faces.map(\.person), tracks: grouping.faces.map(\.track))
        for index in corrected.faces.indices {
            corrected.faces[index].group = corrected.faces[index].person
            corrected.faces[index].person = persons[index]
        }
        return (corrected, result.gone)
    }

    /// `--check`: the faces whose person the people file would change now,
    /// as lines (`person: <crop>: person-0001 -> alice`). The grouping's ids
    /// are in the state (`group`), so this needs no new grouping; photos
    /// that changed are reported by the plan, and their run groups again.
    package static func differences(_ records: StateRecords, people: PeopleFile) -> [String] {
        var faces: [NamingFace] = []
        var shown: [(crop: String, person: String?)] = []
        var tracks: [String?] = []
        var sidecar: [Int: String] = [:]
        for record in records {
            guard let sha256 = record.sha256 else { continue }
            sidecar.merge(PeopleStep.givenNames(of: record, from: faces.count)) { first, _ in first }
            for face in record.faces where PeopleStep.takesPart(face, of: record) {
                faces.append(
                    NamingFace(
                        Rejection(sha256: sha256, box: face.box), person: face.group, embedding: face.embedding?.values[...] ?? []))
                shown.append((face.crop, face.person))
                tracks.append(PeopleStep.trackKey(face, of: record))
            }
        }
        let persons = PeopleStep.namedByTrack(
            Naming.apply(people.statements, to: faces, sidecar: sidecar).persons, groups: faces.map(\.person), tracks: tracks)
        return zip(shown, persons).compactMap { old, new in
            old.person == new ? nil : "person: \(old.crop): \(old.person ?? "none") -> \(new ?? "none")"
        }
    }

    /// The line stderr gets for a statement whose face is gone: once a run, and the statement stays.
    package static func goneMessage(_ statement: PeopleStatement, file: String) -> String {
        "facecrop: '\(file)' line \(statement.line): no face of the dataset matches '\(statement.text)' (kept in the file: its photo may come back)"
    }
}
