import Foundation
import FaceCropCore

/// A JSON-lines file (state, manifest) read one line at a time (getline)
/// from a byte offset.
package final class StateLines {
    private let file: UnsafeMutablePointer<FILE>?
    private var line: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    /// Where the next line starts.
    package private(set) var offset: Int

    // Not inlined: promoted to the stack in an optimised caller, the object
    // was freed with its retain count above one and crashed (Swift 6, -O).
    @inline(never)
    package init(path: String, offset: Int = 0) {
        file = fopen(path, "r")
        self.offset = offset
        if let file, offset > 0 { fseeko(file, off_t(offset), SEEK_SET) }
    }

    deinit {
        if let file { fclose(file) }
        free(line)
    }

    /// The next line (without its newline), as bytes valid until the next call.
    package func next() -> UnsafeRawBufferPointer? {
        guard let file else { return nil }
        let length = getline(&line, &capacity, file)
        guard length > 0, let line else { return nil }
        offset += length
        let content = line[length - 1] == 0x0A ? length - 1 : length
        return UnsafeRawBufferPointer(start: line, count: content)
    }

    /// The next photo record; header lines and lines that do not parse (cut
    /// short by a crash) are skipped.
    package func nextRecord() -> PhotoRecord? {
        while let bytes = next() {
            if let object = Self.object(bytes), let record = PhotoRecord(state: object) { return record }
        }
        return nil
    }

    package static func object(_ bytes: UnsafeRawBufferPointer) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }

    private static let cropsKey = Array(#""crops": ["#.utf8)

    /// A record line's `crops` without parsing the line, or nil when that
    /// is not sure (no such key, or a name with an escape): in a JSON line
    /// every '"' inside a string is escaped, so the first `"crops": [` is the key.
    package static func rawCrops(_ line: UnsafeRawBufferPointer) -> [String]? {
        guard let first = cropsKey.first, line.count > cropsKey.count else { return nil }
        var index = 0
        while index + cropsKey.count <= line.count {
            if line[index] == first, line[index..<index + cropsKey.count].elementsEqual(cropsKey) { break }
            index += 1
        }
        index += cropsKey.count
        var crops: [String] = []
        while index < line.count {
            switch line[index] {
            case UInt8(ascii: "]"): return crops
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "\""):
                guard let end = line[(index + 1)...].firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }),
                    line[end] == UInt8(ascii: "\"")
                else { return nil }
                crops.append(String(decoding: line[(index + 1)..<end], as: UTF8.self))
                index = end + 1
            default: return nil
            }
        }
        return nil
    }
}

/// What a run needs to know about the last run's state file before
/// streaming it beside the walk: its header, and where each input's records
/// start. The file is in manifest order, so each input's records are one
/// run of lines. A few bytes per input, nothing per photo.
package struct StateIndex {
    /// The settings the state file was made with, and its header as parsed.
    package var settingsHash: String?
    package var header: [String: Any] = [:]
    /// Each input label's first record, in file order.
    package var segments: [(label: String, offset: Int)] = []

    package init(path: String) {
        let lines = StateLines(path: path)
        var previous: [UInt8]?
        while true {
            let start = lines.offset
            guard let bytes = lines.next() else { break }
            // `{"input": "LABEL", "index": ...`: only a line whose label text
            // differs from the last record's is parsed here.
            let raw = Self.rawLabel(bytes)
            if let raw, let previous, raw.elementsEqual(previous) { continue }
            guard let object = StateLines.object(bytes) else { continue }
            if let hash = object["settings_hash"] as? String {
                if settingsHash == nil {
                    settingsHash = hash
                    header = object
                }
            } else if let record = PhotoRecord(state: object) {
                previous = raw.map { Array($0) }
                if segments.last?.label != record.label { segments.append((record.label, start)) }
            }
        }
    }

    private static let opening = Array(#"{"input": ""#.utf8)
    private static let closing = Array(#"", "index": "#.utf8)

    /// The label's JSON text in a record line. Inside a JSON string every
    /// '"' is escaped, so the first unescaped `", "index": ` ends it.
    package static func rawLabel(_ line: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer>? {
        guard line.count > opening.count, line.starts(with: opening) else { return nil }
        var index = opening.count
        while index + closing.count <= line.count {
            if line[index] == closing[0], line[index..<index + closing.count].elementsEqual(closing) {
                return line[opening.count..<index]
            }
            index += 1
        }
        return nil
    }

    /// One label's records in source order, read from the file as needed.
    package func records(of label: String, path: String) -> AnyIterator<PhotoRecord> {
        guard let start = segments.first(where: { $0.label == label })?.offset else { return AnyIterator { nil } }
        let lines = StateLines(path: path, offset: start)
        var done = false
        return AnyIterator {
            guard !done, let record = lines.nextRecord(), record.label == label else {
                done = true
                return nil
            }
            return record
        }
    }
}

/// What the journal of a run that crashed holds. Small: only the photos
/// that run finished after its last commit.
package struct JournalContents {
    /// Records made with the current settings, by key; they win over the state's.
    package var records: [String: PhotoRecord] = [:]
    /// Every crop the journal says was written or about to be.
    package var crops: [String] = []

    package init(path: String, settingsHash: String) {
        let lines = StateLines(path: path)
        var fileHash: String?
        while let bytes = lines.next() {
            guard let object = StateLines.object(bytes) else { continue }
            if let hash = object["settings_hash"] as? String {
                fileHash = hash
            } else if let begun = object["begin"] as? [String] {
                crops += begun
            } else if let record = PhotoRecord(state: object) {
                crops += record.crops
                if fileHash == settingsHash { records[record.key] = record }
            }
        }
    }
}
