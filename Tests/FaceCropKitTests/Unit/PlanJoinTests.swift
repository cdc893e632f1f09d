import Foundation
import Testing
import FaceCropCore
import FaceCropInputs
import FaceCropOutput
import FaceCropCurate
import FaceCropKit


/// The plan as a merge-join of the walk and the last run's state: every
/// decision the old all-in-memory plan made, from two ordered streams.
struct PlanJoinTests {
    func photo(_ label: String, _ input: Int, _ source: String, modified: Int = 1) -> WalkItem {
        var photo = Photo(inputIndex: input, source: source, path: "/nowhere/" + source, outputPrefix: PhotoFinder.join(label, source), label: label)
        photo.size = 10
        photo.modified = modified
        return .photo(photo)
    }

    func record(_ label: String, _ input: Int, _ source: String, status: PhotoStatus = .ok, crops: [String]? = nil) -> PhotoRecord {
        let names = crops ?? [PhotoFinder.join(label, source) + ".face0.jpg"]
        let faces = names.enumerated().map { index, crop in
            FaceRecord(
                index: index, box: PixelRect(x: 0, y: 0, width: 10, height: 10), score: 1, crop: crop, transform: .identity)
        }
        var record = PhotoRecord(
            label: label, input: input, source: source, size: 10, modified: 1, sha256: "00", status: status,
            width: 100, height: 100, faces: status == .ok ? faces : [])
        if status == .ok { record.photoHash = PerceptualHash(bits: 0xff) }
        return record
    }

    /// Runs the join; each step as a short text: "kept a", "new b", "changed b", "<reason> b", "gone c", "gone? c".
    func plan(
        _ walk: [WalkItem], labels: [String], state: [PhotoRecord], journal: [PhotoRecord] = [],
        rules: PlanJoin.Rules = PlanJoin.Rules()
    ) -> [String] {
        let stateLabels = state.reduce(into: [String]()) { if $0.last != $1.label { $0.append($1.label) } }
        var join = PlanJoin(
            walk: AnyIterator(walk.makeIterator()), labels: labels, stateLabels: stateLabels,
            records: { label in AnyIterator(state.filter { $0.label == label }.makeIterator()) },
            journal: Dictionary(uniqueKeysWithValues: journal.map { ($0.key, $0) }), rules: rules)
        var steps: [String] = []
        while let step = join.next() {
            switch step {
            case .gone(let record, let reported, _): steps.append((reported ? "gone " : "gone? ") + PhotoFinder.join(record.label, record.source))
            case .work(let work):
                switch work.item {
                case .kept(let record): steps.append("kept " + PhotoFinder.join(record.label, record.source))
                case .problem(let problem): steps.append("problem " + problem.source)
                case .photo(let photo, let previous):
                    let what = work.reason ?? (previous == nil ? "new" : "changed")
                    steps.append(what + " " + photo.outputPrefix)
                }
            }
        }
        return steps
    }

    @Test func keptChangedGoneAndNewInOneInput() {
        let walk = [photo("", 0, "a.jpg"), photo("", 0, "b.jpg", modified: 2), photo("", 0, "d.jpg")]
        let state = [record("", 0, "a.jpg"), record("", 0, "b.jpg"), record("", 0, "c.jpg"), record("", 0, "e.jpg")]
        #expect(plan(walk, labels: [""], state: state) == ["kept a.jpg", "changed b.jpg", "gone c.jpg", "new d.jpg", "gone e.jpg"])
    }

    @Test func inputsInAnotherOrderAndALabelNoLongerGiven() {
        let walk = [photo("y", 0, "1.jpg"), photo("x", 1, "2.jpg")]
        let state = [record("x", 0, "1.jpg"), record("y", 1, "1.jpg"), record("z", 2, "1.jpg")]
        #expect(plan(walk, labels: ["y", "x"], state: state) == ["kept y/1.jpg", "gone x/1.jpg", "new x/2.jpg", "gone z/1.jpg"])
    }

    @Test func anInputWithNothingFoundHasAllItsRecordsGone() {
        let walk = [photo("b", 1, "1.jpg")]
        let state = [record("a", 0, "1.jpg"), record("a", 0, "2.jpg"), record("b", 1, "1.jpg")]
        #expect(plan(walk, labels: ["a", "b"], state: state) == ["gone a/1.jpg", "gone a/2.jpg", "kept b/1.jpg"])
    }

