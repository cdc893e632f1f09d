import Foundation
import Testing
import FaceCropCore
import FaceCropOutput
import FaceCropKit


/// `merge` as a k-way merge of the shards' state files: the records come
/// out in manifest order whichever shard holds them, and a shard whose
/// records are not in that order is named, not merged out of order.
struct MergeStreamTests {
    func record(_ source: String) -> PhotoRecord {
        PhotoRecord(label: "", input: 0, source: source, size: 10, modified: 1, sha256: "00", status: .noFace, width: 10, height: 10)
    }

    /// Two shard state files in one folder, as `--shard K/2` runs leave
    /// them, with the header of a real run (of an empty folder).
    func shards(_ sources: [[String]], in folder: URL) throws {
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let run = folder.appendingPathComponent("run")
        #expect(try runFaceCrop([empty.path, "-o", run.path, "-q", "--no-report"]).status == 0)
        let state = try String(contentsOf: run.appendingPathComponent(".facecrop/state.jsonl"), encoding: .utf8)
        let header = String(state.split(separator: "\n")[0])
        let stateFolder = folder.appendingPathComponent(StateStore.folderName)
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        for (index, names) in sources.enumerated() {
            let lines = [header] + names.map { record($0).stateJSON.serialized() }
            try (lines.joined(separator: "\n") + "\n")
                .write(to: stateFolder.appendingPathComponent("state.shard-\(index)-of-2.jsonl"), atomically: true, encoding: .utf8)
        }
    }

    func merge(_ folder: URL, into output: URL) async throws -> Int32 {
        try await MergeCommand.merge(
            into: output.path, from: [folder.path], quiet: true, json: false, stop: StopRequest(), temporaries: TemporaryFiles())
    }

    @Test func recordsComeOutInManifestOrderAcrossShards() async throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let folder = work.appendingPathComponent("shards")
        try shards([["a.jpg", "c/x.jpg", "d.jpg"], ["b.jpg", "c.jpg", "e.jpg"]], in: folder)
        let output = work.appendingPathComponent("merged")
        #expect(try await merge(folder, into: output) == 0)
        let manifest = try String(contentsOf: output.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        let sources = manifest.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["source"] as? String
        }
        #expect(sources == ["a.jpg", "b.jpg", "c.jpg", "c/x.jpg", "d.jpg", "e.jpg"])
    }

    @Test func aShardOutOfOrderIsNamed() async throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let folder = work.appendingPathComponent("shards")
        try shards([["a.jpg", "d.jpg", "c.jpg"], ["b.jpg"]], in: folder)
        let error = await #expect(throws: FaceCropError.self) { try await merge(folder, into: work.appendingPathComponent("merged")) }
        #expect(error?.description.contains("shard 0/2") == true)
        #expect(error?.description.contains("not in manifest order") == true)
    }
}
