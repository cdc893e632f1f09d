import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropOutput
import FaceCropCurate

/// `--people` over a whole committed dataset: after a run (not a shard's)
/// and after `merge`. Reads the state file twice, one record at a time:
/// pass 1 writes embeddings.npy and gathers the descriptors; then the
/// faces are grouped (`PeopleGroups.groups`), given ids (`PeopleGroups.ids`)
/// and corrected (`PeopleCorrections.apply`); pass 2 writes every record
/// again with its faces' rows and people (and, with `--keep-person` and
/// `--split-by person`, their crops removed or moved).
package enum PeopleStep {
    /// The settings' `people` member: which descriptor the embeddings are,
    /// on which runtime (`Embedder.settingsValue`: a dataset described by
    /// dlib's own network is described again), and, with the measuring switch
    /// `FACECROP_CHIP_LANDMARKS=detector`, that their chips came from the
    /// detector's points, so a dataset made either way is not reused for the other.
    package static var settingsValue: String {
        Embedder.chipFromDetector ? Embedder.settingsValue + " detector-chip" : Embedder.settingsValue
    }
    /// Where the next fresh id's number is kept, in the dataset's own folder.
    package static let counterName = "people.json"

    package struct Curation {
        package var split: SplitSpec?
        package var splitByPerson = false
        package var keep: Set<String> = []

        package init(split: SplitSpec? = nil, splitByPerson: Bool = false, keep: Set<String> = []) {
            (self.split, self.splitByPerson, self.keep) = (split, splitByPerson, keep)
        }
    }

    package struct Result {
        package var counts: RunCounts
        package var people: Int
        package var grouped: Int
    }

    package static func run(
        store: StateStore, output: String, settingsHash: String, settings: JSON, temporaries: TemporaryFiles,
        previous: PreviousPeople, curation: Curation, people: PeopleFiling = PeopleFiling(), rule: PeopleRule = PeopleRule()
    ) throws(WriteFailure) -> Result {
        var grouping = try gather(store: store, output: output, previous: previous, temporaries: temporaries)
        grouping = try group(grouping, rule: rule)
        // The people.txt step: names, merges and corrections, before any id is written.
        let corrected = PeopleCorrections.apply(grouping, people: people.file)
        grouping = corrected.grouping
        if !people.quiet {
            for statement in corrected.gone { Terminal.stderr(PeopleCorrections.goneMessage(statement, file: people.path) + "\n") }
        }
        var curation = curation
        curation.keep = keptLabels(curation.keep, in: grouping, quiet: people.quiet)
        return try write(
            grouping, store: store, output: output, settingsHash: settingsHash, settings: settings, curation: curation,
            temporaries: temporaries)
    }

    /// `--keep-person`'s people as the manifest labels them: a name in any
    /// case or an id a name replaced is that person. One that is no one is
    /// said on stderr, with the nearest people.
    private static func keptLabels(_ keep: Set<String>, in grouping: PeopleGrouping, quiet: Bool) -> Set<String> {
        guard !keep.isEmpty else { return keep }
        var people = PersonLookup()
        for face in grouping.faces { people.add(label: face.person, id: face.group) }
        var labels: Set<String> = []
        for typed in keep.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            if let label = people.label(for: typed) {
                labels.insert(label)
            } else if !quiet {
                let near = people.suggestion(for: typed)
                Terminal.stderr("facecrop: --keep-person '\(typed)' is no one in this dataset\(near.isEmpty ? ";" : near) 'facecrop people' lists its people\n")
            }
        }
        return labels
    }

    /// The people file a grouping honours, where it lies (for messages), and
    /// whether its gone statements are reported.
    package struct PeopleFiling: Sendable {
        package var file = PeopleFile()
        package var path = PeopleFile.defaultName
        package var quiet = false

        package init(file: PeopleFile = PeopleFile(), path: String = PeopleFile.defaultName, quiet: Bool = false) {
            (self.file, self.path, self.quiet) = (file, path, quiet)
        }
    }

    /// `run`, its counts in place of `counts` (whose reuse count stays).
    package static func apply(
        to counts: RunCounts, store: StateStore, output: String, settingsHash: String, settings: JSON,
        temporaries: TemporaryFiles, previous: PreviousPeople, curation: Curation, people: PeopleFiling = PeopleFiling()
    ) throws(WriteFailure) -> RunCounts {
        let result = try run(
            store: store, output: output, settingsHash: settingsHash, settings: settings, temporaries: temporaries,
            previous: previous, curation: curation, people: people)
        var grouped = result.counts
        grouped.reused = counts.reused
        grouped.people = result.people
        grouped.grouped = result.grouped
        return grouped
    }

    /// The faces that take part: those with a descriptor that have a crop or
    /// lost it to `--keep-person` (so that leaving people out does not
    /// change the groups).
    package static func takesPart(_ face: FaceRecord, of record: PhotoRecord) -> Bool {
        record.status == .ok && record.sha256 != nil && face.embedding != nil
            && (face.status == .ok && !face.crop.isEmpty || face.status == .otherPerson)
    }

    /// The name a photo's Google Takeout sidecar gives its one face (nil:
    /// none): only when the sidecar names one person, the photo has one face
    /// at all (Takeout gives no boxes, so with two faces, even one too small
    /// to take part, the name may be the other's) and it takes part, and the
    /// name can name a person (`PeopleName.problem`). A video's one
    /// face is one track: the name is given to its first crop, and so to
    /// the track (`sharedByTrack`).
    package static func sidecarName(of record: PhotoRecord) -> String? {
        guard !record.faces.contains(where: \.tagged), record.names.count == 1, let name = record.names.first,
            let first = record.faces.first,
            record.faces.count == 1 || first.video != nil && record.faces.allSatisfy({ $0.video?.track == first.video?.track }),
            takesPart(first, of: record), PeopleName.problem(name) == nil
        else { return nil }
        return name
    }

    /// A video crop's track, for grouping: the video's content and the
    /// track's number (so that two copies of one video, like two copies of
    /// a photo, never link); nil for a photo's face.
    package static func trackKey(_ face: FaceRecord, of record: PhotoRecord) -> String? {
        guard let video = face.video, let sha256 = record.sha256 else { return nil }
        return sha256 + " " + String(video.track)
    }

    /// A track is one face: its crops all take the value most of them have
    /// (nil only when none has one; ties: the earliest crop's). `tracks`
    /// gives each face's track (nil: a photo's face, left as it is).
    package static func sharedByTrack<Value: Hashable>(_ values: [Value?], tracks: [String?]) -> [Value?] {
        var members: [String: [Int]] = [:]
        for (index, track) in tracks.enumerated() { if let track { members[track, default: []].append(index) } }
        guard !members.isEmpty else { return values }
        var shared = values
        for crops in members.values {
            var counts: [Value: (count: Int, first: Int)] = [:]
            for index in crops {
                guard let value = values[index] else { continue }
                counts[value, default: (0, index)].count += 1
            }
            let best = counts.max { a, b in
                a.value.count != b.value.count ? a.value.count < b.value.count : a.value.first > b.value.first
            }
            for index in crops { shared[index] = best?.key }
        }
        return shared
    }

    /// The people file's persons shared by each track: a track takes what
    /// the file made of any of its crops (a person other than its group's:
    /// the earliest such crop's, nil included), else the person most of its
    /// crops have (`sharedByTrack`). So `alice: F` or `ignore: F` on one
    /// crop holds for its whole track.
    package static func namedByTrack(_ persons: [String?], groups: [String?], tracks: [String?]) -> [String?] {
        var named = sharedByTrack(persons, tracks: tracks)
        var corrected: [String: String?] = [:]
        for index in persons.indices {
            guard let track = tracks[index], !corrected.keys.contains(track), persons[index] != groups[index] else { continue }
            corrected[track] = .some(persons[index])
        }
        guard !corrected.isEmpty else { return named }
        for index in named.indices {
            if let track = tracks[index], let person = corrected[track] { named[index] = person }
        }
        return named
    }

    /// The names a photo gives its faces that take part, by their place in
    /// the grouping's list counted from `base`: each tagged face its tag's
    /// name (XMP regions have boxes); without tags, Takeout's one name
    /// (`sidecarName`). Names that cannot name a person are left out.
    package static func givenNames(of record: PhotoRecord, from base: Int) -> [Int: String] {
        guard record.faces.contains(where: \.tagged) else {
            return sidecarName(of: record).map { [base: $0] } ?? [:]
        }
        var names: [Int: String] = [:]
        for (offset, face) in record.faces.filter({ takesPart($0, of: record) }).enumerated() {
            if let name = face.tagName, PeopleName.problem(name) == nil { names[base + offset] = name }
        }
        return names
    }

    /// Pass 1: embeddings.npy written, every face taking part listed.
    package static func gather(
        store: StateStore, output: String, previous: PreviousPeople, temporaries: TemporaryFiles
    ) throws(WriteFailure) -> PeopleGrouping {
        let file = try EmbeddingsFile(outputRoot: output, temporaries: temporaries)
        var faces: [PeopleGrouping.Face] = []
        var embeddings: [Float] = []
        var sidecarNames: [Int: String] = [:]
        for record in store.records {
            sidecarNames.merge(givenNames(of: record, from: faces.count)) { first, _ in first }
            for face in record.faces where takesPart(face, of: record) {
                let handle = FaceHandle(sha256: record.sha256!, box: face.box)
                try file.append(face.embedding!.values[...])
                embeddings += face.embedding!.values
                faces.append(
                    .init(
                        handle: handle, row: faces.count, person: nil, previous: previous.person(of: handle),
                        track: trackKey(face, of: record), frame: face.video?.frame, quality: face.quality.map(QualityFloor.value) ?? 1))
            }
        }
        try file.commit()
        var grouping = PeopleGrouping(faces: faces, embeddings: embeddings, nextNumber: previous.nextNumber)
        grouping.sidecarNames = sidecarNames
        return grouping
    }

    /// The faces grouped by `rule`, each group given its id.
    package static func group(_ grouping: PeopleGrouping, rule: PeopleRule) throws(WriteFailure) -> PeopleGrouping {
        // Units that never link within: a photo (by content), a video's track.
        var photos: [String: Int] = [:]
        var videos: [String: Int] = [:]
        var spans: [String: ClosedRange<Int>] = [:]
        for face in grouping.faces {
            guard let track = face.track, let frame = face.frame else { continue }
            spans[track] = spans[track].map { min($0.lowerBound, frame)...max($0.upperBound, frame) } ?? frame...frame
        }
        let candidates = grouping.faces.map { face in
            let unit = face.track ?? face.handle.sha256
            let photo = photos[unit] ?? photos.count
            photos[unit] = photo
            var candidate = PeopleGroups.Candidate(photo: photo, side: min(face.handle.box.width, face.handle.box.height), quality: face.quality)
            if let track = face.track {
                let video = videos[face.handle.sha256] ?? videos.count
                videos[face.handle.sha256] = video
                candidate.video = video
                candidate.frames = spans[track]
            }
            return candidate
        }
        let groups = PeopleGroups.sharedByTrack(
            try PeopleGroups.groups(grouping.embeddings, faces: candidates, rule: rule), faces: candidates,
            tracks: grouping.faces.map(\.track))
        var grouped = grouping
        var next = grouping.nextNumber
        let ids = PeopleGroups.ids(groups: groups, previous: grouping.faces.map(\.previous), next: &next)
        for index in grouped.faces.indices { grouped.faces[index].person = ids[index] }
        grouped.nextNumber = next
        return grouped
    }

    /// Pass 2: every record written again, its faces' rows and people in place.
    package static func write(
        _ grouping: PeopleGrouping, store: StateStore, output: String, settingsHash: String, settings: JSON,
        curation: Curation, temporaries: TemporaryFiles
    ) throws(WriteFailure) -> Result {
        var row = 0
        let counts = try store.rewrite(output: output, settingsHash: settingsHash, settings: settings, temporaries: temporaries) {
            _, record throws(WriteFailure) in
            for position in record.faces.indices {
                var face = record.faces[position]
                face.embeddingRow = nil
                face.person = nil
                face.group = nil
                if takesPart(face, of: record) {
                    face.embeddingRow = row
                    face.person = grouping.faces[row].person
                    face.group = grouping.faces[row].group
                    row += 1
                    try curate(&face, of: record, curation: curation, root: output)
                }
                record.faces[position] = face
            }
        }
        try writeCounter(store, grouping.nextNumber, temporaries: temporaries)
        let people = Set(grouping.faces.compactMap(\.person)).count
        return Result(counts: counts, people: people, grouped: grouping.faces.count { $0.person != nil })
    }

    /// `--keep-person`: a face of anyone else loses its crop. `--split-by
    /// person`: a person's crop moves to that person's split (chosen from
    /// the id as a photo's is from its content); a face of no one stays in
    /// its photo's.
    private static func curate(_ face: inout FaceRecord, of record: PhotoRecord, curation: Curation, root: String)
        throws(WriteFailure)
    {
        guard face.status == .ok else { return }
        if !curation.keep.isEmpty, !(face.person.map(curation.keep.contains) ?? false) {
            unlink(root + "/" + face.crop)
            face.crop = ""
            face.status = .otherPerson
            face.split = nil
            return
        }
        guard curation.splitByPerson, let spec = curation.split else { return }
        let target = face.person.map { spec.split(forSHA256: personHash($0)) } ?? record.split
        let current = face.split ?? record.split
        if target != current {
            let moved = DedupStep.moved(face.crop, from: current, to: target)
            if moved != face.crop { try DedupStep.rename(face.crop, to: moved, root: root) }
            face.crop = moved
        }
        face.split = target == record.split ? nil : target
    }

    /// The SHA-256 (hex) of a person's id, which picks their split.
    package static func personHash(_ id: String) -> String {
        Array(("person " + id).utf8).withUnsafeBytes { Vips.sha256($0) }
    }

    package static func readCounter(_ store: StateStore) -> Int {
        guard let object = JSONReading.object(atPath: store.root + "/" + counterName), let next = object["next_person"] as? Int
        else { return 1 }
        return max(1, next)
    }

    private static func writeCounter(_ store: StateStore, _ next: Int, temporaries: TemporaryFiles) throws(WriteFailure) {
        try AtomicFile.write(
            Array((JSON.object([("next_person", .int(next))]).serialized() + "\n").utf8), to: store.root + "/" + counterName,
            temporaries: temporaries)
    }
}

