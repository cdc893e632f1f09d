import Foundation
import Testing


/// `--people` over photos and a video: a 2 s clip made at test time with
/// ffmpeg from grace_hopper.jpg (a slow pan, sampled at 1 fps: one track of
/// two crops) beside photos of Hopper and of Collins (PeopleTests).
extension PeopleTests {
    /// `hopper.mp4` in `folder`: 2 s at 5 fps, a 440 x 520 window panning
    /// 40 px across the portrait.
    func hopperClip(in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-loop", "1", "-t", "2", "-i",
            fixtures.appendingPathComponent("faces/grace_hopper.jpg").path, "-vf",
            "crop=440:520:'20*t':'20*t',setsar=1,fps=5", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt",
            "yuv420p", folder.appendingPathComponent("hopper.mp4").path,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg: \(process.arguments!)")
    }

    /// The video's manifest lines with a crop or a face.
    func clipLines(_ output: URL) throws -> [[String: Any]] {
        try readManifest(output).filter { $0["source"] as? String == "hopper.mp4" && $0["face"] != nil }
    }

    /// The track's crops get the person of Hopper's photos and rows in
    /// embeddings.npy; `--keep-person` keeps the track; a second run into
    /// a fresh folder gives the same bytes; a Takeout name of the clip names
    /// the person.
    @Test func aVideoTrackTakesThePersonOfItsPhotos() throws {
        let (work, photos) = try photos(["astronaut.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        try hopperClip(in: photos)
        let output = work.appendingPathComponent("out")
        let options = ["-q", "--people", "--video-fps", "1"]
        _ = try run([photos.path, "-o", output.path] + options)
        let found = try faces(output)
        let hopper = try #require(person(found, "grace_hopper.jpg"))
        let collins = try #require(person(found, "astronaut.jpg"))
        let clip = try clipLines(output)
        #expect(clip.count == 2)
        #expect(Set(clip.compactMap { $0["track"] as? Int }) == [0])
        for line in clip {
            #expect(line["person"] as? String == hopper)
            #expect(line["embedding"] is Int)
        }
        // Every face with a crop has its own row, in manifest order.
        #expect(found.map(\.row) == Array(0..<found.count))
        #expect(found.count == 6)
        let data = try Data(contentsOf: output.appendingPathComponent("embeddings.npy"))
        #expect(data.count == 128 + found.count * 128 * 4)

        let again = work.appendingPathComponent("again")
        _ = try run([photos.path, "-o", again.path] + options)
        #expect(try datasetBytes(again) == datasetBytes(output))

        _ = try run([photos.path, "-o", output.path, "--keep-person", hopper] + options)
        for line in try clipLines(output) {
            #expect(line["status"] as? String == "ok" && line["person"] as? String == hopper)
            let crop = try #require(line["crop"] as? String)
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
        }
        let astronaut = try readManifest(output).filter { $0["source"] as? String == "astronaut.jpg" }
        #expect(astronaut.allSatisfy { $0["status"] as? String == "other_person" && $0["person"] as? String == collins })

        // The clip's Google Takeout sidecar names its one track, and so its person.
        try Data(#"{"people": [{"name": "Grace Hopper"}]}"#.utf8).write(to: photos.appendingPathComponent("hopper.mp4.json"))
        let named = work.appendingPathComponent("named")
        _ = try run([photos.path, "-o", named.path] + options)
        #expect(try clipLines(named).allSatisfy { $0["person"] as? String == "Grace Hopper" })
        #expect(person(try faces(named), "grace_hopper.jpg") == "Grace Hopper")
    }

    /// Adding a video keeps every photo's person; shards merged give what
    /// one run gives, the video's rows included.
    @Test func addingAVideoKeepsIdsAndShardsMergeAsOneRun() throws {
        let (work, photos) = try photos(["astronaut.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let options = ["-q", "--people", "--video-fps", "1"]
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path] + options)
        let before = try faces(output)
        try hopperClip(in: photos)
        _ = try run([photos.path, "-o", output.path] + options)
        let after = try faces(output)
        for face in before { #expect(person(after, face.source, face.face) == face.person) }
        #expect(try clipLines(output).allSatisfy { $0["person"] as? String == person(before, "grace_hopper.jpg") })

        let whole = work.appendingPathComponent("whole")
        _ = try run([photos.path, "-o", whole.path] + options)
        let shards = work.appendingPathComponent("shards")
        for index in 0..<2 { _ = try run([photos.path, "-o", shards.path, "--shard", "\(index)/2"] + options) }
        let merged = work.appendingPathComponent("merged")
        _ = try run(["merge", merged.path, shards.path, "-q"])
        let read = { (folder: URL, name: String) in try Data(contentsOf: folder.appendingPathComponent(name)) }
        #expect(try read(merged, "manifest.jsonl") == read(whole, "manifest.jsonl"))
        #expect(try read(merged, "embeddings.npy") == read(whole, "embeddings.npy"))
        #expect(try clipLines(merged).allSatisfy { $0["embedding"] is Int && $0["person"] != nil })
    }
}
