import Foundation
import FaceCropCore
import FaceCropOutput

/// metadata.jsonl: the dataset as a Hugging Face `imagefolder`, so that
/// `datasets.load_dataset("imagefolder", data_dir=OUT)` loads every crop with
/// its manifest fields as columns.
///
/// One line per sample (a manifest line with `status: ok`), in manifest
/// order: `file_name` (the crop's path relative to the folder that holds
/// metadata.jsonl), then the manifest line's members in name order. Numbers
/// stay numbers and the box (and landmarks) stay lists.
///
/// Every line has the same columns of the same types, because `datasets`
/// takes the columns and their types from the first 10 MB of the file and
/// casts the rest to them: a member some lines lack (`input`,
/// `source_bytes`) is written as "" (a string), [] (a list) or null, and a
/// member that holds a fraction on any line (`score`, `angle`) is written
/// with a fraction on every line (`0.0`, not the manifest's `0`). Hence two
/// passes over the manifest, each one line at a time: the first learns the
/// columns, the second writes.
///
/// Derived from the committed manifest and written under a temporary name,
/// then renamed: the same manifest always gives the same bytes, whatever
/// --jobs was.
package enum HFMetadata {
    package static let fileName = "metadata.jsonl"

    /// The finishing step of a run or a merge: metadata.jsonl beside
    /// manifest.jsonl, for every crop; with `--split`, one in each split's
    /// folder instead (`load_dataset("imagefolder")` takes the folders as splits).
    /// Returns the errors met and the columns of every file written (the
    /// dataset card lists them: the card's fields are metadata.jsonl's).
    package static func write(_ run: FinishedRun, splits: [String] = []) -> (failures: [String], columns: Columns) {
        let manifest = run.output + "/" + Manifest.fileName
        var failures: [String] = []
        var columns = Columns()
        // The splits' files share the whole dataset's columns: `datasets`
        // refuses splits whose types differ (a split whose face_quality is
        // 1 on every line would otherwise say integer where another says
        // number).
        let shared = splits.isEmpty ? nil : Columns(learning: ManifestLines(path: manifest).lazy.filter(\.isSample))
        for within in splits.isEmpty ? [""] : splits {
            do throws(WriteFailure) {
                if !within.isEmpty { try AtomicFile.makeFolder(run.output + "/" + within) }
                columns.merge(
                    try write(manifest: manifest, output: run.output, within: within, columns: shared, temporaries: run.temporaries))
            } catch {
                failures.append("\(within.isEmpty ? "" : within + "/")\(fileName): \(error.reason)")
            }
        }
        return (failures, columns)
    }

    /// Writes `output/within/metadata.jsonl` with the samples whose crop lies
    /// under `within` (a folder relative to `output`, "" for the whole
    /// dataset); `file_name` is relative to that folder. `columns`: those
    /// to write with (a split's, the whole dataset's); nil: learnt from the
    /// samples written.
    @discardableResult
    package static func write(
        manifest: String, output: String, within: String, columns given: Columns? = nil, temporaries: TemporaryFiles
    ) throws(WriteFailure) -> Columns {
        guard access(manifest, R_OK) == 0 else {
            throw WriteFailure(reason: "cannot read '\(manifest)': \(systemError(errno))")
        }
        let folder = within.isEmpty ? output : output + "/" + within
        let prefix = within.isEmpty ? "" : within + "/"
        let samples = ManifestLines(path: manifest).lazy.filter { $0.isSample && $0.crop.hasPrefix(prefix) }
        let columns = given ?? Columns(learning: samples)
        let writer = try JSONLinesWriter(outputRoot: folder, name: fileName, temporaries: temporaries)
        for line in samples {
            try writer.append(columns.line(line.object, fileName: String(line.crop.dropFirst(prefix.count))))
        }
        try writer.commit()
        return columns
    }

    /// What the first pass learns of each member.
    package struct Columns {
        package enum Kind { case string, array, other }
        package struct Column {
            package var kind: Kind
            /// A number with a fraction somewhere in it, on some line.
            package var fraction = false
            /// What the column holds, in words, from its first value that is
            /// not null ("" while every value was null): the dataset card's.
            package var type = ""

            package mutating func merge(_ other: Column) {
                if kind == .other { kind = other.kind }
                fraction = fraction || other.fraction
                if type.isEmpty { type = other.type }
            }

            /// "number" for a fraction anywhere, as metadata.jsonl writes it.
            package var typeName: String {
                let base = type.isEmpty ? "null" : type
                return fraction ? base.replacingOccurrences(of: "integer", with: "number") : base
            }
        }
        package private(set) var columns: [String: Column] = [:]

        package init() {}

        /// The columns of every line of `lines`.
        package init<Lines: Sequence>(learning lines: Lines) where Lines.Element == ManifestLines.Line {
            for line in lines { learn(line.object) }
        }

        package mutating func learn(_ object: [String: Any]) {
            for (name, value) in object where name != "file_name" {
                var column = columns[name] ?? Column(kind: Self.kind(of: value))
                if column.kind == .other, !(value is NSNull) { column.kind = Self.kind(of: value) }
                if Self.hasFraction(value) { column.fraction = true }
                if column.type.isEmpty { column.type = Self.typeName(of: value) }
                columns[name] = column
            }
        }

        /// Another file's columns (a split's) added to these.
        package mutating func merge(_ other: Columns) {
            for (name, column) in other.columns {
                if var mine = columns[name] {
                    mine.merge(column)
                    columns[name] = mine
                } else {
                    columns[name] = column
                }
            }
        }

        /// The names in metadata.jsonl's order (after `file_name`).
        package var names: [String] { columns.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) }

        /// A value's type in words: string, integer, number, boolean, list of
        /// ..., object; "" for null.
        package static func typeName(of value: Any) -> String {
            switch value {
            case is String: return "string"
            case let number as NSNumber:
                switch numberType(number) {
                case "c": return "boolean"
                case "d", "f": return "number"
                default: return "integer"
                }
            case let array as [Any]:
                let element = array.lazy.map { typeName(of: $0) }.first { !$0.isEmpty }
                return element.map { "list of " + ($0.hasPrefix("list") ? "lists" + $0.dropFirst(4) : $0 + "s") } ?? "list"
            case is [String: Any]: return "object"
            default: return ""
            }
        }

        /// One metadata line: `file_name`, then every column by name.
        package func line(_ object: [String: Any], fileName: String) -> String {
            var out = "{\"file_name\": "
            JSON.quote(fileName, into: &out)
            for name in names {
                let column = columns[name]!
                out += ", "
                JSON.quote(name, into: &out)
                out += ": "
                switch object[name] {
                case nil, is NSNull:
                    out += column.kind == .string ? "\"\"" : column.kind == .array ? "[]" : "null"
                case let value?:
                    Self.serialize(value, fraction: column.fraction, into: &out)
                }
            }
            return out + "}"
        }

        package static func kind(of value: Any) -> Kind {
            if value is String { return .string }
            if value is [Any] { return .array }
            return .other
        }

        /// JSONSerialization's number type: "c" for a Boolean, "d"/"f" for a
        /// number written with a fraction or an exponent.
        package static func numberType(_ number: NSNumber) -> Character {
            return Character(UnicodeScalar(UInt8(bitPattern: number.objCType.pointee)))
        }

        package static func hasFraction(_ value: Any) -> Bool {
            switch value {
            case let number as NSNumber: "df".contains(numberType(number))
            case let array as [Any]: array.contains { hasFraction($0) }
            case let object as [String: Any]: object.values.contains { hasFraction($0) }
            default: false
            }
        }

        /// `value` as JSON; every number as a fraction when `fraction` is set.
        package static func serialize(_ value: Any, fraction: Bool, into out: inout String) {
            switch value {
            case let text as String: JSON.quote(text, into: &out)
            case let number as NSNumber:
                switch numberType(number) {
                case "c": out += number.boolValue ? "true" : "false"
                case "d", "f": out += number.doubleValue.description
                default: out += fraction ? Double(number.int64Value).description : String(number.int64Value)
                }
            case let array as [Any]:
                out += "["
                for (index, element) in array.enumerated() {
                    if index > 0 { out += ", " }
                    serialize(element, fraction: fraction, into: &out)
                }
                out += "]"
            case let object as [String: Any]:
                out += "{"
                for (index, name) in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                    if index > 0 { out += ", " }
                    JSON.quote(name, into: &out)
                    out += ": "
                    serialize(object[name]!, fraction: fraction, into: &out)
                }
                out += "}"
            default: out += "null"
            }
        }

        package init(columns: [String: Column] = [:]) {
            self.columns = columns
        }
    }
}