/// Who each face was in the dataset before this run: read from its state
/// file before the run's own replaces it, so that a face keeps its person
/// even when its photo was processed again (changed time, regrouping) or
/// moved. Holds 8 bytes of the photo's hash, the box and the id per face.
package struct PreviousPeople: Sendable {
    private struct Key: Hashable {
        var photo: UInt64
        var box: PixelRect
    }

    private var people: [Key: String] = [:]
    /// Above every id the dataset gave.
    package private(set) var nextNumber = 1

    package init() {}

    /// The people of the state file in `store`'s folder (none if it has none).
    package init(store: StateStore) {
        nextNumber = PeopleStep.readCounter(store)
        guard access(store.statePath, R_OK) == 0 else { return }
        for record in store.records {
            guard let sha256 = record.sha256 else { continue }
            for face in record.faces {
                // The grouping's id, not a name the people file gave: ids stay put whatever the names.
                guard let id = face.group else { continue }
                people[Key(photo: Self.photoKey(sha256), box: face.box)] = id
                if let number = PeopleGrouping.number(of: id) { nextNumber = max(nextNumber, number + 1) }
            }
        }
    }

    private static func photoKey(_ sha256: String) -> UInt64 { UInt64(sha256.prefix(16), radix: 16) ?? 0 }

    package func person(of handle: FaceHandle) -> String? {
        people[Key(photo: Self.photoKey(handle.sha256), box: handle.box)]
    }
}
