import Foundation
import FaceCropCore
import FaceCropInputs

/// The plan of a run, streamed into the pipeline: the walk joined with the
/// last run's state (`PlanJoin`). It keeps only the steps the pipeline has
/// taken and not yet recorded (at most `Pipeline.window`), the crops that
/// may have to be pruned (crops of photos processed again, and with --prune
/// of photos gone or left out by dates; never those of kept ones), and, for
/// --check, the gone photos' names in a temporary file.
package final class PlanFeed: IteratorProtocol {
    private var join: PlanJoin
    /// Steps taken and not yet recorded, in order.
    private var pending: [PlanWork] = []
    /// How many manifest entries (photos and problems) it has given.
    package private(set) var count = 0
    /// Crops the last run wrote that this run may not write again (nil:
    /// --check, --dry-run). Those of photos not found, or left out by
    /// dates, only with --prune: --no-prune keeps them (those not found
    /// with their records, `PlanJoin.Rules.keepMissing`).
    package private(set) var pruneCandidates: Set<String>?
    private let pruneGone: Bool
    /// --check / --dry-run: the photos recorded with these settings and gone.
    package private(set) var gone: GoneList?

    package init(_ join: PlanJoin, prune: Bool, pruneGone: Bool = true, listGone: Bool, journalCrops: [String]) {
        self.join = join
        self.pruneGone = pruneGone
        if prune { pruneCandidates = Set(journalCrops) }
        if listGone { gone = GoneList() }
    }

    /// The next step for the caller itself (--check), or nil at the end.
    package func nextWork() -> PlanWork? {
        while let step = join.next() {
            switch step {
            case .gone(let record, let reported, let crops):
                if pruneGone { pruneCandidates?.formUnion(crops) }
                if reported { gone?.append(record) }
            case .work(let work):
                pruneCandidates?.formUnion(work.oldCrops)
                count += 1
                return work
            }
        }
        return nil
    }

    package func next() -> WorkItem? {
        guard let work = nextWork() else { return nil }
        pending.append(work)
        return work.item
    }

    /// The oldest taken step, not yet recorded.
    var oldest: PlanWork? { pending.first }

    /// The oldest taken step has been recorded.
    package func recorded() { pending.removeFirst() }

    /// The oldest taken step is left out of the dataset (`--since` /
    /// `--until`): not recorded, and the crops of its kept record go with
    /// --prune (--no-prune keeps them, as docs/libraries.md says).
    package func leftOut(_ record: PhotoRecord) {
        if pruneGone { pruneCandidates?.formUnion(record.crops) }
        pending.removeFirst()
    }

    /// A stopped run: the earlier records of every step not recorded, in
    /// order (the rest of the plan is walked to the end for them).
    package func earlierRecords(_ body: (PhotoRecord) throws(WriteFailure) -> Void) throws(WriteFailure) {
        for work in pending { if let record = work.earlier { try body(record) } }
        pending = []
        while let work = nextWork() { if let record = work.earlier { try body(record) } }
    }
}

/// Names of gone photos for --check and --dry-run, listed last in
/// byte order of "label/source". The join finds them one input label at a
/// time, each label's in order, so they are written to an unnamed
/// temporary file as runs and merged when listed: nothing per photo in memory.
package final class GoneList {
    package init() {}

    private let file: UnsafeMutablePointer<FILE>? = tmpfile()
    /// Where each sorted run starts (a few per run of facecrop).
    private var runs: [Int] = []
    private var label: String?
    private var last: String?
    private var size = 0

    deinit { if let file { fclose(file) } }

    package func append(_ record: PhotoRecord) {
        let name = PhotoFinder.join(record.label, record.source)
        if record.label != label || !(last.map { $0.utf8.lexicographicallyPrecedes(name.utf8) } ?? true) {
            runs.append(size)
            label = record.label
        }
        last = name
        var bytes = Array(name.utf8)
        bytes.append(0)  // names may hold newlines, never NUL
        size += bytes.count
        if let file { _ = fwrite(bytes, 1, bytes.count, file) }
    }

    /// Every name, in order.
    package func forEach(_ body: (String) -> Void) {
        guard let file, !runs.isEmpty else { return }
        fflush(file)
        let fd = fileno(file)
        let ends = Array(runs.dropFirst()) + [size]
        var readers = zip(runs, ends).map { RunReader(fd: fd, start: $0, end: $1) }
        var heads = readers.indices.map { readers[$0].next() }
        while let best = heads.indices.filter({ heads[$0] != nil }).min(by: {
            heads[$0]!.lexicographicallyPrecedes(heads[$1]!)
        }) {
            body(String(decoding: heads[best]!, as: UTF8.self))
            heads[best] = readers[best].next()
        }
    }

    /// One run's names, read with pread in chunks.
    private struct RunReader {
        let fd: Int32
        var position: Int
        let end: Int
        var buffer: [UInt8] = []
        var used = 0

        init(fd: Int32, start: Int, end: Int) {
            self.fd = fd
            self.position = start
            self.end = end
        }

        mutating func next() -> [UInt8]? {
            while true {
                if let zero = buffer[used...].firstIndex(of: 0) {
                    let name = Array(buffer[used..<zero])
                    used = zero + 1
                    return name
                }
                guard position < end else { return nil }
                buffer.removeFirst(used)
                used = 0
                var chunk = [UInt8](repeating: 0, count: min(1 << 16, end - position))
                let got = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(position)) }
                guard got > 0 else { return nil }
                position += got
                buffer += chunk[..<got]
            }
        }
    }
}
