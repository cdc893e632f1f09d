import Foundation
import FaceCropCore
import FaceCropInputs
import FaceCropCurate

/// One step of a run's plan, in manifest order.
package enum PlanStep {
    /// A photo to process or keep, or a problem: one manifest entry.
    case work(PlanWork)
    /// A photo the last run recorded that is not found now. `reported`: it
    /// was recorded with the current settings (--check lists it as removed);
    /// `crops`: what the state and the journal say it wrote.
    case gone(PhotoRecord, reported: Bool, crops: [String])
}

package struct PlanWork {
    package var item: WorkItem
    /// Why a photo with an earlier record is processed again.
    package var reason: String?
    /// The record a stopped run keeps for this photo if it does not reach it.
    package var earlier: PhotoRecord?
    /// Crops the last run recorded for this photo, whatever its settings
    /// (none when the record is kept as it is).
    package var oldCrops: [String] = []
    /// The photo's record was marked missing (`--no-prune`), and the walk finds it again.
    package var foundAgain = false
}

/// The plan as a merge-join of two streams in manifest order: the walk
/// (`PhotoWalk`) and the last run's state records (one ordered run of
/// records per input label, `StateIndex.records`). Each step needs only the
/// current photo and the current record, so nothing per photo is held
/// whatever the library's size. The journal of a crashed run (small, by key)
/// wins over the state, as it is newer.
package struct PlanJoin: IteratorProtocol {
    package struct Rules {
        /// --overwrite: no earlier record is kept (but the photo's record
        /// stands in for it when the photo cannot be read, `ReadFailure`).
        package var overwrite = false
        /// --no-prune: a record of a photo not found now is kept, marked
        /// missing (errors aside, which name no crop); not for the guard's tally.
        package var keepMissing = false
        /// Photos that failed before are tried again (not for --check).
        package var retryErrors = true
        /// Whether the state file was made with the current settings.
        package var stateCurrent = true
        /// Whether a crop (relative to -o) is there.
        package var cropExists: (String) -> Bool = { _ in true }
        /// The rejections file: a photo whose faces it now judges otherwise is processed again.
        package var rejections = RejectionsFile()
        /// --dedup when the dataset's faces change (`changesDataset`): a
        /// group may keep another face, whose crop a duplicate never had, so
        /// photos with duplicate faces are processed again and every face
        /// has its crop before the faces are regrouped.
        package var regroup = false
        /// --shard: whether this shard owns a problem (label, source). A
        /// folder it cannot read is seen by every shard, for the records
        /// under it; only its owner records the error.
        package var owns: (String, String) -> Bool = { _, _ in true }
        /// Whether every face tag gets a face of its own (`--no-tagged-faces`,
        /// `--faces largest` and `--min-sharpness` aside): a photo recorded
        /// with a tag that has none was made when tags under `--min-face`
        /// got no crop, and is processed again.
        package var cropsEveryTag = false
        /// `--pad inside` (template crops aside): every face records the
        /// margin its square gives it (`margin_used`); a photo recorded
        /// before faces did is processed again.
        package var recordsMargin = false

        package static func cropsEveryTag(_ settings: CropSettings) -> Bool {
            settings.taggedFaces && settings.faces != .largest && settings.minSharpness <= 0
        }

        /// The rules the crop settings decide.
        package mutating func follow(_ settings: CropSettings) {
            cropsEveryTag = Self.cropsEveryTag(settings)
            recordsMargin = settings.pad.keepsInside && !settings.align.isTemplate
        }

        package init(overwrite: Bool = false, retryErrors: Bool = true, stateCurrent: Bool = true,
            cropExists: @escaping (String) -> Bool = { _ in true }, rejections: RejectionsFile = RejectionsFile(), regroup: Bool = false) {
            (self.overwrite, self.retryErrors, self.cropExists) = (overwrite, retryErrors, cropExists)
            (self.stateCurrent, self.rejections, self.regroup) = (stateCurrent, rejections, regroup)
        }
    }

    private var walk: AnyIterator<WalkItem>
    private let labels: [String]
    private let stateLabels: [String]
    private let records: (String) -> AnyIterator<PhotoRecord>
    private var journal: [String: PhotoRecord]
    private let rules: Rules

    /// The input whose records `cursor` reads; labels already read.
    private var input = -1
    private var cursor = AnyIterator<PhotoRecord> { nil }
    private var head: PhotoRecord?
    private var opened: Set<String> = []
    private var queue: [PlanStep] = []
    private var walkDone = false
    /// The current input's folders and files the walk could not read
    /// ("." for the input itself): records under them are kept, not gone.
    private var unreadable: [String] = []

    package init(walk: AnyIterator<WalkItem>, labels: [String], stateLabels: [String],
        records: @escaping (String) -> AnyIterator<PhotoRecord>, journal: [String: PhotoRecord], rules: Rules) {
        (self.walk, self.labels, self.stateLabels, self.records) = (walk, labels, stateLabels, records)
        (self.journal, self.rules) = (journal, rules)
    }

    package mutating func next() -> PlanStep? {
        while queue.isEmpty {
            guard !walkDone else { return nil }
            guard let item = walk.next() else {
                finish()
                continue
            }
            move(to: item.key.0)
            // Records before this entry were not found: gone.
            while let record = head, record.source.utf8.lexicographicallyPrecedes(item.key.1.utf8) {
                queue.append(gone(record))
                advance()
            }
            switch item {
            case .problem(let problem):
                var work = PlanWork(item: .problem(problem))
                if problem.unreadable {
                    unreadable.append(problem.source)
                    // A file the walk could not read: its record is what the run keeps if reading fails
                    // (its crops go as before when it is not kept).
                    if let record = head, record.source == problem.source, let kept = keepable(record) {
                        work.earlier = kept.record
                        work.oldCrops = kept.oldCrops + kept.record.crops
                        advance()
                    }
                }
                if rules.owns(problem.label, problem.source) { queue.append(.work(work)) }
            case .photo(let photo):
                var matched: PhotoRecord?
                if let record = head, record.source == photo.source {
                    matched = record
                    advance()
                }
                queue.append(.work(work(photo, state: matched)))
            }
        }
        return queue.removeFirst()
    }

    /// Opens the records of `number`'s label; what is left of earlier inputs' is gone.
    private mutating func move(to number: Int) {
        while input < number {
            while let record = head {
                queue.append(gone(record))
                advance()
            }
            unreadable = []
            input += 1
            guard input < labels.count, !opened.contains(labels[input]) else {
                cursor = AnyIterator { nil }
                head = nil
                continue
            }
            opened.insert(labels[input])
            cursor = records(labels[input])
            advance()
        }
    }

    private mutating func advance() { head = cursor.next() }

    /// After the walk: the rest of the state, labels no input has now, and
    /// journal records of photos not found, all gone.
    private mutating func finish() {
        move(to: labels.count)
        for label in stateLabels where !opened.contains(label) {
            opened.insert(label)
            let rest = records(label)
            while let record = rest.next() { queue.append(gone(record)) }
        }
        let left = journal.values.sorted { PhotoFinder.precedes(($0.input, $0.source), ($1.input, $1.source)) }
        journal = [:]
        for record in left { queue.append(.gone(record, reported: true, crops: record.crops)) }
        walkDone = true
    }

    private mutating func gone(_ record: PhotoRecord) -> PlanStep {
        if Self.covered(record.source, by: unreadable), let kept = keepable(record) {
            return .work(PlanWork(item: .kept(kept.record), earlier: kept.record, oldCrops: kept.oldCrops))
        }
        // Kept in the place of its input given now (records of a label no
        // input has now go: they would come after every input's, out of order).
        if rules.keepMissing, labels.indices.contains(input), labels[input] == record.label, let kept = keepable(record) {
            guard kept.record.status != .error else {
                return .gone(kept.record, reported: true, crops: kept.record.crops + kept.oldCrops)
            }
            var missing = kept.record
            missing.missing = true
            missing.input = input
            return .work(PlanWork(item: .kept(missing), earlier: missing, oldCrops: kept.oldCrops))
        }
        if let newer = journal.removeValue(forKey: record.key) {
            return .gone(newer, reported: true, crops: newer.crops + record.crops)
        }
        return .gone(record, reported: rules.stateCurrent, crops: record.crops)
    }

    /// What to do with a photo found now, given its state record if any.
    private mutating func work(_ photo: Photo, state: PhotoRecord?) -> PlanWork {
        let newer = journal.removeValue(forKey: Photo.key(label: photo.label, source: photo.source))
        var loaded = newer ?? (rules.stateCurrent ? state : nil)
        // Marked missing by an earlier run: found again, it is the photo it was.
        let foundAgain = loaded?.missing ?? false
        loaded?.missing = false
        var work = work(photo, loaded: loaded, oldCrops: (state?.crops ?? []) + (newer?.crops ?? []), newer: newer, state: state)
        work.foundAgain = foundAgain
        return work
    }

    private func work(_ photo: Photo, loaded: PhotoRecord?, oldCrops: [String], newer: PhotoRecord?, state: PhotoRecord?)
        -> PlanWork
    {
        guard !rules.overwrite, let record = loaded else {
            let reason = rules.overwrite && loaded != nil ? "overwrite" : nil
            // --overwrite: the record stays what a run keeps if the photo cannot be read now.
            return PlanWork(item: .photo(photo, previous: nil), reason: reason, earlier: loaded, oldCrops: oldCrops)
        }
        // A failure recorded without a hash (an empty file) is unchanged
        // for --check when its size and time are.
        let unchanged = record.size == photo.size && record.modified == photo.modified
        if record.status == .error && (rules.retryErrors || (record.sha256 == nil && !unchanged)) {
            return PlanWork(item: .photo(photo, previous: nil), reason: "failed before", earlier: record, oldCrops: oldCrops)
        }
        if let change = Plan.rejectionChange(record, rejections: rules.rejections) {
            return PlanWork(item: .photo(photo, previous: nil), reason: change, earlier: record, oldCrops: oldCrops)
        }
        if !record.crops.allSatisfy(rules.cropExists) {
            return PlanWork(item: .photo(photo, previous: nil), reason: "crop missing", earlier: record, oldCrops: oldCrops)
        }
        if record.status == .ok && (record.photoHash == nil || record.faces.contains { $0.status == .ok && $0.transform == nil }) {
            // Made before the manifest had landmarks, transforms and photo hashes.
            let reason = record.photoHash == nil ? "no photo hash recorded" : "no transform recorded"
            return PlanWork(item: .photo(photo, previous: nil), reason: reason, earlier: record, oldCrops: oldCrops)
        }
        if rules.cropsEveryTag, record.taggedFaces > record.taggedFacesFound + record.faces.filter(\.foundByTag).count {
            return PlanWork(item: .photo(photo, previous: nil), reason: "tagged face without a crop", earlier: record, oldCrops: oldCrops)
        }
        if rules.recordsMargin, record.faces.contains(where: { $0.marginUsed == nil }) {
            return PlanWork(item: .photo(photo, previous: nil), reason: "no margin_used recorded", earlier: record, oldCrops: oldCrops)
        }
        if record.status == .ok, let video = record.video, video.cuts == nil || video.cutsBy != VideoInfo.cutsByNow {
            // Tracked before cuts between samples ended tracks, or with cuts
            // found by a level, which missed those between similar pictures.
            let reason = video.cuts == nil ? "tracks not ended at cuts" : "cuts not found by contrast"
            return PlanWork(item: .photo(photo, previous: nil), reason: reason, earlier: record, oldCrops: oldCrops)
        }
        if rules.regroup && record.faces.contains(where: { $0.status == .duplicate || $0.status == .otherPerson }) {
            let reason = record.faces.contains { $0.status == .duplicate } ? "near-duplicates regrouped" : "people regrouped"
            return PlanWork(item: .photo(photo, previous: nil), reason: reason, earlier: record, oldCrops: oldCrops)
        }
        if record.size == photo.size && record.modified == photo.modified {
            // The state's crops are this record's unless a newer journal record replaced it.
            return PlanWork(item: .kept(record), earlier: record, oldCrops: newer == nil ? [] : state?.crops ?? [])
        }
        // Same content under a new time (a fresh checkout) is kept after
        // hashing; the worker decides.
        return PlanWork(item: .photo(photo, previous: record), earlier: record, oldCrops: oldCrops)
    }
}

extension PlanJoin {
    /// Whether `source` is one of `unreadable` or under one ("." is the whole input).
    static func covered(_ source: String, by unreadable: [String]) -> Bool {
        unreadable.contains { $0 == "." || source == $0 || source.hasPrefix($0 + "/") }
    }

    /// The record to keep as it is for a photo that could not be read now:
    /// the journal's newer one, else the state's when it was made with the
    /// current settings (one made with others cannot stand in the dataset,
    /// and is gone as before). `oldCrops`: the state's, when the journal's wins.
    fileprivate mutating func keepable(_ record: PhotoRecord) -> (record: PhotoRecord, oldCrops: [String])? {
        if let newer = journal.removeValue(forKey: record.key) { return (newer, record.crops) }
        return rules.stateCurrent ? (record, []) : nil
    }

    /// Whether the dataset's faces may change (a photo new, changed, gone
    /// or judged otherwise by the rejections; a photo that failed before
    /// does not count): walks the plan up to the first such step.
    package mutating func changesDataset() -> Bool {
        while let step = next() {
            switch step {
            case .gone(_, let reported, _): if reported { return true }
            case .work(let work):
                if case .photo = work.item, work.reason != "failed before" { return true }
            }
        }
        return false
    }
}