    @Test func failuresMissingCropsOverwriteAndProblems() {
        let walk: [WalkItem] = [
            photo("", 0, "a.jpg"), photo("", 0, "b.jpg"),
            .problem(FindProblem(inputIndex: 0, label: "", source: "c.jpg", reason: "cannot read")), photo("", 0, "d.jpg"),
        ]
        let state = [record("", 0, "a.jpg", status: .error), record("", 0, "b.jpg"), record("", 0, "c.jpg"), record("", 0, "d.jpg")]
        var rules = PlanJoin.Rules()
        rules.cropExists = { $0 != "b.jpg.face0.jpg" }
        #expect(plan(walk, labels: [""], state: state, rules: rules) == [
            "failed before a.jpg", "crop missing b.jpg", "problem c.jpg", "gone c.jpg", "kept d.jpg",
        ])
        rules.retryErrors = false  // --check: a failure with a hash is up to date
        #expect(plan(walk, labels: [""], state: state, rules: rules).first == "kept a.jpg")
        rules.overwrite = true
        #expect(plan(walk, labels: [""], state: state, rules: rules) == [
            "overwrite a.jpg", "overwrite b.jpg", "problem c.jpg", "gone c.jpg", "overwrite d.jpg",
        ])
    }

    @Test func otherSettingsKeepNothingAndReportNoneGone() {
        var rules = PlanJoin.Rules()
        rules.stateCurrent = false
        let state = [record("", 0, "a.jpg"), record("", 0, "b.jpg")]
        #expect(plan([photo("", 0, "a.jpg")], labels: [""], state: state, rules: rules) == ["new a.jpg", "gone? b.jpg"])
    }

    @Test func theJournalOfACrashedRunWinsOverTheState() {
        var newer = record("", 0, "b.jpg", crops: ["b.jpg.face0.jpg", "b.jpg.face1.jpg"])
        newer.modified = 2
        let gone = record("", 0, "z.jpg")
        let walk = [photo("", 0, "a.jpg"), photo("", 0, "b.jpg", modified: 2)]
        var rules = PlanJoin.Rules()
        rules.stateCurrent = false  // even a state made with other settings
        #expect(plan(walk, labels: [""], state: [record("", 0, "b.jpg")], journal: [newer, gone], rules: rules) == [
            "new a.jpg", "kept b.jpg", "gone z.jpg",
        ])
    }

    @Test func goneNamesAreListedInByteOrderAcrossLabels() {
        let list = GoneList()
        // As the join finds them: one label at a time, then the journal's.
        for (label, source) in [("b", "1.jpg"), ("b", "2.jpg"), ("", "b/0.jpg"), ("", "c.jpg"), ("a-2", "x.jpg"), ("a", "x.jpg")] {
            list.append(record(label, 0, source))
        }
        var names: [String] = []
        list.forEach { names.append($0) }
        #expect(names == ["a-2/x.jpg", "a/x.jpg", "b/0.jpg", "b/1.jpg", "b/2.jpg", "c.jpg"])
    }

    /// The state file read beside the walk: its header, where each label's
    /// records start (labels with quotes and commas too), each label's records.
    @Test func theStateIndexFindsEachLabelsRecords() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("state.jsonl").path
        let odd = #"x","index":1 \"#
        let records = [
            record("", 0, "0.jpg"), record("a", 0, "1.jpg"), record("a", 0, "2.jpg"), record(odd, 1, "1.jpg"), record("c", 2, "1.jpg"),
        ]
        let lines = [#"{"settings_hash":"abc","version":"0"}"#] + records.map { $0.stateJSON.serialized() } + ["{\"input\":\"c\",\"ind"]
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let index = StateIndex(path: path)
        #expect(index.settingsHash == "abc")
        #expect(index.segments.map(\.label) == ["", "a", odd, "c"])
        let names = { (label: String) in index.records(of: label, path: path).map { PhotoFinder.join($0.label, $0.source) } }
        #expect(names("") == ["0.jpg"])
        #expect(names("a") == ["a/1.jpg", "a/2.jpg"])
        #expect(names(odd) == [odd + "/1.jpg"])
        #expect(names("c") == ["c/1.jpg"])
        #expect(Array(index.records(of: "none", path: path)).isEmpty)
    }

    /// main's rules on top of the join: a record the rejections file now
    /// judges otherwise, one made before transforms or photo hashes were
    /// recorded, and with --dedup after a change, one with a duplicate face,
    /// are processed again.
    @Test func rejectionsMissingTransformsAndRegroupedDuplicates() {
        let walk = [
            photo("", 0, "a.jpg"), photo("", 0, "b.jpg"), photo("", 0, "c.jpg"), photo("", 0, "d.jpg"),
            photo("", 0, "e.jpg"),
        ]
        var old = record("", 0, "b.jpg")
        old.faces[0].transform = nil
        var unhashed = record("", 0, "e.jpg")
        unhashed.photoHash = nil
        var duplicate = record("", 0, "c.jpg", crops: ["c.jpg.face0.jpg", ""])
        duplicate.faces[1].status = .duplicate
        var rejectedBefore = record("", 0, "d.jpg")
        rejectedBefore.faces[0].status = .rejected
        let state = [record("", 0, "a.jpg"), old, duplicate, rejectedBefore, unhashed]
        var rules = PlanJoin.Rules()
        #expect(plan(walk, labels: [""], state: state, rules: rules) == [
            "kept a.jpg", "no transform recorded b.jpg", "kept c.jpg", "unrejected d.jpg", "no photo hash recorded e.jpg",
        ])
        _ = rules.rejections.add([(Rejection(sha256: "00", box: PixelRect(x: 0, y: 0, width: 10, height: 10)), "all")])
        rules.regroup = true
        #expect(plan(walk, labels: [""], state: state, rules: rules) == [
            "rejected a.jpg", "rejected b.jpg", "rejected c.jpg", "kept d.jpg", "rejected e.jpg",
        ])
        rules.rejections = RejectionsFile()
        #expect(plan(Array(walk.prefix(3)), labels: [""], state: Array(state.prefix(3)), rules: rules)[2]
            == "near-duplicates regrouped c.jpg")
    }

    /// Whether --dedup has to regroup: a photo new, changed or judged
    /// otherwise, or one gone; not a photo that failed before, nor a state
    /// made with other settings whose photos are all gone.
    @Test func theDatasetChangesWhenAPhotoIsNewChangedOrGone() {
        func changes(_ walk: [WalkItem], _ state: [PhotoRecord], stateCurrent: Bool = true) -> Bool {
            var rules = PlanJoin.Rules()
            rules.stateCurrent = stateCurrent
            var join = PlanJoin(
                walk: AnyIterator(walk.makeIterator()), labels: [""], stateLabels: state.isEmpty ? [] : [""],
                records: { _ in AnyIterator(state.makeIterator()) }, journal: [:], rules: rules)
            return join.changesDataset()
        }
        let a = photo("", 0, "a.jpg")
        #expect(!changes([a], [record("", 0, "a.jpg")]))
        #expect(!changes([a, photo("", 0, "b.jpg")], [record("", 0, "a.jpg"), record("", 0, "b.jpg", status: .error)]))
        #expect(changes([a, photo("", 0, "b.jpg")], [record("", 0, "a.jpg")]))
        #expect(changes([photo("", 0, "a.jpg", modified: 2)], [record("", 0, "a.jpg")]))
        #expect(changes([a], [record("", 0, "a.jpg"), record("", 0, "b.jpg")]))
        #expect(!changes([], [record("", 0, "b.jpg")], stateCurrent: false))
    }

    /// A state line's crops read without parsing it, or nil where that is not sure.
    @Test func cropsAreReadFromAStateLineWithoutParsingIt() {
        func crops(_ line: String) -> [String]? {
            var bytes = Array(line.utf8)
            return bytes.withUnsafeMutableBytes { StateLines.rawCrops(UnsafeRawBufferPointer($0)) }
        }
        var two = record("a", 0, "1.jpg", crops: ["a/1.jpg.face0.jpg", "a/1.jpg.face1.jpg"])
        two.source = #"say "crops":["x"] .jpg"#
        #expect(crops(two.stateJSON.serialized()) == ["a/1.jpg.face0.jpg", "a/1.jpg.face1.jpg"])
        #expect(crops(record("", 0, "b.jpg", status: .noFace).stateJSON.serialized()) == [])
        #expect(crops(record("", 0, "q.jpg", crops: [#"q"uote.jpg"#]).stateJSON.serialized()) == nil)
        #expect(crops(#"{"settings_hash":"abc"}"#) == nil)
    }

    /// Deleted crops: of the state's records, only those with a crop that
    /// is not there (and not rejected yet) are candidates; the journal's win.
    @Test func deletedCropCandidatesComeFromTheStateAndTheJournal() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.path
        let statePath = output + "/state.jsonl"
        let records = [record("", 0, "a.jpg"), record("", 0, "b.jpg"), record("", 0, "c.jpg"), record("", 0, "d.jpg", status: .noFace)]
        let lines = [#"{"settings_hash":"other"}"#] + records.map { $0.stateJSON.serialized() }
        try (lines.joined(separator: "\n") + "\n").write(toFile: statePath, atomically: true, encoding: .utf8)
        for crop in ["a.jpg.face0.jpg", "c2.jpg"] { _ = FileManager.default.createFile(atPath: output + "/" + crop, contents: Data()) }
        let journalPath = output + "/journal.jsonl"
        let newer = record("", 0, "c.jpg", crops: ["c2.jpg"])
        try ([#"{"settings_hash":"now"}"#, newer.stateJSON.serialized()].joined(separator: "\n") + "\n")
            .write(toFile: journalPath, atomically: true, encoding: .utf8)
        let journal = JournalContents(path: journalPath, settingsHash: "now")
        var found = DeletedCrops.candidates(statePath: statePath, journal: journal, output: output, rejections: RejectionsFile())
        #expect(found.keys.sorted() == [Photo.key(label: "", source: "b.jpg")])
        var rejections = RejectionsFile()
        _ = rejections.add([(Rejection(sha256: "00", box: PixelRect(x: 0, y: 0, width: 10, height: 10)), "b")])
        found = DeletedCrops.candidates(statePath: statePath, journal: journal, output: output, rejections: rejections)
        #expect(found.isEmpty)
    }
}
