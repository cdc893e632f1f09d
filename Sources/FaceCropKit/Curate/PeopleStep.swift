import Foundation

/// `--people` over a whole committed dataset: after a run (not a shard's)
/// and after `merge`. Reads the state file twice, one record at a time:
/// pass 1 writes embeddings.npy and gathers the descriptors; then the
/// faces are grouped (`PeopleGroups.groups`), given ids (`PeopleGroups.ids`) and
/// corrected (`PeopleCorrections.apply`); pass 2 writes every record again
/// with its faces' rows and people.
enum PeopleStep {
    /// The settings' `people` member: which descriptor the embeddings are.
    static let settingsValue = "dlib-resnet-v1"
    /// Where the next fresh id's number is kept, in the dataset's own folder.
    static let counterName = "people.json"

    struct Result {
        var counts: RunCounts
        var people: Int
        var grouped: Int
    }

    static func run(
        store: StateStore, output: String, settingsHash: String, settings: JSON, temporaries: TemporaryFiles,
        people: PeopleFiling = PeopleFiling(), rule: PeopleRule = PeopleRule()
    ) throws(WriteFailure) -> Result {
        var grouping = try gather(store: store, output: output, temporaries: temporaries)
        grouping = try group(grouping, rule: rule)
        // The people.txt step: names, merges and corrections, before any id is written.
        let corrected = PeopleCorrections.apply(grouping, people: people.file)
        grouping = corrected.grouping
        if !people.quiet {
            for statement in corrected.gone { Terminal.stderr(PeopleCorrections.goneMessage(statement, file: people.path) + "\n") }
        }
        return try write(grouping, store: store, output: output, settingsHash: settingsHash, settings: settings, temporaries: temporaries)
    }

    /// The people file a grouping honours, where it lies (for messages), and
    /// whether its gone statements are reported.
    struct PeopleFiling: Sendable {
        var file = PeopleFile()
        var path = PeopleFile.defaultName
        var quiet = false
    }

    /// `run`, its counts in place of `counts` (whose reuse count stays).
    static func apply(
        to counts: RunCounts, store: StateStore, output: String, settingsHash: String, settings: JSON,
        temporaries: TemporaryFiles, people: PeopleFiling = PeopleFiling()
    ) throws(WriteFailure) -> RunCounts {
        let result = try run(
            store: store, output: output, settingsHash: settingsHash, settings: settings, temporaries: temporaries, people: people)
        var grouped = result.counts
        grouped.reused = counts.reused
        grouped.people = result.people
        grouped.grouped = result.grouped
        return grouped
    }

    /// Pass 1: embeddings.npy written, every face with a crop and a descriptor listed.
    static func gather(store: StateStore, output: String, temporaries: TemporaryFiles) throws(WriteFailure) -> PeopleGrouping {
        let file = try EmbeddingsFile(outputRoot: output, temporaries: temporaries)
        var faces: [PeopleGrouping.Face] = []
        var embeddings: [Float] = []
        var next = readCounter(store)
        for record in store.records where record.status == .ok {
            for face in record.faces where face.status == .ok && !face.crop.isEmpty {
                guard let embedding = face.embedding, let sha256 = record.sha256 else { continue }
                try file.append(embedding.values[...])
                embeddings += embedding.values
                // The grouping's id the run before gave (a name of the people file is not one).
                let previous = face.group
                faces.append(.init(handle: FaceHandle(sha256: sha256, box: face.box), row: faces.count, person: nil, previous: previous))
                if let old = previous, let number = PeopleGrouping.number(of: old) { next = max(next, number + 1) }
            }
        }
        try file.commit()
        return PeopleGrouping(faces: faces, embeddings: embeddings, nextNumber: next)
    }

    /// The faces grouped by `rule`, each group given its id.
    static func group(_ grouping: PeopleGrouping, rule: PeopleRule) throws(WriteFailure) -> PeopleGrouping {
        var photos: [String: Int] = [:]
        let candidates = grouping.faces.map { face in
            let photo = photos[face.handle.sha256] ?? photos.count
            photos[face.handle.sha256] = photo
            return PeopleGroups.Candidate(photo: photo, side: min(face.handle.box.width, face.handle.box.height), sharpness: 0)
        }
        let groups = try PeopleGroups.groups(grouping.embeddings, faces: candidates, rule: rule)
        var grouped = grouping
        var next = grouping.nextNumber
        let ids = PeopleGroups.ids(groups: groups, previous: grouping.faces.map(\.previous), next: &next)
        for index in grouped.faces.indices { grouped.faces[index].person = ids[index] }
        grouped.nextNumber = next
        return grouped
    }

    /// Pass 2: every record written again, its faces' rows and people in place.
    static func write(
        _ grouping: PeopleGrouping, store: StateStore, output: String, settingsHash: String, settings: JSON,
        temporaries: TemporaryFiles
    ) throws(WriteFailure) -> Result {
        let manifest = try JSONLinesWriter(outputRoot: output, name: Manifest.fileName, temporaries: temporaries)
        let state = try store.writer(settingsHash: settingsHash, settings: settings, temporaries: temporaries)
        var counts = RunCounts()
        var row = 0
        for var record in store.records {
            for position in record.faces.indices {
                record.faces[position].embeddingRow = nil
                record.faces[position].person = nil
                record.faces[position].group = nil
                let face = record.faces[position]
                guard record.status == .ok, face.status == .ok, !face.crop.isEmpty, face.embedding != nil, record.sha256 != nil
                else { continue }
                record.faces[position].embeddingRow = row
                record.faces[position].person = grouping.faces[row].person
                record.faces[position].group = grouping.faces[row].group
                row += 1
            }
            counts.add(record)
            let lines = Manifest.lines(of: record)
            try state.append(record, lines: lines)
            try manifest.append(lines)
        }
        try manifest.commit()
        try state.commit()
        try writeCounter(store, grouping.nextNumber, temporaries: temporaries)
        let people = Set(grouping.faces.compactMap(\.person)).count
        return Result(counts: counts, people: people, grouped: grouping.faces.count { $0.person != nil })
    }

    private static func readCounter(_ store: StateStore) -> Int {
        guard let data = FileManager.default.contents(atPath: store.root + "/" + counterName),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let next = object["next_person"] as? Int
        else { return 1 }
        return max(1, next)
    }

    private static func writeCounter(_ store: StateStore, _ next: Int, temporaries: TemporaryFiles) throws(WriteFailure) {
        try AtomicFile.write(
            Array((JSON.object([("next_person", .int(next))]).serialized() + "\n").utf8), to: store.root + "/" + counterName,
            temporaries: temporaries)
    }
}
