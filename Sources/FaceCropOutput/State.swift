import Foundation
import Synchronization
import FaceCropCore

/// The record of a dataset folder, kept in `<-o>/.facecrop/`:
///
/// - `state.jsonl`: one record per photo of the last finished (or stopped)
///   run, rewritten atomically at its end;
/// - `journal.jsonl`: appended while a run goes on: the crops a photo is
///   about to write (`begin`), then its record. After a crash (even
///   `kill -9`) the next run takes the finished photos from it and removes
///   the crops of the unfinished ones;
/// - `tmp/`: every temporary file, emptied when a run starts.
///
/// With `--shard K/N` the names get a `.shard-K-of-N` suffix so that shards
/// can share one output folder.
package struct StateStore {
    package static let folderName = ".facecrop"

    package let root: String
    package let suffix: String

    package init(output: String, shard: Shard?) {
        root = (output as NSString).appendingPathComponent(Self.folderName)
        suffix = shard.map { ".shard-\($0.index)-of-\($0.count)" } ?? ""
    }

    package var statePath: String { root + "/state\(suffix).jsonl" }
    package var journalPath: String { root + "/journal\(suffix).jsonl" }
    package var temporaryFolder: String { root + "/tmp\(suffix)" }

    /// Removes what a crashed run left in `tmp/` and makes the folders.
    package func prepare() throws(WriteFailure) {
        try AtomicFile.makeFolder(root)
        if let names = try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder) {
            for name in names { unlink(temporaryFolder + "/" + name) }
        }
        try AtomicFile.makeFolder(temporaryFolder)
    }

    /// Starts the state file of a run: records are appended as photos finish
    /// (in manifest order), so nothing per photo is kept in memory.
    package func writer(settingsHash: String, settings: JSON, temporaries: TemporaryFiles) throws(WriteFailure) -> StateWriter {
        try StateWriter(store: self, settingsHash: settingsHash, settings: settings, temporaries: temporaries)
    }

    /// The records of the state file as written, read one line at a time.
    package var records: StateRecords { StateRecords(path: statePath) }

    /// Every record again, in order, as `change` leaves it (given its number),
    /// written to a new state file and manifest.jsonl, both put in place at
    /// the end: the steps that run after the photos (`--dedup`, `--people`).
    package func rewrite(
        output: String, settingsHash: String, settings: JSON, temporaries: TemporaryFiles,
        _ change: (Int, inout PhotoRecord) throws(WriteFailure) -> Void
    ) throws(WriteFailure) -> RunCounts {
        let manifest = try JSONLinesWriter(outputRoot: output, name: Manifest.fileName, temporaries: temporaries)
        let state = try writer(settingsHash: settingsHash, settings: settings, temporaries: temporaries)
        var counts = RunCounts()
        for (number, var record) in records.enumerated() {
            try change(number, &record)
            counts.add(record)
            let lines = Manifest.lines(of: record)
            try state.append(record, lines: lines)
            try manifest.append(lines)
        }
        try manifest.commit()
        try state.commit()
        return counts
    }
}

/// The state file being written: under a temporary name until `commit`,
/// which puts it in place and drops the journal (the state now holds all).
package final class StateWriter {
    private let lines: JSONLinesWriter
    private let journalPath: String

    fileprivate init(store: StateStore, settingsHash: String, settings: JSON, temporaries: TemporaryFiles)
        throws(WriteFailure)
    {
        lines = try JSONLinesWriter(outputRoot: store.root, name: (store.statePath as NSString).lastPathComponent, temporaries: temporaries)
        journalPath = store.journalPath
        try lines.append(
            JSON.object([
                ("settings_hash", .string(settingsHash)), ("version", .string(Options.version)), ("settings", settings),
            ]).serialized())
    }

    /// Appends a record, given its manifest lines.
    package func append(_ record: PhotoRecord, lines manifestLines: [String]) throws(WriteFailure) {
        try lines.append(record.stateJSON(lines: manifestLines).serialized())
    }

    package func commit() throws(WriteFailure) {
        try lines.commit()
        unlink(journalPath)
    }

    /// Of `crops`, those no record written so far lists (read back from
    /// the file being written, one record at a time).
    package func unclaimed(_ crops: Set<String>) throws(WriteFailure) -> Set<String> {
        var left = crops
        let written = StateLines(path: try lines.flushedPath())
        while !left.isEmpty, let record = written.nextRecord() { left.subtract(record.crops) }
        return left
    }
}

/// A state file's records in file order, parsed one line at a time: the
/// steps after a run go through 100,000 photos without holding them.
package struct StateRecords: Sequence, Sendable {
    package let path: String

    package func makeIterator() -> AnyIterator<PhotoRecord> {
        let lines = StateLines(path: path)
        return AnyIterator { lines.nextRecord() }
    }
}

/// The append-only journal of a run in progress. Each entry is one write(2)
/// of one line to a file opened with O_APPEND, so entries from different
/// workers never interleave and a crash cuts at most the last line.
///
/// Thread-safe: the descriptor is only used under the mutex.
package final class Journal: Sendable {
    private let fd: Mutex<Int32>

    package init(path: String, settingsHash: String) throws(WriteFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteFailure(reason: "'\(path)': \(systemError(errno))") }
        self.fd = Mutex(fd)
        try append(.object([("settings_hash", .string(settingsHash))]))
    }

    deinit {
        _ = fd.withLock { close($0) }
    }

    /// Before a photo's crops are written: their paths, so a crash between
    /// writing them and finishing the photo cannot leave unknown files.
    package func begin(_ crops: [String]) throws(WriteFailure) {
        try append(.object([("begin", .array(crops.map(JSON.string)))]))
    }

    package func finish(_ record: PhotoRecord) throws(WriteFailure) {
        try append(record.stateJSON)
    }

    private func append(_ entry: JSON) throws(WriteFailure) {
        let bytes = Array((entry.serialized() + "\n").utf8)
        let code = fd.withLock { fd in bytes.withUnsafeBytes { writeFully(fd, $0) } }
        if code != 0 { throw WriteFailure(reason: "journal: \(systemError(code))", code: code) }
    }
}
