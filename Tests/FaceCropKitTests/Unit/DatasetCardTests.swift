import Foundation
import Testing
import FaceCropFinish


/// The dataset card's pure parts: the column types it lists (learned from
/// manifest lines as metadata.jsonl learns them) and its header.
struct DatasetCardTests {
    static func columns(_ lines: [String]) throws -> HFMetadata.Columns {
        var columns = HFMetadata.Columns()
        for line in lines {
            columns.learn(try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])
        }
        return columns
    }

    @Test(arguments: [
        (#"{"a": "x"}"#, "string"), (#"{"a": 3}"#, "integer"), (#"{"a": 0.5}"#, "number"), (#"{"a": true}"#, "boolean"),
        (#"{"a": [1, 2]}"#, "list of integers"), (#"{"a": [[0.5]]}"#, "list of lists of numbers"),
        (#"{"a": ["x"]}"#, "list of strings"), (#"{"a": []}"#, "list"), (#"{"a": {"b": 1}}"#, "object"), (#"{"a": null}"#, "null"),
    ])
    func aColumnsTypeIsItsFirstValuesInWords(line: String, type: String) throws {
        #expect(try Self.columns([line]).columns["a"]?.typeName == type)
    }

    /// A null first, then a value; an integer on one line and a fraction on
    /// another is a number (metadata.jsonl writes every line with a fraction).
    @Test func laterLinesFillInAndWidenTheType() throws {
        let columns = try Self.columns([#"{"a": null, "b": 0, "c": [0]}"#, #"{"a": "x", "b": 2.5, "c": [1.5]}"#])
        #expect(columns.columns["a"]?.typeName == "string")
        #expect(columns.columns["b"]?.typeName == "number")
        #expect(columns.columns["c"]?.typeName == "list of numbers")
        #expect(columns.names == ["a", "b", "c"])
    }

    /// A split's files: its metadata.jsonl and every crop of the format.
    @Test func eachSplitListsItsMetadataAndTheCrops() {
        #expect(DatasetCard.dataFiles(split: nil, format: "jpg") == ["metadata.jsonl", "**/*.jpg"])
        #expect(DatasetCard.dataFiles(split: "val", format: "webp") == ["val/metadata.jsonl", "**/*.webp"])
    }

    /// Only a regular file with the marker line is facecrop's to replace.
    @Test func aFileIsFacecropsOnlyWithTheMarkerLine() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let path = work.appendingPathComponent("README.md").path
        #expect(DatasetCard.foreignFile(at: path) == nil)
        try Data("# mine\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DatasetCard.foreignFile(at: path) == "was not written by facecrop")
        try Data("# mine\n\(DatasetCard.marker) and more\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DatasetCard.foreignFile(at: path) == "was not written by facecrop")
        try Data("---\n---\n\n\(DatasetCard.marker)\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DatasetCard.foreignFile(at: path) == nil)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/hostname")
        #expect(DatasetCard.foreignFile(at: path) == "is not a regular file")
    }
}
